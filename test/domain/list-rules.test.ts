// The list fields' checks share one skeleton (field-rules.ts, checkList): unset, not a list, each entry by its path.
import { describe, expect, it } from 'vitest';
import type { Problem } from '../../src/domain/problem.js';
import { USER_TABLE } from '../../src/domain/user.js';
import { CANDIDATE_TABLE } from '../../src/domain/schedule.js';
import { COLLECTION_TABLE } from '../../src/domain/collection.js';
import type { RuleTable } from '../../src/domain/field-rules.js';

function check(table: RuleTable, name: string, value: unknown): { value: unknown; problems: Problem[] } {
  const problems: Problem[] = [];
  return { value: table.byName.get(name)!.check(value, name, problems), problems };
}

describe('list fields', () => {
  it('unset is no value and no problem; a value that is no list is one problem naming what the list holds', () => {
    for (const [table, name, what] of [
      [USER_TABLE, 'Labels', 'strings'],
      [USER_TABLE, 'Hierarchies', 'hierarchy objects'],
      [CANDIDATE_TABLE, 'ProctorUIds', 'strings'],
      [COLLECTION_TABLE, 'Taxonomies', 'objects with ExternalId and Title'],
    ] as const) {
      expect(check(table, name, undefined)).toEqual({ value: undefined, problems: [] });
      expect(check(table, name, null)).toEqual({ value: undefined, problems: [] });
      expect(check(table, name, 'x')).toEqual({
        value: undefined,
        problems: [{ field: name, code: null, message: `${name} must be a list of ${what}` }],
      });
    }
  });

  it('each entry is judged at its path, every problem said, the list kept only without one', () => {
    expect(check(USER_TABLE, 'Labels', [' a ', 'b'])).toEqual({ value: ['a', 'b'], problems: [] });
    expect(check(USER_TABLE, 'Labels', ['a', ' ', 'a']).problems.map((p) => p.field)).toEqual([
      'Labels[1]',
      'Labels[2]',
    ]);
    expect(
      check(
        USER_TABLE,
        'Labels',
        Array.from({ length: 60 }, (_, i) => `l${i}`),
      ).problems[0],
    ).toMatchObject({ field: 'Labels', code: 234 });
    expect(check(CANDIDATE_TABLE, 'ProctorUIds', ['p1', 'p2'])).toEqual({ value: ['p1', 'p2'], problems: [] });
    expect(check(CANDIDATE_TABLE, 'ProctorUIds', ['p1', '', 5])).toEqual({
      value: undefined,
      problems: [1, 2].map((i) => ({
        field: `ProctorUIds[${i}]`,
        code: null,
        message: 'Each ProctorUIds entry must be a non-empty string',
      })),
    });
    const hierarchies = check(USER_TABLE, 'Hierarchies', [{ ExternalId: 'H1' }, null, { ExternalId: 'H1' }]);
    expect(hierarchies.value).toBeUndefined();
    expect(hierarchies.problems.map((p) => [p.field, p.code])).toEqual([
      ['Hierarchies[1]', 242],
      ['Hierarchies[2].ExternalId', 243],
    ]);
    const taxonomies = check(COLLECTION_TABLE, 'Taxonomies', [
      { ExternalId: 'T1', Title: 'x' },
      {},
      { ExternalId: ' ', Title: 'y' },
    ]);
    expect(taxonomies.value).toBeUndefined();
    expect(taxonomies.problems.map((p) => p.field)).toEqual(['Taxonomies[1]', 'Taxonomies[2].ExternalId']);
    expect(check(COLLECTION_TABLE, 'Taxonomies', [{ ExternalId: 'T1', Title: 'x' }]).value).toEqual([
      { ExternalId: 'T1', Title: 'x' },
    ]);
  });
});
