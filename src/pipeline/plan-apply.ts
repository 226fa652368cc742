/** `examctl apply`'s decisions (docs/plan.md, "Apply"): whether a plan may still be sent, where its inputs are kept. */
import { createHash } from 'node:crypto';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import type { CommandDeps } from '../context/command-deps.js';
import type { ResolvedTarget } from '../context/resolved-target.js';
import { describeTarget } from '../report/report-writers.js';
import { targetIdentity, type ReportSummary } from '../report/run-report.js';
import { resolveRunsDir } from '../runs/runs-dir.js';
import { runState, scanRun, summarize } from '../runs/read-run.js';
import { type PlanDocument, type PlanGuard, type PlanInput, readPlan } from '../runs/plan-document.js';
import { ExitCode, messageOf, UsageError } from '../system/errors.js';
import { formatCount, formatMilliseconds } from '../formats/number-format.js';
import { memoryMark, NO_MEMORY, settingsMark, storeHolds, targetStoreMark } from './plan-marks.js';

/** A plan older than this is refused unless --max-age says otherwise. */
export const DEFAULT_PLAN_MAX_AGE_MS = 24 * 60 * 60 * 1000;

const LIMIT_UNITS: readonly (readonly [string, number])[] = [
  ['h', 3_600_000],
  ['min', 60_000],
  ['s', 1000],
  ['ms', 1],
];

/** A --max-age exactly, in the units it was given in: `1 ms`, `1 min`, `1 h 30 min`, `24 h`, `2 d`. */
function limitWords(ms: number): string {
  const day = 24 * 3_600_000;
  if (ms > day && ms % day === 0) return `${ms / day} d`;
  const parts: string[] = [];
  let rest = ms;
  for (const [unit, size] of LIMIT_UNITS) {
    if (rest >= size) parts.push(`${Math.floor(rest / size)} ${unit}`);
    rest %= size;
  }
  return parts.length === 0 ? '0 ms' : parts.join(' ');
}

/** Refuses (exit 2, nothing sent) a plan too old, for another target, or whose store or memory moved, naming what. */
export async function refuseMovedPlan(
  plan: PlanDocument,
  path: string,
  target: ResolvedTarget,
  maxAgeMs: number,
  deps: CommandDeps,
): Promise<void> {
  const refused = (why: string) =>
    new UsageError(`plan ${path}: ${why}; nothing was sent: make a new plan (--dry-run --plan-out) and review that`, {
      code: 'E2601',
    });
  const age = deps.now().getTime() - Date.parse(plan.created);
  if (age > maxAgeMs)
    throw refused(
      `made at ${plan.created}, ${formatMilliseconds(age)} ago, older than --max-age ${limitWords(maxAgeMs)} allows`,
    );
  if (targetIdentity(target.report) !== targetIdentity(plan.target))
    throw refused(
      `made for ${describeTarget(plan.target)}, but this apply would send to ${describeTarget(target.report)}`,
    );
  // Everything that moved is named: a store another run wrote to has usually fed a memory too.
  const moved: string[] = [];
  const store = await targetStoreMark(target);
  const where = storeWords(target);
  if (store !== plan.store)
    moved.push(
      plan.store === null && target.kind === 'remote'
        ? `the plan does not say where ${where} stood (it was made without a token, or the service did not say), and it is at ${store} now`
        : `${where} changed since the plan was made: its head was ${plan.store ?? 'none'} then, ${store ?? 'none'} now (another run wrote to it, or it was restored)`,
    );
  const settings = await settingsMark(target);
  if (plan.settings !== undefined && settings !== plan.settings)
    moved.push(
      `this apply would read the profile settings ${settings === '' ? '(none)' : `"${settings}"`}, the plan was made with ${plan.settings === '' ? 'none' : `"${plan.settings}"`}: its requests would not be the plan's`,
    );
  const memory = await memoryMark(target, deps);
  if (memory !== plan.memory)
    moved.push(
      plan.memory === NO_MEMORY
        ? `a sync memory of ${describeTarget(target.report)} was made since the plan was made (another run, or synced import or adopt)`
        : memory === NO_MEMORY
          ? `the sync memory of ${describeTarget(target.report)} the plan was made from is gone (forgotten, or another --sync-dir)`
          : `the sync memory of ${describeTarget(target.report)} changed since the plan was made (another run fed it, or it was imported, adopted or restored)`,
    );
  if (moved.length > 0) throw refused(moved.join('; '));
}

/** The target's store, in a refusal's words. */
function storeWords(target: ResolvedTarget): string {
  return target.kind === 'local'
    ? `the ${describeTarget(target.report)}`
    : `the store served by ${describeTarget(target.report)}`;
}

/** Where a plan's inputs and its record of being applied are kept: beside the runs. */
export function planPlace(
  plan: Pick<PlanDocument, 'id'>,
  deps: Pick<CommandDeps, 'invocation' | 'cwd' | 'env'>,
): string {
  const runsDir = (deps.invocation as { runsDir?: string } | undefined)?.runsDir;
  return join(resolve(deps.cwd, resolveRunsDir(runsDir, deps.env)), 'plans', plan.id);
}

/**
 * How the plan was applied before (when, the run that applied it, its exit, the store's head once that apply
 * ended): undefined if never.
 */
export interface AppliedRecord {
  started: string;
  run?: string;
  exitCode?: number;
  head?: string;
}

export async function appliedBefore(place: string): Promise<AppliedRecord | undefined> {
  const text = await readFile(join(place, 'applied.json'), 'utf8').catch(() => undefined);
  if (text === undefined) return undefined;
  try {
    const record = JSON.parse(text) as { started?: unknown; run?: unknown; exitCode?: unknown; head?: unknown };
    return {
      started: typeof record.started === 'string' ? record.started : 'an unknown time',
      ...(typeof record.run === 'string' ? { run: record.run } : {}),
      ...(typeof record.exitCode === 'number' ? { exitCode: record.exitCode } : {}),
      ...(typeof record.head === 'string' ? { head: record.head } : {}),
    };
  } catch {
    return { started: 'an unknown time' };
  }
}

/** Records that the plan is being applied (undone if nothing was sent); `first`: only if none is there, else false. */
export async function recordApplied(place: string, record: AppliedRecord, first = false): Promise<boolean> {
  await mkdir(place, { recursive: true, mode: 0o700 });
  const { started, run, exitCode, head } = record;
  const text = `${JSON.stringify({ started, run, exitCode, head })}\n`;
  try {
    await writeFile(join(place, 'applied.json'), text, { mode: 0o600, flag: first ? 'wx' : 'w' });
    return true;
  } catch (error) {
    if (first && (error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
}

/** The flag a resume of an apply's run takes: its target is the plan's, which today's flags need not name. */
const RESUME_TARGET = '--target-from-run';

/** Records how the apply ended, with where the store stands then (judgeApplied asks whether it still holds that). */
export async function recordApplyEnded(place: string, record: AppliedRecord, target: ResolvedTarget): Promise<void> {
  const head = await targetStoreMark(target);
  await recordApplied(place, { ...record, ...(head === null ? {} : { head }) });
}

/**
 * A plan applied before sends nothing (docs/plan.md, "Apply"). Its run finished (by that apply or a `runs resume`
 * since): the words to say, and exit 0, or 1 when a record failed, as that run's. Not finished, still running, or
 * with no run and no end on record (an apply before its run began, or killed by an examctl that kept no run id):
 * refused (E2602), naming what to do. A run pruned since is judged by the exit the apply recorded (0 or 1; any
 * other: refused too). A store that no longer holds the head the apply left it at (restored to before it,
 * replaced) no longer holds what the plan sent: refused (E2601), not "applied already".
 */
export async function judgeApplied(
  plan: Pick<PlanDocument, 'id' | 'target'>,
  given: string,
  before: AppliedRecord,
  place: string,
  target: ResolvedTarget,
): Promise<{ words: string; exitCode: number }> {
  const { id } = plan;
  const now = before.run === undefined ? undefined : await appliedRunNow(place, before.run);
  // The run went to the plan's target, which apply read from the plan, not from today's flags: the resume confirms it.
  const resume = `examctl runs resume ${before.run ?? '<run>'} ${RESUME_TARGET}`;
  const unfinished =
    now !== undefined
      ? now.state === 'running'
        ? `its run ${before.run} is still running: examctl runs list shows when it ends`
        : now.state === 'not finished'
          ? `its run ${before.run} did not finish: ${resume} sends the rest`
          : undefined
      : before.exitCode === undefined || before.exitCode > ExitCode.RecordsFailed
        ? `its run ${before.exitCode === undefined ? 'is not on record as ended' : `ended with exit ${before.exitCode}`}: examctl runs list shows it, examctl runs resume <run> ${RESUME_TARGET} sends the rest`
        : undefined;
  if (unfinished !== undefined)
    throw new UsageError(
      `plan ${id} (${given}) was applied already, at ${before.started}, and ${unfinished}; nothing was sent`,
      { code: 'E2602' },
    );
  if (
    before.head !== undefined &&
    targetIdentity(target.report) === targetIdentity(plan.target) &&
    (await storeHolds(target, before.head)) === false
  )
    throw new UsageError(
      `plan ${id} (${given}) was applied at ${before.started}${before.run === undefined ? '' : ` by run ${before.run}`}, but ${storeWords(target)} no longer holds where that apply left it (head ${before.head}): it was restored to before that, or replaced, so what the plan sent may be gone; nothing was sent: make a new plan (--dry-run --plan-out) and review that`,
      { code: 'E2601' },
    );
  const how =
    now !== undefined
      ? `run ${before.run}: ${formatCount(now.summary.ok)} ok, ${formatCount(now.summary.partial)} partial, ${formatCount(now.summary.failed)} failed, ${formatCount(now.summary.skipped)} skipped`
      : `it ended with exit ${before.exitCode}`;
  const words = `plan ${id} (${given}) was applied already, at ${before.started} (${how}): nothing was sent`;
  if (now !== undefined)
    return { words, exitCode: now.summary.failed + now.summary.partial > 0 ? ExitCode.RecordsFailed : ExitCode.Ok };
  return { words, exitCode: before.exitCode === ExitCode.Ok ? ExitCode.Ok : ExitCode.RecordsFailed };
}

/** Where the run that applied the plan stands now; undefined when it is not in the runs directory. */
async function appliedRunNow(
  place: string,
  run: string,
): Promise<{ state: 'finished' | 'running' | 'not finished'; summary: ReportSummary } | undefined> {
  // The plan's place is <runs directory>/plans/<id>.
  const runsDir = dirname(dirname(place));
  const index = await scanRun(runsDir, run).catch(() => undefined);
  if (index === undefined) return undefined;
  await index.close();
  const state = await runState(runsDir, index);
  return { state: state === 'finished' || state === 'running' ? state : 'not finished', summary: summarize(index) };
}

export async function forgetApplied(place: string): Promise<void> {
  await rm(join(place, 'applied.json'), { force: true });
}

/** Where the dry run kept a copy of one of its inputs, for apply and a resume to read (plan-tap.ts). */
export function keptInputPath(place: string, input: Pick<PlanInput, 'option' | 'path'>): string {
  return join(place, `${input.option}-${basename(input.path) || 'input'}`);
}

/** The plan's inputs as the dry run kept them, each checked against its digest (a copy gone or changed: E2601). */
export async function keptInputs(plan: PlanDocument, place: string, path: string): Promise<Record<string, string>> {
  const paths: Record<string, string> = {};
  for (const input of plan.inputs) {
    const kept = keptInputPath(place, input);
    const bytes = await readFile(kept).catch(() => undefined);
    if (bytes === undefined || createHash('sha256').update(bytes).digest('hex') !== input.sha256)
      throw new UsageError(
        `plan ${path}: the copy of ${input.path} the dry run kept (${kept}) is ${bytes === undefined ? 'not there (another --runs-dir, or removed)' : 'not the file it read (SHA-256 differs)'}; nothing was sent: make a new plan (--dry-run --plan-out) and review that`,
        { code: 'E2601' },
      );
    paths[input.option] = kept;
  }
  return paths;
}

/** The guard the pipeline checks each request against (plan-tap.ts, `guarded`). */
export function planGuard(plan: PlanDocument, path: string): PlanGuard {
  return { path, plan: plan.id, itemAt: (n) => plan.items[n] };
}

/** The plan as apply read it, kept beside its inputs (`plan.json`, 0600): a resume of apply's run checks against it. */
export async function keepPlan(place: string, path: string): Promise<void> {
  await writeFile(join(place, 'plan.json'), await readFile(path), { mode: 0o600 });
}

/**
 * The guard of a resumed apply (docs/plan.md, "Apply"): the plan kept for the run, checked as apply checks a plan,
 * and the one the journal names; a copy gone or another plan is refused (E2601), nothing sent.
 */
export async function keptPlanGuard(runsDir: string, id: string, run: string): Promise<PlanGuard> {
  const path = join(runsDir, 'plans', id, 'plan.json');
  const plan = await readPlan(path).catch((error: unknown) => {
    throw new UsageError(
      `run ${run} applies plan ${id}, whose kept copy ${path} cannot be read (${messageOf(error)}): it cannot be resumed, since each request must be checked against the plan; nothing was sent`,
      { code: 'E2601' },
    );
  });
  if (plan.id !== id)
    throw new UsageError(
      `run ${run} applies plan ${id}, but ${path} holds plan ${plan.id}: it cannot be resumed; nothing was sent`,
      { code: 'E2601' },
    );
  return { ...planGuard(plan, path), resumed: true };
}
