import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../support/cli.js';

/**
 * The repository stands alone: no file cites a document outside it (the spec's files once lived
 * beside the project), and every citation `docs/X.md, "Section"` names a doc that exists and a
 * section it has (a heading, or a bold lead-in such as `**Sent ahead.**`). A citation may break
 * over a comment's lines; `docs/X.md` alone needs only the file.
 */

const SCANNED = [
  'src',
  'test',
  'docs',
  'scripts',
  'bench',
  'bin',
  'README.md',
  'package.json',
  'tsconfig.json',
  'vitest.config.ts',
];
const TEXT = /\.(ts|mts|js|mjs|cjs|md|json|py|sh)$|^bin\//;

function filesUnder(path: string): string[] {
  const full = join(ROOT, path);
  if (!existsSync(full)) return [];
  if (statSync(full).isFile()) return TEXT.test(path) ? [path] : [];
  return readdirSync(full).flatMap((name) => filesUnder(`${path}/${name}`));
}

// This file's samples cite wrongly on purpose.
const FILES = SCANNED.flatMap(filesUnder).filter((file) => file !== 'test/docs/citations.test.ts');
// Spelled in pieces, so that this file does not cite what it looks for.
const SPEC_NAMES = ['integration-api', 'cli-contract', 'interpretations'];
const OUTSIDE = new RegExp(
  `(?<![\\w/.-])(?:${SPEC_NAMES.join('|')})\\.md|\\.\\./${'shared'}\\b|\\b${'shared'}/spec\\b`,
  'g',
);
/** `docs/X.md`, then optionally its first section and more: `, "A", "B"`, ` "A"`, ` ("A"`, `: "A"`. */
const QUOTE = String.raw`"((?:[^"\n]|\n[ \t]*(?:\*|//|#)?[ \t]*){1,120}?)"`;
const CITATION = new RegExp(
  String.raw`(?<![\w/.-])docs/([a-z0-9-]+\.md)(?:(?:,\s*|\s+\(?|:\s*)${QUOTE}((?:,\s*"[^"\n]{1,80}")*))?`,
  'g',
);

function lineOf(text: string, index: number): number {
  return text.slice(0, index).split('\n').length;
}

function normalise(text: string): string {
  return text
    .replace(/\s*\n[ \t]*(?:\*|\/\/|#)?[ \t]*/g, ' ')
    .replace(/`/g, '')
    .replace(/^\d+\.\s+/, '')
    .replace(/[.:]$/, '')
    .replace(/\s+/g, ' ')
    .trim()
    .toLowerCase();
}

const sectionsCache = new Map<string, string[]>();
/** A doc's headings and bold lead-ins, normalised. */
function sectionsOf(doc: string): string[] {
  let sections = sectionsCache.get(doc);
  if (sections === undefined) {
    const text = readFileSync(join(ROOT, 'docs', doc), 'utf8');
    sections = [
      ...[...text.matchAll(/^#{1,6}\s+(.+)$/gm)].map((match) => match[1]!),
      ...[...text.matchAll(/\*\*([^*\n]{2,80})\*\*/g)].map((match) => match[1]!),
    ].map(normalise);
    sectionsCache.set(doc, sections);
  }
  return sections;
}

/** A section is named by its heading, or by the heading's start up to a `:`, `,`, `(` or space (`Interrupting, --debug`). */
function hasSection(doc: string, section: string): boolean {
  const wanted = normalise(section);
  return sectionsOf(doc).some(
    (heading) => heading === wanted || (heading.startsWith(wanted) && /^[\s:,(.]/.test(heading.slice(wanted.length))),
  );
}

/** Every citation's problem, `file:line: ...`, in `text` (a file of the repository or a sample). */
function citationProblems(file: string, text: string): string[] {
  const problems: string[] = [];
  for (const match of text.matchAll(OUTSIDE))
    problems.push(`${file}:${lineOf(text, match.index)}: cites ${match[0]}, which is outside the repository`);
  for (const match of text.matchAll(CITATION)) {
    const [, doc, first, more] = match as unknown as [string, string, string | undefined, string | undefined];
    const where = `${file}:${lineOf(text, match.index)}`;
    if (!existsSync(join(ROOT, 'docs', doc))) {
      problems.push(`${where}: docs/${doc} does not exist`);
      continue;
    }
    const sections = [first, ...[...(more ?? '').matchAll(/"([^"]+)"/g)].map((each) => each[1])].filter(
      (each): each is string => each !== undefined,
    );
    for (const section of sections)
      if (!hasSection(doc, section)) problems.push(`${where}: docs/${doc} has no section "${normalise(section)}"`);
  }
  return problems;
}

describe('citations', () => {
  it('scans the repository (sources, tests, docs, scripts, README)', () => {
    expect(FILES).toEqual(
      expect.arrayContaining([
        'README.md',
        'docs/cli-contract.md',
        'src/cli/main.ts',
        'scripts/docs-flags.mjs',
        'test/docs/api-reference.test.ts',
      ]),
    );
  });

  it('no file cites a document outside the repository; every docs/X.md, "Section" exists', () => {
    const problems = FILES.flatMap((file) => citationProblems(file, readFileSync(join(ROOT, file), 'utf8')));
    expect(problems).toEqual([]);
  });

  it('the spec is read in the repository: the contract, the interpretations and the API reference', () => {
    for (const doc of ['cli-contract.md', 'interpretations.md', 'api-reference.md'])
      expect(existsSync(join(ROOT, 'docs', doc)), doc).toBe(true);
    expect(hasSection('cli-contract.md', 'Exit status')).toBe(true);
    for (const section of [
      'Tolerance (engine and local serve)',
      "Statuses outside the text's list",
      'Where examctl differs from the API text',
      "Where examctl departs from the specification's interpretations file",
    ]) {
      expect(hasSection('interpretations.md', section), section).toBe(true);
    }
  });

  it('names what is wrong: an outside file, a missing doc, a missing section; finds a section over a comment break or in a bold lead-in', () => {
    const outside = `${SPEC_NAMES[1]}.md`;
    const sample = [
      `// see ${outside}, "Targets"`,
      `// see ../${'shared'}/spec/`,
      '/** (docs/nowhere.md, "X") */',
      '// docs/cli-contract.md, "No such section"',
      ' * the target (docs/cli-contract.md, "Local engine',
      ' * clock") and docs/runs.md, "Sent ahead", and docs/api-reference.md, "Schedule", "Candidate"',
      '// docs/remote.md, "Interrupting" and docs/cli.md ("Exit status": 0) and docs/security.md, "Other local users"',
    ].join('\n');
    expect(citationProblems('x.ts', sample)).toEqual([
      `x.ts:1: cites ${outside}, which is outside the repository`,
      `x.ts:2: cites ../${'shared'}, which is outside the repository`,
      'x.ts:3: docs/nowhere.md does not exist',
      'x.ts:4: docs/cli-contract.md has no section "no such section"',
    ]);
    expect(citationProblems('y.ts', '// docs/api-reference.md, "Schedule", "Candidates list"')).toEqual([
      'y.ts:1: docs/api-reference.md has no section "candidates list"',
    ]);
  });
});
