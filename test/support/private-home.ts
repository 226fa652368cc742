import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';

/**
 * Commands run in-process with an env of their own still find per-user defaults (the runs
 * directory of every journaled run) under os.homedir(), which reads HOME: a private HOME per
 * test file keeps them out of the real user's home.
 */
const home = mkdtempSync(join(tmpdir(), 'examctl-test-home-'));
process.env.HOME = home;
afterAll(() => rmSync(home, { recursive: true, force: true }));
