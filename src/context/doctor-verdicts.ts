import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { RM_RETRY } from '../system/busy-retry.js';
import { describeSystemError } from '../system/system-error-words.js';

/*
 * What `examctl doctor`'s checks conclude (docs/remote.md, "examctl doctor"): the command
 * gathers, these decide.
 */

/**
 * Why a run could not make or write the state directory `dir` (the runs or sync directory): a
 * folder made and removed in it, or where it would be made (the nearest existing folder).
 */
export async function stateDirUnwritable(what: string, dir: string): Promise<string | undefined> {
  let place = resolve(dir);
  while (!existsSync(place)) place = dirname(place);
  return mkdtemp(join(place, '.examctl-probe-'))
    .then((made) => rm(made, { recursive: true, ...RM_RETRY }))
    .then(() => undefined, (error: unknown) => `a run cannot make or write ${what} ${dir} (tried in ${place}: ${describeSystemError(error, 'directory')})`);
}
