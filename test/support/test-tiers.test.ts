import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from './cli.js';
import { OWN_PROCESS, SLOW } from '../../vitest.config.js';

/**
 * Two tiers, no test dropped (vitest.config.ts): `npm test` runs every file but the SLOW ones,
 * `npm run test:slow` the SLOW ones, and CI runs both, under Node 20 and Node 24.
 */
describe('the fast and the slow tier', () => {
  it('each SLOW entry is a test file that exists, named once, in order', () => {
    expect(SLOW.filter((file) => !file.endsWith('.test.ts') || !existsSync(join(ROOT, file)))).toEqual([]);
    expect(SLOW).toEqual([...new Set(SLOW)].sort());
    // Own-process files of the slow tier still get a process of their own there.
    expect(SLOW.filter((file) => OWN_PROCESS.includes(file)).length).toBeGreaterThan(0);
  });

  it('npm test runs the fast projects, test:slow the slow ones; CI and test:node24 run both', () => {
    const scripts = (
      JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }
    ).scripts;
    expect(scripts.test).toMatch(/vitest run --project shared --project own-process$/);
    expect(scripts['test:slow']).toMatch(/vitest run --project slow --project slow-own-process$/);
    const ci = readFileSync(join(ROOT, '.ci/run'), 'utf8').split('\n');
    for (const step of ['npm test', 'npm run test:slow', 'npm run test:node24']) expect(ci).toContain(step);
    expect(readFileSync(join(ROOT, 'scripts/test-node24.mjs'), 'utf8')).toContain("['test', 'test:slow']");
  });
});
