import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { inject } from 'vitest';

/**
 * Commands run in-process with an env of their own still find per-user defaults (the runs
 * directory of every journaled run) under os.homedir(), which reads HOME: a private HOME per
 * test file keeps them out of the real user's home. Test files share their process
 * (vitest.config.ts), and src/system/private-temp.ts keeps the temp folder it made under the
 * first file's HOME for the whole process: the homes stay until the run ends (the global
 * setup, test/support/global-build.ts, removes them).
 */
process.env.HOME = mkdtempSync(join(inject('homes'), 'home-'));
