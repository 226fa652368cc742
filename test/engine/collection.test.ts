import { describe, it, expect } from 'vitest';
import type { CollectionRequest } from '../../src/domain/types.js';
import type { WorldCollection } from '../../src/domain/world.js';
import { codes, demoEngine } from './helpers.js';

const add = (engine: ReturnType<typeof demoEngine>['engine'], body: Record<string, unknown>, dryRun = false) =>
  engine.addCollection(body as unknown as CollectionRequest, { dryRun });

describe('addCollection', () => {
  it('creates a collection, merging both repository list names without duplicates', async () => {
    const { engine, store } = demoEngine();
    const result = await add(engine, {
      ExternalId: 'physics2027',
      Title: 'Physics 2027',
      Taxonomies: [{ ExternalId: 'TX-BLOOM', Title: 'Bloom' }],
      LoRepositoryExternalIds: [{ ExternalId: 'LO-CORE', Title: 'Core' }],
      ObjectiveRepositories: [{ ExternalId: 'LO-CORE', Title: 'Core' }],
    });
    expect(result.status).toBe(200);
    expect(result.action).toBe('created');
    expect(result.envelope).toEqual({
      Content: { ExternalId: 'physics2027', Errors: [] },
      Success: true,
      Errors: null,
    });
    const stored = store.state.get('collections')!.get('physics2027') as WorldCollection;
    expect(stored.Owner).toBe('scheduler');
    expect(stored.ObjectiveRepositories.map((r) => r.ExternalId)).toEqual(['LO-CORE']);
  });

  it('merges the two repository lists in order, the first occurrence of a repository kept', async () => {
    const { engine, store } = demoEngine((w) => {
      for (const id of ['LO-A', 'LO-B'])
        w.LoRepositories.push({
          ExternalId: id,
          Title: id,
          IsRepository: true,
          Published: true,
          AccessUserNames: ['scheduler'],
        });
    });
    const result = await add(engine, {
      ExternalId: 'maths2027',
      Title: 'Maths',
      LoRepositoryExternalIds: [{ ExternalId: 'LO-CORE' }, { ExternalId: 'LO-A' }],
      ObjectiveRepositories: [{ ExternalId: 'LO-A', Title: 'A again' }, { ExternalId: 'LO-B' }],
    });
    expect(result.status).toBe(200);
    const stored = store.state.get('collections')!.get('maths2027') as WorldCollection;
    expect(stored.ObjectiveRepositories.map((r) => r.ExternalId)).toEqual(['LO-CORE', 'LO-A', 'LO-B']);
  });

  it('generates a 16-character lowercase alphanumeric ExternalId when omitted', async () => {
    const { engine, store } = demoEngine();
    const result = await add(engine, { Title: 'Generated' });
    const id = result.envelope.Content!.ExternalId;
    expect(id).toMatch(/^[a-z0-9]{16}$/);
    expect(store.state.get('collections')!.has(id)).toBe(true);
  });

  const refusals: {
    name: string;
    body: Record<string, unknown>;
    code: number;
    edit?: Parameters<typeof demoEngine>[0];
  }[] = [
    { name: '806 owner not found', body: { Title: 'T', Owner: 'ghost' }, code: 806 },
    {
      name: '807 owner not set',
      body: { Title: 'T' },
      code: 807,
      edit: (w) => {
        w.Settings.ExternalApiOwner = null;
      },
    },
    { name: '808 owner cannot view collections', body: { Title: 'T', Owner: 'jdoe' }, code: 808 },
    { name: '810 ExternalId already used', body: { Title: 'T', ExternalId: 'mathcore2026' }, code: 810 },
    {
      name: '900 taxonomy not found',
      body: { Title: 'T', Taxonomies: [{ ExternalId: 'TX-NOPE', Title: 'x' }] },
      code: 900,
    },
    {
      name: '1000 repository not found',
      body: { Title: 'T', ObjectiveRepositories: [{ ExternalId: 'LO-NOPE', Title: 'x' }] },
      code: 1000,
    },
    {
      name: '1001 not a repository',
      body: { Title: 'T', ObjectiveRepositories: [{ ExternalId: 'LO-ALGEBRA-1', Title: 'x' }] },
      code: 1001,
    },
    {
      name: '1002 repository unpublished',
      body: { Title: 'T', LoRepositoryExternalIds: [{ ExternalId: 'LO-DRAFT', Title: 'x' }] },
      code: 1002,
    },
    {
      name: '1003 owner has no access',
      body: { Title: 'T', ObjectiveRepositories: [{ ExternalId: 'LO-PRIVATE', Title: 'x' }] },
      code: 1003,
    },
    { name: '802 (validation) ExternalId not alphanumeric', body: { Title: 'T', ExternalId: 'has-dash' }, code: 802 },
  ];
  for (const c of refusals) {
    it(`refuses: ${c.name} (HTTP 400)`, async () => {
      const { engine, store } = demoEngine(c.edit);
      const before = store.state.get('collections')!.size;
      const result = await add(engine, c.body);
      expect(result.status).toBe(400);
      expect(result.envelope.Success).toBe(false);
      expect(result.envelope.Content).toBeNull();
      expect(codes(result.envelope.Errors)).toEqual([c.code]);
      expect(store.state.get('collections')!.size).toBe(before);
    });
  }

  it('names the list and index of a bad repository entry', async () => {
    const { engine } = demoEngine();
    const result = await add(engine, {
      Title: 'T',
      LoRepositoryExternalIds: [{ ExternalId: 'LO-CORE', Title: 'c' }],
      ObjectiveRepositories: [
        { ExternalId: 'LO-CORE', Title: 'c' },
        { ExternalId: 'LO-DRAFT', Title: 'd' },
      ],
    });
    expect(result.envelope.Errors).toEqual([
      expect.objectContaining({ Code: 1002, Field: 'ObjectiveRepositories[1].ExternalId' }),
    ]);
  });
});
