import { UsageError } from '../../errors.js';
import { changedScheduleFile, fingerprintInput, inputChange, type RunRecord } from '../../runs/index.js';
import type { CommandDeps, GlobalOptions } from '../context.js';
import type { RecordJob, Unit } from '../pipeline/record-job.js';
import { RecordSource } from '../pipeline/record-source.js';
import type { TargetOf } from '../target.js';

/*
 * `runs show` reads a run's input again, with the job its command builds, so that the items the
 * run never reached are listed too: numbered by position as the pipeline numbers them (the key
 * of the journal), grouped as the command groups them (schedule push: one unit per request).
 */

type JobInput = Pick<RecordJob<unknown>, 'records' | 'units' | 'readsOnlyFailedItself'>;

/** Thrown by a builder that has nothing to read again. */
const fromPrompts = (): UsageError => new UsageError('its items were given at prompts, which the journal does not keep');

/** Reading needs no target; asking for one means the items came from prompts. */
const noTarget: TargetOf = () => Promise.reject(fromPrompts());

/** Each command's input builder (the one its `run` uses), loaded on demand as `register` loads commands. */
const INPUTS: Readonly<Record<string, (options: Record<string, unknown>, deps: CommandDeps) => Promise<JobInput>>> = {
  async 'user sync'(options, deps) {
    if (typeof options.file !== 'string') throw fromPrompts();
    return (await import('./user-sync.js')).userSyncInput(options as never, deps);
  },
  'schedule push': async (options, deps) => (await import('./schedule-push.js')).schedulePushInput(options as never, deps),
  'collection add': async (options, deps) => (await import('./collection-add.js')).collectionAddInput(options as never, options as GlobalOptions, deps),
  'invigilators remove': async (options, deps) => (await import('./invigilators-remove.js')).invigilatorsRemoveInput(options as never, options as GlobalOptions, deps, noTarget),
};

/** The input's units in order (a fresh read each call), or why the input cannot be read again. */
/** `count`: how many units the input gives (user sync --disable-missing adds its leavers after them). */
export type RunInput = { units: () => AsyncIterable<Unit<unknown>>; count: number } | { unlisted: string };

/**
 * The run's input read again, when that gives the same units: the recorded file unchanged (size
 * and SHA-256), read with the recorded options from the recorded directory, prompts off. The
 * input is read once through before the units are offered, so a failure is known before any
 * item is reported.
 */
export async function runInput(record: RunRecord, deps: CommandDeps): Promise<RunInput> {
  const { header } = record;
  const { cwd, pinSha256: _pin, scheduleSha256: _schedule, ...recorded } = header.options;
  if (recorded.file === '-') return { unlisted: 'it read its input from stdin (--file -), which cannot be read again' };
  if (header.input !== null) {
    const changed = inputChange(header.input, await fingerprintInput(header.input.path).catch(() => 'missing' as const));
    if (changed !== undefined) return { unlisted: changed };
  }
  const scheduleChanged = await changedScheduleFile(record);
  if (scheduleChanged !== undefined) return { unlisted: scheduleChanged };
  const build = INPUTS[header.command];
  if (build === undefined) return { unlisted: `${header.command} runs cannot be read again` };
  const onlyFailed = recorded.onlyFailed === true;
  const readDeps: CommandDeps = { ...deps, cwd: typeof cwd === 'string' ? cwd : deps.cwd };
  const units = async function* (input: JobInput): AsyncIterable<Unit<unknown>> {
    const source = new RecordSource(() => input.records(), onlyFailed && input.readsOnlyFailedItself !== true);
    for await (const batch of input.units(source.batches())) yield* batch;
  };
  try {
    const input = await build({ ...recorded, input: false }, readDeps);
    let count = 0;
    // Read through once: an error surfaces here, before anything is reported.
    for await (const _unit of units(input)) count += 1;
    return { units: () => units(input), count };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { unlisted: header.input === null ? fromPrompts().message : `reading its input again failed: ${message}` };
  }
}
