import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from './cli.js';
import config from '../../vitest.config.js';

// Tests build dist/ once, in the global setup: a test file that built (in a hook, while someone
// edits src/) could compile a half-edited tree or keep its file waiting on a build.
describe('dist/ is built once per run', () => {
  it('the global setup is the build', () => {
    expect(config.test?.globalSetup).toEqual(['test/support/global-build.ts']);
    expect(readFileSync(join(ROOT, 'test/support/global-build.ts'), 'utf8')).toContain('scripts/build-dist.mjs');
  });

  it('no other test file builds', () => {
    const builders: string[] = [];
    for (const entry of readdirSync(join(ROOT, 'test'), { withFileTypes: true, recursive: true })) {
      if (!entry.isFile() || !entry.name.endsWith('.ts')) continue;
      const file = relative(ROOT, join(entry.parentPath, entry.name));
      if (file === 'test/support/global-build.ts' || file === 'test/support/build-once.test.ts') continue;
      const text = readFileSync(join(ROOT, file), 'utf8');
      if (/build-dist|tsconfig\.build|typescript\/bin\/tsc|\bensureBuilt\b|npm run build/.test(text))
        builders.push(file);
    }
    expect(builders).toEqual([]);
  });
});
