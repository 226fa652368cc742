import {
  changedDigestedFile,
  recordedFlags,
  fingerprintInput,
  inputChange,
  unitsOf,
  type JournalHead,
} from '../../runs/index.js';
import type { CommandDeps } from '../../context/command-deps.js';
import type { RecordJob, Unit } from '../../pipeline/record-job.js';
import type { TableHeader } from '../../input/index.js';
import { runProfileOf, type RunInput } from '../../pipeline/run-show.js';
import { firstRecord } from '../../pipeline/command-input.js';
import { RecordSource } from '../../pipeline/record-source.js';
import { resumeEntry } from '../resume-registry.js';
import type { CliDeps } from '../command-declaration.js';

/*
 * `runs show` reads a run's input again with the job its command builds, so the items the run never reached
 * are listed too, numbered and grouped as the pipeline does.
 */

type JobInput = Pick<RecordJob<unknown>, 'records' | 'units' | 'readsOnlyFailedItself' | 'summaryNotes'>;

/** Why a run whose items were not read from a file is not listed. */
const FROM_PROMPTS = 'its items were given at prompts, which the journal does not keep';

/**
 * The run's input read again, only when unchanged (docs/runs.md, "runs show"). `withUnits` false: only
 * checked, never parsed (the journal lists every unit).
 */
export async function runInput(
  record: Pick<JournalHead, 'header' | 'end'>,
  deps: CliDeps,
  withUnits = true,
): Promise<RunInput> {
  const { header } = record;
  const { cwd } = header.options;
  // The command's own input builder (its behaviour's rerunInput), loaded on demand.
  const entry = resumeEntry(header.command, deps.behaviours ?? new Map());
  if ('notResumable' in entry)
    return { unlisted: `${header.command} runs cannot be read again: ${entry.notResumable}` };
  const recorded = recordedFlags(header.options, entry.keptOptions.digested);
  if (recorded.file === '-') return { unlisted: 'it read its input from stdin (--file -), which cannot be read again' };
  if (header.input !== null) {
    const changed = inputChange(
      header.input,
      await fingerprintInput(header.input.path).catch(() => 'missing' as const),
    );
    if (changed !== undefined) return { unlisted: changed };
  }
  const fileChanged = await changedDigestedFile(record, entry.keptOptions.digested);
  if (fileChanged !== undefined) return { unlisted: fileChanged };
  const build = await entry.input();
  const onlyFailed = recorded.onlyFailed === true;
  const readDeps: CommandDeps = { ...deps, cwd: typeof cwd === 'string' ? cwd : deps.cwd, ...runProfileOf(header) };
  let tableHeader: TableHeader | undefined;
  const units = async function* (input: JobInput): AsyncIterable<Unit<unknown>> {
    const source = new RecordSource(() => input.records(), onlyFailed && input.readsOnlyFailedItself !== true);
    source.tellHeaderTo((cells, dialect) => (tableHeader = { cells, dialect }));
    for await (const batch of input.units(source.batches())) yield* batch;
  };
  try {
    const input = await build({ ...recorded, input: false }, readDeps);
    const notes = input.summaryNotes === undefined ? {} : { summaryNotes: input.summaryNotes };
    if (!withUnits) return { count: unitsOf(record) ?? 0, ...notes };
    let count = 0;
    // Read through once: an error surfaces here, before anything is reported.
    for await (const _unit of units(input)) count += 1;
    // A table's first row as read (its header, the fields its columns are read as): one record, then the read is closed.
    const table = (await firstRecord(input.records()))?.raw;
    return { units: () => units(input), count, ...notes, table, header: tableHeader };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { unlisted: header.input === null ? FROM_PROMPTS : `reading its input again failed: ${message}` };
  }
}
