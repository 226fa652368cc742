import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from './cli.js';
import { OWN_PROCESS } from '../../vitest.config.js';

/**
 * Test files share their vitest process one after another (vitest.config.ts): one that mocks a
 * module, fakes timers, spies, or changes process.env or process's handlers would change what
 * the next file in that process sees, so each such file runs in a process of its own (holdFileCall,
 * test/sync/held-file-call.ts, spies on FileHandle's prototype).
 */
const PROCESS_WIDE =
  /vi\.(mock|doMock|useFakeTimers|stubGlobal|stubEnv|spyOn)\b|holdFileCall\(|process\.env(\.\w+|\[[^\]]+\])\s*=[^=]|delete process\.env|process\.chdir\(|process\.umask\(\d|Object\.defineProperty\(process|globalThis\.\w+\s*=[^=]|process\.exitCode\s*=|setDefaultResultOrder|process\.on\(/;

describe('test files that change process-wide state run in a process of their own', () => {
  it('each one is listed in OWN_PROCESS', () => {
    const found: string[] = [];
    for (const entry of readdirSync(join(ROOT, 'test'), { withFileTypes: true, recursive: true })) {
      if (!entry.isFile() || !entry.name.endsWith('.test.ts')) continue;
      const file = relative(ROOT, join(entry.parentPath, entry.name)).split('\\').join('/');
      if (file === 'test/support/own-process.test.ts') continue;
      if (PROCESS_WIDE.test(readFileSync(join(ROOT, file), 'utf8'))) found.push(file);
    }
    expect(found.length).toBeGreaterThan(0);
    expect(found.filter((file) => !OWN_PROCESS.includes(file))).toEqual([]);
  });
});
