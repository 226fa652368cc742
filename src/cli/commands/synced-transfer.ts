import { resolve } from 'node:path';
import { lockTimeoutFromEnv } from '../../system/lock.js';
import { say } from '../../formats/terminal-text.js';
import { printJson, type CommandDeps } from '../../context/command-deps.js';
import { withOutFile } from '../../context/out-file.js';
import type { TargetOf } from '../../context/resolved-target.js';
import { memoryPlaceOf } from '../../context/target.js';
import { onlyGlobals } from '../../flags/global-options.js';
import {
  exportMemory,
  importMemory,
  readMemoryDocumentFile,
  releaseServiceLock,
  tellExported,
  tellImported,
} from '../../sync/memory-transfer.js';
import type { SyncedExportOptions, SyncedImportOptions, SyncedUnlockOptions } from './synced.options.js';

/** `synced export --out FILE`, 0600 (names and links), through the output gate: a failed export leaves the old file. */
export async function runExport(
  { out, syncDir, ...globals }: SyncedExportOptions,
  deps: CommandDeps,
  target: TargetOf,
): Promise<number> {
  const options = onlyGlobals(globals);
  const place = memoryPlaceOf(syncDir, options.runsDir, deps);
  const report = (await target()).report;
  const { text, memories, newestRun } = await exportMemory(place, report, deps.env);
  const path = resolve(deps.cwd, out);
  await withOutFile(out, deps, (file) => file.stdout.write(text), 'secret', 'memory');
  await tellExported(path, report, { memories, newestRun }, options.json === true, deps);
  return 0;
}

/** `synced import FILE`: the target's memory replaced by the file, under the memory's lock. */
export async function runImport(
  { file, force, syncDir, ...globals }: SyncedImportOptions,
  deps: CommandDeps,
  target: TargetOf,
): Promise<number> {
  const options = onlyGlobals(globals);
  const place = memoryPlaceOf(syncDir, options.runsDir, deps);
  const resolved = await target();
  const path = resolve(deps.cwd, file);
  const text = await readMemoryDocumentFile(file, path, deps.env);
  const { document, replaced } = await importMemory(place, resolved.report, text, file, {
    force: force ?? false,
    lockTimeoutMs: lockTimeoutFromEnv(deps.env),
    onWait: (message) => void say(deps, message),
    env: deps.env,
  });
  await tellImported(path, resolved.report, { document, replaced }, options.json === true, deps);
  return 0;
}

/** `synced unlock <lock-id>`: a state service's lock a killed run left, released (as terraform force-unlock). */
export async function runUnlock(
  { lockId, syncDir, ...globals }: SyncedUnlockOptions,
  deps: CommandDeps,
): Promise<number> {
  const options = onlyGlobals(globals);
  const place = memoryPlaceOf(syncDir, options.runsDir, deps);
  const address = await releaseServiceLock(place, lockId, deps.env);
  if (options.json) await printJson(deps, { syncDir: address, released: lockId });
  else await say(deps, `released the lock ${lockId} of the sync memory at ${address}`);
  return 0;
}
