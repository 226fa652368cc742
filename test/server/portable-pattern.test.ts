import { spawnSync } from 'node:child_process';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { buildOpenApiDocument } from '../../src/server/openapi.js';
import {
  ECMA_WHITESPACE_CLASS,
  END_OF_INPUT,
  UnportablePatternError,
  portablePattern,
} from '../../src/domain/portable-pattern.js';
import {
  collectionRequestSchema,
  invigilatorIdsSchema,
  scheduleRequestSchema,
  userRequestSchema,
} from '../../src/domain/schemas.js';
import { jsonSchemaOf, TEMPLATE_KINDS } from '../../src/domain/templates.js';

/*
 * The served document's patterns mean the same in JavaScript as the domain's own, and the same in
 * other engines third-party tools use (Python's re here: schemathesis, hypothesis, jsonschema).
 */

const WS = `[${ECMA_WHITESPACE_CLASS}]`;

function patternsIn(node: unknown, into = new Set<string>()): Set<string> {
  if (Array.isArray(node)) node.forEach((item) => patternsIn(item, into));
  else if (node !== null && typeof node === 'object') {
    for (const [key, value] of Object.entries(node)) {
      if (key === 'pattern' && typeof value === 'string') into.add(value);
      else patternsIn(value, into);
    }
  }
  return into;
}

/** The domain's patterns as z.toJSONSchema writes them, before the rewrite. */
const domainPatterns = [
  ...patternsIn(
    [scheduleRequestSchema, userRequestSchema, collectionRequestSchema, invigilatorIdsSchema].map((schema) =>
      z.toJSONSchema(schema, { target: 'draft-2020-12', io: 'input', unrepresentable: 'any' }),
    ),
  ),
];

/** Where engines part: line ends, whitespace one engine counts and another does not, digits that are not 0-9. */
const TRICKY = [
  '\n',
  '\r',
  '\r\n',
  '\u2028',
  '\u2029',
  '\x1c',
  '\x1f',
  '\x85',
  '\ufeff',
  '\u00a0',
  '\u180e',
  '\x0b',
  '\x0c',
  ' ',
  '\t',
  '\u200b',
  '\u3000',
  '\u0661',
  '\uff10',
  '\u{1F600}',
];

/** Strings near each pattern: ones it matches, with tricky characters appended, prepended or put in place of one. */
function casesFor(pattern: string, count: number, seed: number): string[] {
  const matching = fc.sample(fc.stringMatching(new RegExp(pattern), { size: 'small' }), { numRuns: count, seed });
  const cases = new Set<string>(TRICKY.flatMap((t) => [t, t + t]));
  matching.forEach((s, i) => {
    cases.add(s);
    const t = TRICKY[i % TRICKY.length]!;
    cases.add(s + t);
    cases.add(t + s);
    if (s.length > 1) cases.add(s.slice(0, i % s.length) + t + s.slice((i % s.length) + 1));
  });
  return [...cases];
}

describe('portablePattern', () => {
  it.each([
    ['^[a-z]+$', `^[a-z]+${END_OF_INPUT}`],
    ['\\S', `[^${ECMA_WHITESPACE_CLASS}]`],
    ['^\\s*x\\s*$', `^${WS}*x${WS}*${END_OF_INPUT}`],
    ['^[^\\s@]+$', `^[^${ECMA_WHITESPACE_CLASS}@]+${END_OF_INPUT}`],
    ['^\\d{4}\\D$', `^[0-9]{4}[^0-9]${END_OF_INPUT}`],
    ['^[\\d.]$', `^[0-9.]${END_OF_INPUT}`],
    ['^a.b$', `^a[^\\n\\r\\u2028\\u2029]b${END_OF_INPUT}`],
    ['\\v', '\\x0b'],
    ['^[$]\\$\\.\\/\\-\\u00e9\\x41$', `^[$]\\$\\.\\/\\-\\u00e9\\x41${END_OF_INPUT}`],
    ['^(?:a|b)(?=c)(?!d)', '^(?:a|b)(?=c)(?!d)'],
  ])('%s -> %s', (source, expected) => {
    expect(portablePattern(source)).toBe(expected);
  });

  it.each([
    ['\\w', '\\w'],
    ['\\bx', '\\b'],
    ['(a)\\1', '\\1'],
    ['(?<=a)b', '(?<'],
    ['(?<name>a)', '(?<'],
    ['\\p{L}', '\\p'],
    ['[\\S]', 'inside a class'],
    ['[[a]]', 'unescaped ['],
    ['[a&&b]', '&&'],
    ['[]a]', '] first'],
    ['[a', 'unclosed'],
    ['a\\', 'trailing backslash'],
    ['\\u{1F600}', '\\u escape'],
  ])('refuses %s (no portable rewrite)', (source, why) => {
    expect(() => portablePattern(source)).toThrow(UnportablePatternError);
    expect(() => portablePattern(source)).toThrow(why);
  });

  it('spells out exactly what \\s is in JavaScript (every BMP character, and astral ones)', () => {
    const spelled = new RegExp(`^${WS}$`, 'u');
    const native = /^\s$/u;
    const differing: number[] = [];
    for (let cp = 0; cp <= 0xffff; cp += 1) {
      const c = String.fromCodePoint(cp);
      if (spelled.test(c) !== native.test(c)) differing.push(cp);
    }
    for (const cp of [0x10000, 0x1f600, 0xe0020, 0x10ffff])
      if (spelled.test(String.fromCodePoint(cp)) !== native.test(String.fromCodePoint(cp))) differing.push(cp);
    expect(differing).toEqual([]);
  });

  it('the served document carries exactly the rewritten domain patterns', () => {
    expect(domainPatterns.length).toBeGreaterThan(10);
    expect([...patternsIn(buildOpenApiDocument())].sort()).toEqual(
      [...new Set(domainPatterns.map(portablePattern))].sort(),
    );
  });

  it('`examctl schema` publishes portable patterns too: no bare $, \\s, \\S, \\d or . left in any', () => {
    const published = TEMPLATE_KINDS.flatMap((kind) => [...patternsIn(jsonSchemaOf(kind))]);
    expect(published.length).toBeGreaterThan(10);
    for (const pattern of published) {
      const rest = pattern.split(END_OF_INPUT).join('');
      expect(rest, pattern).not.toMatch(/(?:^|[^\\])(?:\\\\)*(?:\$|\\[sSdD]|(?<!\[[^\]]*)\.)/);
    }
  });

  it('each rewritten pattern means in JavaScript what the domain pattern means, with and without the u flag', () => {
    domainPatterns.forEach((source, index) => {
      const portable = portablePattern(source);
      for (const flags of ['', 'u']) {
        const before = new RegExp(source, flags);
        const after = new RegExp(portable, flags);
        for (const s of casesFor(source, 60, 20261122 + index)) {
          if (before.test(s) !== after.test(s))
            expect.fail(`${source} and ${portable} differ on ${JSON.stringify(s)} (flags '${flags}')`);
        }
      }
    });
    // And on arbitrary strings drawn from the characters where engines part.
    fc.assert(
      fc.property(
        fc.constantFrom(...domainPatterns),
        fc.array(fc.constantFrom(...TRICKY, 'a', 'Z', '0', '9', '@', '.', '-', '_', 't', 'r', 'u', 'e'), {
          maxLength: 8,
        }),
        (source, parts) => {
          const s = parts.join('');
          return new RegExp(source, 'u').test(s) === new RegExp(portablePattern(source), 'u').test(s);
        },
      ),
      { seed: 20261122, numRuns: 3000 },
    );
  });

  const python = spawnSync('python3', ['-c', 'import re, json, sys'], { encoding: 'utf8' }).status === 0;

  it.skipIf(!python)(
    "Python's re reads every served pattern as JavaScript reads the domain's (and did not read the domain's as-is)",
    () => {
      const cases = domainPatterns.map((source, index) => ({
        source,
        portable: portablePattern(source),
        strings: casesFor(source, 60, 7 + index),
      }));
      const script = [
        'import re, json, sys',
        'cases = json.load(sys.stdin)',
        'print(json.dumps([[[bool(re.search(c[k], s)) for s in c["strings"]] for k in ("portable", "source")] for c in cases]))',
      ].join('\n');
      const run = spawnSync('python3', ['-c', script], {
        input: JSON.stringify(cases),
        encoding: 'utf8',
        maxBuffer: 64 * 1024 * 1024,
      });
      expect(run.status, run.stderr).toBe(0);
      const verdicts = JSON.parse(run.stdout) as [boolean[], boolean[]][];
      let strings = 0;
      let asIsDisagreements = 0;
      cases.forEach((c, i) => {
        const [portable, asIs] = verdicts[i]!;
        const javascript = new RegExp(c.source, 'u');
        c.strings.forEach((s, j) => {
          strings += 1;
          const expected = javascript.test(s);
          if (portable[j] !== expected)
            expect.fail(
              `Python reads ${c.portable} on ${JSON.stringify(s)} as ${portable[j]}, JavaScript reads ${c.source} as ${expected}`,
            );
          if (asIs[j] !== expected) asIsDisagreements += 1;
        });
      });
      expect(strings).toBeGreaterThan(1000);
      // Why the rewrite exists: served as they are, Python would part from the server on some.
      expect(asIsDisagreements).toBeGreaterThan(0);
    },
  );
});
