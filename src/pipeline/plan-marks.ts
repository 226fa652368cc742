/**
 * Where the store and the sync memory stand, as a plan records them and `examctl apply` compares
 * them (docs/plan.md, "Refusals"): opaque values, equal or not, never ordered or guessed.
 */
import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { IntegrationApi } from '../port/integration-api.js';
import type { CommandDeps } from '../context/command-deps.js';
import type { ResolvedTarget } from '../context/resolved-target.js';
import { memoryDir, memoryPlaceOf, openTargetApi, storeHead } from '../context/target.js';
import { openStateHttp } from '../context/state-http.js';

/** There is no sync memory for the target (yet). */
export const NO_MEMORY = 'none';

/** The store's head (docs/sync.md, "Where the store stands"), exact; null where it tells none (the platform). */
export async function storeMark(api: Pick<IntegrationApi, 'storeHead'> | null): Promise<string | null> {
  return (await api?.storeHead?.())?.head ?? null;
}

/**
 * The target's store position: a local store's, its API opened read-only for the one question; a
 * remote target's as `local serve` answers it (GET .../examctl/store, with the token); null where
 * the service cannot say (the platform) or cannot be asked (no token).
 */
export async function targetStoreMark(target: ResolvedTarget, deps: CommandDeps): Promise<string | null> {
  if (target.kind !== 'local')
    return target.tokenSource === undefined ? null : ((await storeHead(target, [], true))?.head ?? null);
  const quiet: CommandDeps = { ...deps, stderr: { write: () => undefined } };
  const api = await (deps.openApi ?? openTargetApi)(target, { dryRun: true, deps: quiet });
  try {
    return await storeMark(api);
  } finally {
    await api?.close();
  }
}

/**
 * The sync memory's position: a digest of every memory file of the target (a directory), or of
 * the state service's document; NO_MEMORY where there is none.
 */
export async function memoryMark(target: ResolvedTarget, deps: CommandDeps): Promise<string> {
  const { syncDir, runsDir } = (deps.invocation ?? {}) as { syncDir?: string; runsDir?: string };
  const place = memoryPlaceOf(syncDir, runsDir, deps);
  const sum = createHash('sha256');
  if (place.kind === 'service') {
    const http = openStateHttp(place.address, deps.env);
    try {
      const answer = await http.exchange('GET', place.address);
      if (answer.status === 404 || answer.text.trim() === '') return NO_MEMORY;
      return sum.update(`${answer.status}\0${answer.text}`).digest('hex');
    } finally {
      await http.close();
    }
  }
  const dir = memoryDir(place.syncDir, target.report);
  const names = (await readdir(dir).catch(() => [] as string[])).filter((name) => name.endsWith('.ndjson')).sort();
  let any = false;
  for (const name of names) {
    const bytes = await readFile(join(dir, name)).catch(() => undefined);
    if (bytes === undefined || bytes.length === 0) continue;
    any = true;
    sum.update(`${name}\0${bytes.length}\0`).update(bytes);
  }
  return any ? sum.digest('hex') : NO_MEMORY;
}
