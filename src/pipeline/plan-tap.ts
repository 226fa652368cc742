/** A record command's plan (docs/plan.md): written by a dry run with `--plan-out`; on `examctl apply`, its check. */
import { ErrorCode } from '../domain/codes.js';
import { hash, randomBytes } from 'node:crypto';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { CommandDeps } from '../context/command-deps.js';
import type { TargetOf } from '../context/resolved-target.js';
import type { ReportEntry } from '../report/run-report.js';
import { actionWords, type ActionCounts } from '../report/plan-actions.js';
import { describeTarget } from '../report/report-writers.js';
import { recordedOptions } from '../runs/recorded-options.js';
import {
  digestOfJson,
  mayHoldSecret,
  planDigest,
  PlanWriter,
  PLAN_FORMAT,
  PLAN_VERSION,
  shownRequest,
  type PlanGuard,
  type PlanHeader,
  type PlanInput,
  type PlanItemHead,
  type PlanItemRest,
} from '../runs/plan-document.js';
import { TargetError, UsageError } from '../system/errors.js';
import { say } from '../formats/terminal-text.js';
import { counted } from '../formats/number-format.js';
import { EXAMCTL_VERSION } from '../version.js';
import { inputPathOf } from './command-input.js';
import { memoryMark, settingsMark, targetStoreMark } from './plan-marks.js';
import { keptInputPath, planPlace } from './plan-apply.js';
import { unitAction, type Unit } from './record-job.js';

/** Options of the invocation a plan does not keep: how this dry run reported, not what the real run does. */
const NOT_PLANNED = ['dryRun', 'planOut', 'report', 'json', 'output', 'quiet', 'verbose', 'yes'];

/** The input files a plan was made from, each copied (0600) under the runs directory where apply reads it. */
async function plannedInputs(deps: CommandDeps, planPath: string, place: string): Promise<PlanInput[]> {
  const invocation = deps.invocation ?? {};
  const inputs: PlanInput[] = [];
  for (const option of ['file', ...(deps.keptOptions?.digested ?? [])]) {
    const given = invocation[option];
    if (typeof given !== 'string') continue;
    const path = option === 'file' ? inputPathOf(given, deps) : resolve(deps.cwd, given);
    if (path === planPath) throw new UsageError(`--plan-out ${planPath} is the input file itself: name another file`);
    const bytes = await readFile(path);
    const input: PlanInput = { option, path: given, sha256: hash('sha256', bytes, 'hex'), bytes: bytes.length };
    await mkdir(place, { recursive: true, mode: 0o700 });
    await writeFile(keptInputPath(place, input), bytes, { mode: 0o600 });
    inputs.push(input);
  }
  return inputs;
}

/** A dry run's plan, written as its items are reported. */
export class PlanTap {
  private readonly units: Unit<unknown>[] = [];
  private head = 0;
  private n = 0;
  private readonly counts: ActionCounts = {};

  private constructor(
    private readonly path: string,
    /** Where the plan's inputs are kept (plan-apply.ts, planPlace). */
    private readonly place: string,
    private readonly header: PlanHeader,
    private readonly writer: PlanWriter,
    private readonly command: string,
    private readonly deps: CommandDeps,
    private readonly targetOf: TargetOf,
  ) {}

  /** Starts the plan: where the target, its store and memory stand now, and the inputs kept whole. */
  static async open(command: string, path: string, deps: CommandDeps, targetOf: TargetOf): Promise<PlanTap> {
    const target = await targetOf();
    const planPath = resolve(deps.cwd, path);
    const options = recordedOptions(deps.invocation ?? {}, deps.keptOptions?.names ?? []);
    for (const name of NOT_PLANNED) delete options[name];
    const id = randomBytes(8).toString('hex');
    const place = planPlace({ id }, deps);
    const header: PlanHeader = {
      format: PLAN_FORMAT,
      version: PLAN_VERSION,
      id,
      created: deps.now().toISOString(),
      examctl: EXAMCTL_VERSION,
      command,
      target: target.report,
      cwd: deps.cwd,
      options,
      settings: await settingsMark(target),
      inputs: await plannedInputs(deps, planPath, place).catch(async (error: unknown) => {
        await rm(place, { recursive: true, force: true });
        throw error;
      }),
      store: await targetStoreMark(target),
      memory: await memoryMark(target, deps),
    };
    const writer = await PlanWriter.open(planPath, header).catch(async (error: unknown) => {
      await rm(place, { recursive: true, force: true });
      throw error;
    });
    return new PlanTap(planPath, place, header, writer, command, deps, targetOf);
  }

  /** The units as the run reads them, each kept until its entry is reported (in the same order). */
  async *watch<P>(batches: AsyncIterable<readonly Unit<P>[]>): AsyncIterable<readonly Unit<P>[]> {
    for await (const batch of batches) {
      for (const unit of batch) this.units.push(unit as Unit<unknown>);
      yield batch;
    }
  }

  /** The next reported entry: its unit's item of the plan. */
  entry(entry: ReportEntry): Promise<void> {
    const unit = this.units[this.head];
    this.units[this.head++] = undefined as never;
    if (this.head > 4096) {
      this.units.splice(0, this.head);
      this.head = 0;
    }
    const { item } = entry;
    // The item's action, derived once (record-job.ts, unitAction): the page and the terminal count the same.
    const action = item.plan ?? (unit === undefined ? 'invalid' : unitAction(unit, item, this.command));
    this.counts[action] = (this.counts[action] ?? 0) + 1;
    const head: PlanItemHead = {
      n: this.n++,
      id: item.id,
      source: { file: item.source.file, line: item.source.line },
      action,
    };
    let request: string | undefined;
    const sends = unit !== undefined && unit.prepared.ok && unit.unsent === undefined && item.status !== 'skipped';
    if (sends) {
      // One JSON of the request: its digest, and as the plan shows it unless it holds a secret.
      const value = (unit.prepared as { value: unknown }).value;
      const json = JSON.stringify(value);
      head.digest = digestOfJson(json);
      request = mayHoldSecret(json) ? JSON.stringify(shownRequest(value)) : json;
    }
    const rest: PlanItemRest = {};
    if (item.note !== undefined) rest.note = item.note;
    if (item.changes !== undefined) rest.changes = item.changes;
    if (item.removed !== undefined) rest.removed = item.removed;
    if (item.joined !== undefined) rest.joined = item.joined;
    if (item.errors.length > 0)
      rest.errors = item.errors.map(({ field, code, message }) => ({ field, code: code ?? null, message }));
    return this.writer.add(head, request, rest);
  }

  /** The run ended: the plan completed if the store and memory did not move meanwhile, and said. */
  async finish(): Promise<void> {
    const target = await this.targetOf();
    const [store, memory] = [await targetStoreMark(target), await memoryMark(target, this.deps)];
    if (store !== this.header.store || memory !== this.header.memory) {
      await this.discard();
      throw new TargetError(
        `--plan-out ${this.path}: the ${store !== this.header.store ? 'store' : 'sync memory'} of ${describeTarget(target.report)} changed while the plan was made (another run?): no plan was written; make it again`,
      );
    }
    await this.writer.finish(this.counts, judgedOf(this.deps, this.counts));
    const counts = actionWords(this.counts, true);
    await say(
      this.deps,
      `plan ${this.header.id} written to ${this.path}: ${counted(this.n, 'item')} (${counts}); examctl apply ${this.path} sends exactly these requests`,
    );
  }

  /** No plan: neither its file nor its kept inputs. */
  async discard(): Promise<void> {
    await this.writer.discard();
    await rm(this.place, { recursive: true, force: true });
  }
}

/** The thresholds a plan was judged by (--max-disable, --max-prune): it was not refused, so within them. */
function judgedOf(deps: CommandDeps, counts: ActionCounts): string[] {
  const invocation = deps.invocation ?? {};
  const judged: string[] = [];
  const limit = (flag: string, value: unknown) =>
    typeof value === 'string' ? `${flag} ${value}` : `${flag}'s default (10 %, or up to 100 within 25 %)`;
  if (invocation.disableMissing === true)
    judged.push(`${counts.disable ?? 0} to disable: within ${limit('--max-disable', invocation.maxDisable)}`);
  if (invocation.pruneMemberships === true)
    judged.push(`${counted(counts.prune ?? 0, 'mover')} to prune: within ${limit('--max-prune', invocation.maxPrune)}`);
  return judged;
}

/**
 * A resume's resend after a lost answer: the plan's user request with `DisableLogin: false`, which the memory adds
 * to a user whose last request went unanswered (user-sync-memory.ts, `enables`; docs/plan.md, "Apply").
 */
function enabledDigest(request: unknown): string | undefined {
  if (typeof request !== 'object' || request === null || 'DisableLogin' in request) return undefined;
  return planDigest({ ...request, DisableLogin: false });
}

/** `examctl apply`: a unit that is not the plan's request at its position fails, not sent (docs/plan.md, "Apply"). */
export async function* guarded<P>(
  batches: AsyncIterable<readonly Unit<P>[]>,
  guard: PlanGuard,
): AsyncIterable<readonly Unit<P>[]> {
  let n = 0;
  for await (const batch of batches) {
    yield batch.map((unit) => {
      const at = n++;
      if (!unit.prepared.ok || unit.unsent !== undefined) return unit;
      const planned = guard.itemAt(at);
      const digest = planDigest(unit.prepared.value);
      if (planned?.digest === digest || (guard.resumed && digest === enabledDigest(planned?.request))) return unit;
      const problem = {
        field: '',
        code: ErrorCode.NotInPlan,
        message: `not sent: not the request plan ${guard.path} holds at item ${at} (the plan's "n")${planned === undefined ? ': it has no such item' : ''}`,
      };
      return { ...unit, prepared: { ok: false as const, problems: [problem] } };
    });
  }
}
