import { describe, expect, it } from 'vitest';
import type { CommandDeps } from '../../src/context/command-deps.js';
import { CollectionsAdded } from '../../src/pipeline/collection-input.js';
import type { Outcome } from '../../src/pipeline/record-job.js';

/** Deps whose stderr keeps each line said. */
function saying(): { deps: CommandDeps; said: string[] } {
  const said: string[] = [];
  return { deps: { stderr: { write: (text: string) => void said.push(text) } } as unknown as CommandDeps, said };
}

const created: Outcome = { status: 'ok', errors: [], action: 'created', id: 'c1' };

describe("collection add's decisions (pipeline/collection-input.ts)", () => {
  it('names only a collection without an ExternalId, and counts it for the note', async () => {
    const added = new CollectionsAdded(true);
    expect(added.withChosenId({ Title: 'T', ExternalId: 'given' }, 'chosen')).toBeUndefined();
    expect(added.withChosenId({ Title: 'T', ExternalId: '' }, 'chosen')?.ExternalId).toBe('chosen');
    expect(added.withChosenId({ Title: 'T' }, 'chosen2')?.ExternalId).toBe('chosen2');
    const { deps, said } = saying();
    await added.sayAfter([], false, deps);
    expect(said).toHaveLength(1);
    expect(said[0]).toContain('2 of the file');
  });

  it("keeps a flag collection's outcome to name its id, never a file's", async () => {
    expect(new CollectionsAdded(true).remember(undefined, { Title: 'T' }, created)).toBeUndefined();
    const one = new CollectionsAdded(false);
    expect(one.remember(undefined, { Title: 'T' }, created)).toBe(created);
    const { deps, said } = saying();
    await one.sayAfter([created], true, deps);
    expect(said).toHaveLength(1);
    expect(said[0]).toContain('c1');
  });
});
