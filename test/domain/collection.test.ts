import { describe, it, expect } from 'vitest';
import { validateCollection } from '../../src/domain/collection.js';
import type { Problem } from '../../src/domain/problem.js';

function problemsOf(input: unknown): Problem[] {
  const result = validateCollection(input);
  if (result.ok) throw new Error(`expected problems, got ${JSON.stringify(result.value)}`);
  return result.problems;
}

describe('validateCollection', () => {
  const cases: [string, Record<string, unknown>, string, number | null][] = [
    ['802 ExternalId with a dash', { ExternalId: 'col-1' }, 'ExternalId', 802],
    ['802 ExternalId with a space', { ExternalId: 'col 1' }, 'ExternalId', 802],
    ['802 ExternalId with upper case ("a-z and 0-9")', { ExternalId: 'ABCK01I2' }, 'ExternalId', 802],
    ['804 Title missing', { Title: undefined }, 'Title', 804],
    ['804 Title empty', { Title: '' }, 'Title', 804],
    ['804 Title null', { Title: null }, 'Title', 804],
    ['804 Title blank', { Title: '   ' }, 'Title', 804],
    ['805 Title of 100 characters', { Title: 't'.repeat(100) }, 'Title', 805],
    ['901 null taxonomy', { Taxonomies: [null] }, 'Taxonomies[0]', 901],
    ['901 empty taxonomy object', { Taxonomies: [{ ExternalId: 'TX-1' }, {}] }, 'Taxonomies[1]', 901],
    [
      '902 taxonomy ExternalId empty',
      { Taxonomies: [{ ExternalId: '', Title: 'Bloom' }] },
      'Taxonomies[0].ExternalId',
      902,
    ],
    [
      '902 taxonomy ExternalId null',
      { Taxonomies: [{ ExternalId: null, Title: 'Bloom' }] },
      'Taxonomies[0].ExternalId',
      902,
    ],
    [
      '1004 repository ExternalId empty',
      { ObjectiveRepositories: [{ Title: 'Core' }] },
      'ObjectiveRepositories[0].ExternalId',
      1004,
    ],
    [
      '1004 LoRepositoryExternalIds entry null',
      { LoRepositoryExternalIds: [null] },
      'LoRepositoryExternalIds[0]',
      1004,
    ],
    ['Owner over 64', { Owner: 'o'.repeat(65) }, 'Owner', null],
    ['Taxonomies not a list', { Taxonomies: 'TX-1' }, 'Taxonomies', null],
    ['unknown field in an entry', { Taxonomies: [{ ExternalId: 'TX-1', Name: 'x' }] }, 'Taxonomies[0].Name', null],
    ['unknown field', { Repositories: [] }, 'Repositories', null],
  ];
  for (const [name, input, field, code] of cases) {
    it(name, () => {
      expect(problemsOf({ Title: 'Maths', ...input })).toContainEqual(expect.objectContaining({ field, code }));
    });
  }

  it('99 characters is a valid title; null lists mean all and are left out', () => {
    const result = validateCollection({
      Title: 't'.repeat(99),
      ExternalId: 'abc123',
      Taxonomies: null,
      ObjectiveRepositories: [],
    });
    expect(result).toEqual({
      ok: true,
      value: { Title: 't'.repeat(99), ExternalId: 'abc123', ObjectiveRepositories: [] },
    });
  });

  it("802 carries the API text's message", () => {
    expect(problemsOf({ Title: 'Maths', ExternalId: 'Col1' })).toEqual([
      { field: 'ExternalId', code: 802, message: 'ExternalId must be alphanumeric (a-z, 0-9)' },
    ]);
  });

  it('reports every problem together', () => {
    const problems = problemsOf({
      ExternalId: 'a-b',
      Title: '',
      Taxonomies: [null, { ExternalId: '' }],
      LoRepositoryExternalIds: [{}],
    });
    expect(problems.map((p) => `${p.field}:${p.code}`).sort()).toEqual(
      [
        'ExternalId:802',
        'Title:804',
        'Taxonomies[0]:901',
        'Taxonomies[1].ExternalId:902',
        'LoRepositoryExternalIds[0]:1004',
      ].sort(),
    );
  });
});
