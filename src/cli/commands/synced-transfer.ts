import { resolve } from 'node:path';
import { lockTimeoutFromEnv } from '../../system/lock.js';
import { say } from '../../formats/terminal-text.js';
import { describeTarget } from '../../report/report-writers.js';
import { printJson, type CommandDeps } from '../../context/command-deps.js';
import { withOutFile } from '../../context/out-file.js';
import type { TargetOf } from '../../context/resolved-target.js';
import { memoryPlaceOf } from '../../context/target.js';
import { onlyGlobals } from '../../flags/global-options.js';
import { countedKind, type SyncKind } from '../../sync/memory-lines.js';
import { populationList, populationsOf, type MemoryContents } from '../../sync/memory-files.js';
import {
  exportMemory,
  forgetsNewerRuns,
  importMemory,
  readMemoryDocumentFile,
  releaseServiceLock,
} from '../../sync/memory-transfer.js';
import type { SyncedExportOptions, SyncedImportOptions, SyncedUnlockOptions } from './synced.options.js';

/** What a memory holds, for the line and the JSON document of export and import: ids and populations per kind. */
function summaryOf(memories: ReadonlyMap<SyncKind, MemoryContents>) {
  return Object.fromEntries(
    [...memories].map(([kind, contents]) => [
      kind,
      {
        ids: contents.entries.size,
        populations: populationList(populationsOf(contents)),
      },
    ]),
  );
}

/** Ids and populations per kind; with `newestRun`, the memory's newest run too, unless its one population said it. */
function summaryWords(memories: ReadonlyMap<SyncKind, MemoryContents>, newestRun?: string | null): string {
  const kinds = Object.entries(summaryOf(memories));
  const words = kinds
    .map(
      ([kind, { ids, populations }]) =>
        `${countedKind(ids, kind as SyncKind)}${populations.length === 0 ? '' : ` (${populations.map((p) => `${p.population ?? 'without --population'}: newest run ${p.newestRun}`).join('; ')})`}`,
    )
    .join(', ');
  const said = kinds.reduce((count, [, { populations }]) => count + populations.length, 0) === 1;
  return newestRun === undefined || said ? words : `${words}; newest run ${newestRun ?? '-'}`;
}

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
  if (options.json)
    await printJson(deps, { file: path, target: report, newestRun: newestRun ?? null, memories: summaryOf(memories) });
  else
    await say(
      deps,
      `exported the sync memory of ${describeTarget(report)} to ${path}: ${summaryWords(memories, newestRun ?? null)}`,
    );
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
  if (options.json) {
    await printJson(deps, {
      file: path,
      target: resolved.report,
      newestRun: document.newestRun ?? null,
      replacedNewestRun: replaced ?? null,
      memories: summaryOf(document.memories),
    });
  } else {
    const before =
      replaced === undefined ? 'there was none before' : `it replaced a memory whose newest run was ${replaced}`;
    await say(
      deps,
      `imported ${path} as the sync memory of ${describeTarget(resolved.report)}: ${summaryWords(document.memories)}; ${before}`,
    );
  }
  // Forced over a newer memory: what the runs since did is forgotten, said with its cost and the way back.
  if (forgetsNewerRuns(document.newestRun, replaced)) {
    await say(
      deps,
      `warning: the memory replaced was newer (its newest run ${replaced}): what the runs since ${document.newestRun ?? 'its start'} did is forgotten (their joiners stay enabled once they leave, users they created are reported created); before tonight's run, adopt each night's file since, in order: examctl synced adopt --file <night> … (docs/sync.md, "When the memory is lost")`,
    );
  }
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
