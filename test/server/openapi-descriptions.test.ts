import { describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from '../../src/server/openapi.js';
import { COLLECTION_TABLE } from '../../src/domain/collection.js';
import type { FieldRule, RuleTable } from '../../src/domain/field-rules.js';
import type { Problem } from '../../src/domain/problem.js';
import { CANDIDATE_TABLE, SCHEDULE_REQUEST_TABLE, SCHEDULE_TABLE } from '../../src/domain/schedule.js';
import { HIERARCHY_TABLE, USER_TABLE } from '../../src/domain/user.js';

/*
 * The served OpenAPI document says each field's rule twice: in words (its description) and as a
 * pattern. Here the words are read as a reader would and turned into values they accept or refuse;
 * the pattern must agree with every one, and so must the field's rule in the rule table (what the
 * engine and `local serve` check). A pattern no description explains fails, as does a description
 * that promises a character rule with no pattern to carry it.
 */

type Schema = Record<string, unknown>;
const doc = buildOpenApiDocument() as { components: { schemas: Record<string, Schema> } };

/** Where a request schema's fields come from: a node path's table, by the path's shape. */
const TABLE_AT: [RegExp, RuleTable][] = [
  [/^ScheduleRequest\.properties\.Schedule\.properties\.(\w+)$/, SCHEDULE_TABLE],
  [/^ScheduleRequest\.properties\.Candidates\.items\.properties\.(\w+)$/, CANDIDATE_TABLE],
  [/^ScheduleRequest\.properties\.(\w+)$/, SCHEDULE_REQUEST_TABLE],
  [/^UserRequest\.properties\.Hierarchies\.items\.properties\.(\w+)$/, HIERARCHY_TABLE],
  [/^UserRequest\.properties\.(\w+)$/, USER_TABLE],
  [/^UserEnvelope\.properties\.Content\.properties\.User\.properties\.(\w+)$/, USER_TABLE],
  [/^CollectionRequest\.properties\.(\w+)$/, COLLECTION_TABLE],
];

interface TextField {
  /** The node's path, `anyOf` steps left out (the field, not its nullable wrapping). */
  path: string;
  pattern: RegExp | undefined;
  /** The node's own description, else the nearest one above it (an item of a described list). */
  description: string;
  /** The field's rule, for a field of a rule table whose value is this string. */
  rule: FieldRule | undefined;
}

function textFields(): TextField[] {
  const found: TextField[] = [];
  const walk = (node: unknown, path: string, inherited: string): void => {
    if (Array.isArray(node)) {
      for (const item of node) walk(item, path, inherited);
      return;
    }
    if (typeof node !== 'object' || node === null) return;
    const schema = node as Schema;
    const description = typeof schema.description === 'string' ? schema.description : inherited;
    // A string of its own (not '' as "not set", not an enum).
    if (schema.type === 'string' && schema.enum === undefined && schema.const === undefined) {
      const pattern = typeof schema.pattern === 'string' ? new RegExp(schema.pattern, 'u') : undefined;
      const table = TABLE_AT.find(([shape]) => shape.test(path));
      const name = table?.[0].exec(path)?.[1];
      found.push({
        path,
        pattern,
        description,
        rule: table !== undefined && name !== undefined ? table[1].byName.get(name) : undefined,
      });
    }
    for (const [key, child] of Object.entries(schema)) {
      if (key === 'examples' || key === 'example' || key === 'description') continue;
      walk(child, key === 'anyOf' ? path : `${path}.${key}`, description);
    }
  };
  // Every schema: the requests, and the answers that carry request fields (Content.User).
  for (const [name, schema] of Object.entries(doc.components.schemas)) walk(schema, name, '');
  return found;
}

/** A value and whether the description's words take it. */
type Probe = [value: string, accepted: boolean];

const code = (hex: string): string => String.fromCodePoint(Number.parseInt(hex, 16));
const PRINTABLE_ASCII = Array.from({ length: 0x7e - 0x20 }, (_, i) => String.fromCharCode(0x21 + i));

/** "Only letters, digits, -, _ and @", "Only lower-case letters and digits (a-z, 0-9)": the characters named. */
function onlyClause(description: string): Probe[] | undefined {
  const match = /\bOnly ([^.(]+?)(?: \((?!code )([^)]*)\))?(?: \(code \d+\))?\./.exec(description);
  if (match === null) return undefined;
  const [, words = '', aside = ''] = match;
  const allowed = new Set<string>();
  const range = (from: string, to: string) => {
    for (let c = from.charCodeAt(0); c <= to.charCodeAt(0); c++) allowed.add(String.fromCharCode(c));
  };
  for (const word of words.split(/,\s*|\s+and\s+/)) {
    if (word === 'letters') range('a', 'z'), range('A', 'Z');
    else if (word === 'lower-case letters') range('a', 'z');
    else if (word === 'digits') range('0', '9');
    else if (word === 'dashes') allowed.add('-');
    else if (word.length === 1) allowed.add(word);
    else throw new Error(`"Only ${words}": no reading of "${word}"`);
  }
  // A parenthesis restates the words as ranges ("a-z, 0-9"), or rules a character out ("no dashes").
  if (aside === 'no dashes') expect(allowed.has('-'), description).toBe(false);
  else if (aside !== '') {
    const restated = new Set<string>();
    for (const part of aside.split(/,\s*/)) {
      const [from, to] = part.split('-');
      for (let c = from!.charCodeAt(0); c <= (to ?? from)!.charCodeAt(0); c++) restated.add(String.fromCharCode(c));
    }
    expect([...restated].sort(), `"${aside}" restates "${words}"`).toEqual([...allowed].sort());
  }
  return [...PRINTABLE_ASCII, ' ', 'é', '\u00a0', 'Ω'].map((c) => [`${c}${c}`, allowed.has(c)] as Probe);
}

/** "U+0000-U+001F, U+007F-U+009F", each range's ends and middle. */
function namedRanges(text: string): string[] {
  return [...text.matchAll(/U\+([0-9A-F]{4})-U\+([0-9A-F]{4})/g)].flatMap(([, from, to]) => {
    const a = Number.parseInt(from!, 16);
    const b = Number.parseInt(to!, 16);
    return [a, Math.floor((a + b) / 2), b].map((c) => String.fromCodePoint(c));
  });
}

/** "No control characters (U+0000-...) and no bidirectional overrides or isolates (U+202A-...)": those refused, others kept. */
function controlsClause(description: string): Probe[] | undefined {
  const match = /No control characters \(([^)]*)\) and no bidirectional overrides or isolates \(([^)]*)\)/.exec(
    description,
  );
  if (match === null) return undefined;
  const refused = [...namedRanges(match[1]!), ...namedRanges(match[2]!)];
  expect(refused.length, description).toBeGreaterThanOrEqual(12);
  // Just outside every range, and text people write: kept.
  const kept = ['0020', '00A0', '00E9', '2029', '2065', '206A', '1F600'].map(code);
  return [...refused.map((c): Probe => [`a${c}b`, false]), ...kept.map((c): Probe => [`a${c}b`, true])];
}

/** "free of whitespace (space, tab, newline...), control characters (U+...) and bidirectional overrides or isolates (U+...)". */
function noWhitespaceClause(description: string): Probe[] | undefined {
  const match =
    /free of whitespace \([^)]*\), control characters \(([^)]*)\) and bidirectional overrides or isolates \(([^)]*)\)/.exec(
      description,
    );
  if (match === null) return undefined;
  const refused = [' ', '\t', '\n', '\u00a0', '\u3000', ...namedRanges(match[1]!), ...namedRanges(match[2]!)];
  return [...refused.map((c): Probe => [`a${c}b`, false]), ['a.b-c_d@e', true], ['\u00e9t\u00e9', true]];
}

/** "blank is refused", "not blank", "1 to 100 characters after trimming": some character other than whitespace. */
function notBlankClause(description: string): Probe[] | undefined {
  if (!/blank is refused|not blank|\b1 to \d+ characters after trimming/.test(description)) return undefined;
  return [
    [' ', false],
    ['\t\n', false],
    ['\u00a0\u3000', false],
  ];
}

/** "DEFAULT or EXTERNAL_ATTEMPTS in any case, surrounding spaces ignored", `"true" or "false" (any case, surrounding spaces ignored`. */
function anyCaseClause(description: string): Probe[] | undefined {
  const match =
    /"?(\w+)"? or "?(\w+)"?,? \(?in any case, surrounding spaces ignored|"?(\w+)"? or "?(\w+)"? \(any case, surrounding spaces ignored/.exec(
      description,
    );
  if (match === null) return undefined;
  const values = [match[1] ?? match[3], match[2] ?? match[4]] as string[];
  return values.flatMap((value): Probe[] => [
    [value.toLowerCase(), true],
    [value.toUpperCase(), true],
    [` ${value} `, true],
    [`${value}x`, false],
    [value.slice(1), false],
  ]);
}

/** A format in words ("Must be ..."): values its words name, and values they rule out. */
const FORMATS: [RegExp, Probe[]][] = [
  [
    /Must be an RFC 3339 date-time with a zone \(Z, \+hh:mm or -hh:mm; T or a space between date and time, letters in any case; a fraction of a second optional\), e\.g\. (\S+);/,
    [
      ['2026-03-01T09:00:00Z', true],
      ['2026-03-01t09:00:00z', true],
      ['2026-03-01 09:00:00+01:00', true],
      ['2026-03-01T09:00:00.5-05:30', true],
      ['2026-03-01T09:00:00', false],
      ['2026-03-01T09:00Z', false],
      ['2026-03-01', false],
    ],
  ],
  [
    /Must be an e-mail address as browsers check one \(WHATWG HTML's valid e-mail address: letters, digits and (\S+) before the @\) with a dotted domain of letters, digits and - \(no label starting or ending with -\)/,
    [
      ...[...".!#$%&'*+/=?^_`{|}~-"].map((c): Probe => [`a${c}b@example.org`, true]),
      ...[...'(),:;<>[\\] "'].map((c): Probe => [`a${c}b@example.org`, false]),
      ['a@example', false],
      ['a@-example.org', false],
      ['a@example-.org', false],
      ['a@ex_ample.org', false],
      ['a@b-c.example.org', true],
    ],
  ],
  [
    /Must be an absolute http:\/\/ or https:\/\/ URL with a host \(a name of letters, digits, dots and dashes, or \[IPv6\]\), optionally user@ before the host and :port after it, no whitespace/,
    [
      ['http://example.org', true],
      ['HTTPS://photos.example.org/a/b.png?x=1#y', true],
      ['https://user@example.org:8443/p.png', true],
      ['http://[2001:db8::1]/p.png', true],
      ['http://a-b.c-d.example/p.png', true],
      ['ftp://example.org/p.png', false],
      ['http://exa mple.org/p.png', false],
      ['http://example.org/a b.png', false],
      ['http://exa_mple.org/', false],
      ['/relative/p.png', false],
    ],
  ],
  [
    /Must be a real date written YYYY-MM-DD or YYYYMMDD/,
    [
      ['2000-01-31', true],
      ['20000131', true],
      ['2000/01/31', false],
      ['31-01-2000', false],
      ['2000-1-31', false],
    ],
  ],
  [
    /Must be a GUID 8-4-4-4-12 hex digits, any case, braces optional/,
    [
      ['3f2504e0-4f89-11d3-9a0c-0305e82c3301', true],
      ['3F2504E0-4F89-11D3-9A0C-0305E82C3301', true],
      ['{3f2504e0-4f89-11d3-9a0c-0305e82c3301}', true],
      ['3f2504e04f8911d39a0c0305e82c3301', false],
      ['3f2504e0-4f89-11d3-9a0c-0305e82c330', false],
      ['3g2504e0-4f89-11d3-9a0c-0305e82c3301', false],
    ],
  ],
];

function formatClause(description: string): Probe[] | undefined {
  return FORMATS.find(([words]) => words.test(description))?.[1];
}

const CLAUSES = {
  only: onlyClause,
  controls: controlsClause,
  noWhitespace: noWhitespaceClause,
  notBlank: notBlankClause,
  anyCase: anyCaseClause,
  format: formatClause,
};

/** Every clause of a description, with its probes. */
function clausesOf(description: string): [string, Probe[]][] {
  return Object.entries(CLAUSES).flatMap(([name, read]) => {
    const probes = read(description);
    return probes === undefined ? [] : [[name, probes] as [string, Probe[]]];
  });
}

function ruleAccepts(rule: FieldRule, value: string): boolean {
  const problems: Problem[] = [];
  rule.check(value, rule.name, problems);
  return problems.length === 0;
}

const fields = textFields();
const patterned = fields.filter((field) => field.pattern !== undefined);

describe('the served OpenAPI document: descriptions, patterns and the rule tables agree', () => {
  it('finds the patterned fields of every request (a walk that finds none would prove nothing)', () => {
    expect(patterned.length).toBeGreaterThan(30);
    for (const path of [
      'CollectionRequest.properties.ExternalId',
      'ScheduleRequest.properties.Schedule.properties.ProctoringServiceTemplateExternalId',
      'UserRequest.properties.ExternalId',
    ]) {
      expect(patterned.find((field) => field.path === path)?.rule, path).toBeDefined();
    }
  });

  it.each(patterned.map((field) => [field.path, field] as const))(
    '%s: its description explains its pattern, and the pattern and the rule take what the words take',
    (_path, field) => {
      const clauses = clausesOf(field.description);
      expect(
        clauses.map(([name]) => name),
        `no clause of "${field.description}" explains the pattern ${String(field.pattern)}`,
      ).not.toEqual([]);
      for (const [clause, probes] of clauses) {
        for (const [value, accepted] of probes) {
          expect(
            field.pattern!.test(value),
            `${clause}: the pattern ${accepted ? 'refuses' : 'takes'} ${JSON.stringify(value)}, the description says otherwise: "${field.description}"`,
          ).toBe(accepted);
          if (field.rule !== undefined) {
            expect(
              ruleAccepts(field.rule, value),
              `${clause}: the rule of ${field.rule.name} ${accepted ? 'refuses' : 'takes'} ${JSON.stringify(value)}`,
            ).toBe(accepted);
          }
        }
      }
    },
  );

  it('a description that names a character rule has a pattern to carry it', () => {
    const promising = fields.filter(
      (field) =>
        field.pattern === undefined &&
        /\bOnly (?!its)|No control characters|free of whitespace|Must be an? (?:RFC|e-mail|absolute|real date|GUID)/.test(
          field.description,
        ),
    );
    expect(promising.map((field) => `${field.path}: ${field.description}`)).toEqual([]);
  });

  it('the collection ExternalId keeps the API text\'s letter: "a-z and 0-9", upper case refused (802)', () => {
    const field = patterned.find((candidate) => candidate.path === 'CollectionRequest.properties.ExternalId')!;
    expect(field.description).toContain('Only lower-case letters and digits (a-z, 0-9) (code 802).');
    expect(field.pattern!.test('ABCK01I2')).toBe(false);
    expect(field.pattern!.test('abck01i2')).toBe(true);
  });
});
