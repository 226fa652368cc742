import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../support/cli.js';

/**
 * The docs say what is true now, never how the project got there: no session numbers, no
 * "unreleased", "earlier build" or "as before". Formats keep their version numbers, and
 * compatibility is said as "an older examctl ...". Benchmark history belongs in bench/README.md,
 * which is not read here. Each phrase is narrow enough not to catch the domain's own words (a
 * review session, a key "used to sign", a file that "no longer gives" a link).
 */
const HISTORY: readonly [RegExp, string][] = [
  [/(?<!review[ -])\bsessions? \d+/gi, 'a session number'],
  [/\bunreleased\b/gi, '"unreleased"'],
  [/\bearlier (?:builds?|examctls?|versions?|releases?)\b/gi, 'an earlier build (say "an older examctl")'],
  [/\b(?:first|earlier|previous) [^.\n]{0,40}?\bbuild\b(?! (?:time|step))/gi, 'a build of the past'],
  [/(?<!\b(?:is|are|be|been|being|was|were|get|gets)\s)\bused to\b/gi, '"used to"'],
  [
    /\b(?:added|introduced|removed|changed|fixed|renamed) in (?:sessions?|builds?|versions?|v?\d|issues?)\b/gi,
    'when something was added',
  ],
  [/\bsince (?:sessions?|builds?|versions?|v\d|issues?)\b/gi, 'since when'],
  [/\(was\b:?/gi, '"(was ...)"'],
  [/\bas before\b/gi, '"as before"'],
  [/\bpredates?\b/gi, '"predate"'],
  [/\bwritten before (?:them|this|it|examctl)\b/gi, 'written before a change'],
  [
    /\bnow (?:does|takes|reads|writes|refuses|accepts|sends|says|follows|keeps|uses|gives|answers|checks)\b/gi,
    '"now does" (say what it does)',
  ],
  [/\bissues? #?\d+\b/gi, 'an issue number'],
  [/\bQA\b/g, '"QA"'],
  [
    /\b(?:code review|reviewers?)\b|\b(?:a|the|this|that) review\b(?![ -](?:sessions?|window|period|options))/gi,
    'a review of the project',
  ],
];

/** Every history phrase in `text`, as `file:line: phrase (what it is)`. */
function historyIn(file: string, text: string): string[] {
  const found: string[] = [];
  for (const [pattern, what] of HISTORY) {
    for (const match of text.matchAll(pattern)) {
      const line = text.slice(0, match.index).split('\n').length;
      found.push(`${file}:${line}: "${match[0]}" (${what})`);
    }
  }
  return found;
}

function markdownUnder(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return markdownUnder(path);
    return entry.name.endsWith('.md') ? [path] : [];
  });
}

describe("the docs tell what is true now, not the project's history", () => {
  it('no docs/ page and not README.md', () => {
    const files = [...markdownUnder('docs'), 'README.md'];
    expect(files.length).toBeGreaterThan(10);
    expect(files.flatMap((file) => historyIn(file, readFileSync(join(ROOT, file), 'utf8')))).toEqual([]);
  });

  it.each([
    ['Figures: bench/README.md, "Session 40: night".', 'a session number'],
    ['the first `--prune-memberships` build wrote (unreleased, cell words)', 'a build of the past'],
    ['A memory an earlier examctl kept', 'an earlier build'],
    ['a raw digest (added in session 40, 22 characters)', 'when something was added'],
    ['up to 4 characters (was: exactly four digits)', '"(was ...)"'],
    ['an offset is required, as before', '"as before"'],
    ['it now takes what the text allows', '"now does"'],
    ['the reader used to stop at the first error', '"used to"'],
    ['found in QA', '"QA"'],
    ['as the reviewer asked', 'a review of the project'],
  ])('finds %j', (sample, what) => {
    expect(historyIn('sample.md', sample).join('\n')).toContain(what.replace(/ \(.*$/, ''));
  });

  it.each([
    'Unknown review session 1101: HTTP 400.',
    'the review-session 7 answer',
    'a key is used to sign the request',
    'the first pass builds no records; build time is when the cache is made',
    'the file no longer gives the link; the row would now make another request',
    'an older examctl ignores the field; the format version is 1',
    'the review window bounds, the review options',
  ])('leaves %j alone', (sample) => {
    expect(historyIn('sample.md', sample)).toEqual([]);
  });
});
