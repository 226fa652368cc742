/**
 * `local init`'s decisions (context/local-init.ts): a fresh token only for a real store of the demo world, what it
 * says (the token never beside --json's document), and its --json document.
 */
import { describe, expect, it } from 'vitest';
import { freshToken, localInitDocument, localInitLines, type LocalInit } from '../../src/context/local-init.js';

const INIT: LocalInit = {
  store: '/s',
  seed: '/w.json',
  seedFile: 'w.json',
  dryRun: false,
  kept: undefined,
  made: 'created',
  token: undefined,
};

describe('local init', () => {
  it('a fresh token for a real store of the demo world only', () => {
    expect(freshToken(undefined, false)).toMatch(/^[\w-]{32}$/);
    expect(freshToken(undefined, true)).toBeUndefined();
    expect(freshToken('w.json', false)).toBeUndefined();
  });

  it('says the store made; the memory moved aside; the token only without --json', () => {
    expect(localInitLines(INIT, false)).toEqual(['created local store at /s from w.json']);
    const demo = { ...INIT, seedFile: undefined, token: 'T', kept: '/m', aside: '/a' };
    const lines = localInitLines(demo, false);
    expect(lines).toHaveLength(4);
    expect(lines[1]).toContain('/m');
    expect(lines[1]).toContain('/a');
    expect(lines[2]).toContain(': T');
    expect(localInitLines(demo, true)).toHaveLength(2);
  });

  it('a dry run names the memory a real one would move', () => {
    const [line, ...rest] = localInitLines({ ...INIT, dryRun: true, kept: '/m', made: undefined }, false);
    expect(rest).toEqual([]);
    expect(line).toContain('/m');
    expect(line).toContain('no store created at /s');
  });

  it('--json: the target, the seed, the token', () => {
    expect(localInitDocument({ ...INIT, token: 'T' })).toEqual({
      command: 'local init',
      target: { kind: 'local', store: '/s' },
      dryRun: false,
      seed: '/w.json',
      token: 'T',
    });
  });
});
