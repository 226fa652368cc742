import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { apiTable, codesTable, renderApiBlocks } from '../../scripts/doc-tables.js';
import { ErrorCode, OWN_CODES, SPEC_CODES } from '../../src/domain/codes.js';
import { ruleTable, stringRule } from '../../src/domain/field-rules.js';
import { USER_VIEW_FIELDS } from '../../src/domain/user.js';
import { ROOT } from '../support/cli.js';

/**
 * docs/api-reference.md's field and code tables are generated from the rule tables
 * (scripts/doc-tables.ts): a limit, a code or a field changed in src/domain/ fails here until
 * `npm run docs:flags` rewrote the block.
 */
const doc = readFileSync(join(ROOT, 'docs/api-reference.md'), 'utf8');

describe('docs/api-reference.md', () => {
  it('every generated block is up to date with the rule tables', () => {
    const { blocks } = renderApiBlocks(doc);
    expect(
      blocks
        .filter((block) => !block.upToDate)
        .map((block) => `the block "${block.marker}" of docs/api-reference.md changed; run npm run docs:flags`),
    ).toEqual([]);
    expect(blocks.map((block) => block.marker)).toEqual([
      'fields schedule-request',
      'fields schedule',
      'fields candidate',
      'fields user',
      'fields hierarchy',
      'fields collection',
      'fields id-title',
      'fields invigilators',
      'codes',
    ]);
  });

  it("a field's row says its type, whether it is required, its limits and codes, as the rule checks them", () => {
    const user = apiTable('fields user');
    expect(user).toContain(
      '| ExternalId* | string(64) | Required: null, empty or blank is refused (code 206). At most 64 characters (code 218).',
    );
    expect(user).toContain('| ReasonableAdjustmentPercentage | integer 0..999 | A whole number 0..999 (code 249)');
    expect(user).toContain('| Labels | list of string(100) (at most 20) |');
    expect(apiTable('fields hierarchy')).toContain('| Action | UPSERT \\| DELETE |');
    expect(apiTable('fields candidate')).toContain('| CandidateExtId* |');
  });

  it('the codes table lists every numbered code once, in order, saying where examctl gives it', () => {
    const codes = apiTable('codes');
    const numbers = [...codes.matchAll(/^\| (\d+) \|/gm)].map((match) => Number(match[1]));
    const expected = [...Object.values(SPEC_CODES), ...(Object.values(OWN_CODES) as number[])].sort((a, b) => a - b);
    expect(numbers).toEqual(expected);
    expect(codes).toContain('| 219 | user ExternalId invalid | API | locally: user.ExternalId |');
    expect(codes).toContain('| 1101 | review session not found | API | by the platform');
  });

  it("a code of examctl's own that a field's rule gives is said given locally by that field (the engine answers it)", () => {
    // A field of examctl's own with a code of its own, as "Add a field" (docs/architecture.md) adds one.
    const own = ruleTable('user', [stringRule('Nickname', { max: 10, tooLongCode: ErrorCode.ErrorsLeftOut })]);
    expect(codesTable({ user: own })).toContain(
      `| ${ErrorCode.ErrorsLeftOut} | errors left out | examctl | locally: user.Nickname |`,
    );
  });

  it('"Add a user" names the fields Content.User shows, as USER_VIEW_FIELDS lists them', () => {
    const sentence = /`User` holds the stored user's fields: ([^;]+); never the password/.exec(
      doc.replace(/\s+/g, ' '),
    );
    expect(
      sentence?.[1]?.split(', '),
      'docs/api-reference.md, "Add a user": the list after "`User` holds the stored user\'s fields:"',
    ).toEqual(USER_VIEW_FIELDS);
  });

  it('a stale block is rewritten; an unknown marker is an error naming it', () => {
    const stale = 'x\n<!-- api: fields hierarchy -->\n| old |\n<!-- /api -->\n';
    const { text, blocks } = renderApiBlocks(stale);
    expect(blocks).toEqual([{ marker: 'fields hierarchy', upToDate: false }]);
    expect(text).toContain('| IsCoordinator | boolean |');
    expect(renderApiBlocks(text).blocks).toEqual([{ marker: 'fields hierarchy', upToDate: true }]);
    expect(() => apiTable('fields roster')).toThrow('api table "fields roster"');
  });
});
