/**
 * How `examctl apply` runs the plan's command (docs/plan.md, "Apply"): with which options and from where, the plan
 * claimed before any request goes (of two applies, the first), a refusal before sending leaving it applicable again,
 * and what a plan applied already says.
 */
import { resolve } from 'node:path';
import { ExamctlError, ExitCode, UsageError } from '../system/errors.js';
import { printJson, type CommandDeps } from '../context/command-deps.js';
import type { ResolvedTarget } from '../context/resolved-target.js';
import { say } from '../formats/terminal-text.js';
import { actionWords } from '../report/plan-actions.js';
import type { PlanDocument, PlanGuard } from '../runs/plan-document.js';
import {
  type AppliedRecord,
  appliedBefore,
  forgetApplied,
  judgeApplied,
  keepPlan,
  planGuard,
  recordApplied,
  recordApplyEnded,
} from './plan-apply.js';

/** The global flags that name a file or directory: apply's own, read from where apply runs (docs/plan.md, "Apply"). */
const TYPED_PATHS = ['store', 'tokenFile', 'report', 'runsDir'] as const;

/**
 * The flags given to apply, to lay over the plan's: apply's own paths mean where apply was typed (the plan's, its
 * inputs and its --store, where the plan was made). A target flag must name the plan's target (refused otherwise).
 */
export function applyFlags(options: object, cwd: string): Record<string, unknown> {
  const flags = Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined));
  for (const name of TYPED_PATHS) if (typeof flags[name] === 'string') flags[name] = resolve(cwd, flags[name]);
  return flags;
}

/** A plan of a command that cannot run again is refused (exit 2); else its entry. */
export function refuseUnappliable<E extends object>(
  entry: E,
  plan: Pick<PlanDocument, 'command'>,
  given: string,
): Exclude<E, { readonly notResumable: string }> {
  if ('notResumable' in entry)
    throw new UsageError(`plan ${given}: ${plan.command} cannot be applied: ${entry.notResumable}`);
  return entry as Exclude<E, { readonly notResumable: string }>;
}

/**
 * The options the plan's command runs with: the plan's, apply's flags, the kept copies of its inputs; never asking
 * (the plan a person reviewed is the confirmation: docs/plan.md, "At a terminal"). The command reads the kept copy
 * under the name the dry run read (`file`, and `fileDeps` saying whose copy it is), as a piped --file's copy is
 * read: its rows and problems name the file the person reviewed; the journal keeps the copy's path (`runOptions`).
 */
export function applyRunOptions(
  plan: Pick<PlanDocument, 'options'>,
  flags: Record<string, unknown>,
  kept: Record<string, string>,
): { runOptions: Record<string, unknown>; file?: string; fileDeps: { pipedFile?: string; stdinFile?: string } } {
  const runOptions: Record<string, unknown> = { ...plan.options, ...flags, ...kept, yes: true };
  const reviewed = typeof plan.options.file === 'string' && kept.file !== undefined ? plan.options.file : undefined;
  if (reviewed === undefined) return { runOptions, fileDeps: {} };
  return { runOptions, file: reviewed, fileDeps: { pipedFile: reviewed, stdinFile: kept.file } };
}

/** An apply's record of itself (`place`, planPlace), kept but for a dry run, which sends nothing. */
export class PlanApplying {
  /** The id of the run that applies the plan (guard.onRun). */
  private run: string | undefined;
  /** When it was claimed. */
  private started = '';

  constructor(
    private readonly place: string,
    /** The plan's file: the claim keeps a copy (`plan.json`) that a resume of the run checks against. */
    private readonly path: string,
    private readonly dryRun: boolean,
  ) {}

  /** The guard the run checks each request against; the run's id on record before any request goes. */
  guard(plan: PlanDocument, given: string): PlanGuard {
    return {
      ...planGuard(plan, given),
      // Applied again, the plan is judged by where that run stands.
      onRun: async (id) => {
        this.run = id;
        if (!this.dryRun) await recordApplied(this.place, { started: this.started, run: id });
      },
    };
  }

  /**
   * Of two applies at once, the one that records first goes (undefined), keeping the plan for a resume of its run;
   * the other gets the first's record.
   */
  async claim(now: Date): Promise<AppliedRecord | undefined> {
    this.started = now.toISOString();
    if (this.dryRun) return undefined;
    if (!(await recordApplied(this.place, { started: this.started }, true)))
      return (await appliedBefore(this.place)) ?? { started: 'an unknown time' };
    await keepPlan(this.place, this.path);
    return undefined;
  }

  /** Refused before anything was sent (exit 2): the plan may be applied again. */
  async refused(error: unknown): Promise<void> {
    if (!this.dryRun && error instanceof ExamctlError && error.exitCode === ExitCode.Usage)
      await forgetApplied(this.place);
  }

  /** How it ended, with where the store stands then. */
  async ended(exitCode: number, target: ResolvedTarget): Promise<void> {
    if (this.dryRun) return;
    const record = { started: this.started, ...(this.run === undefined ? {} : { run: this.run }), exitCode };
    await recordApplyEnded(this.place, record, target);
  }
}

/** What apply says as it starts: the plan, its command, when it was made, what it sends. */
export function applyingLine(plan: PlanDocument, given: string): string {
  return `applying plan ${plan.id} (${plan.command}, made at ${plan.created}) from ${given}: ${actionWords(plan.counts, true)}`;
}

/** A plan applied before sends nothing: says so, as its run ended (judgeApplied refuses one not finished). */
export async function appliedAlready(
  plan: PlanDocument,
  given: string,
  before: AppliedRecord,
  place: string,
  target: ResolvedTarget,
  json: boolean,
  deps: CommandDeps,
): Promise<number> {
  const { words, exitCode } = await judgeApplied(plan, given, before, place, target);
  await say(deps, words);
  if (json) await printJson(deps, { plan: plan.id, applied: false, reason: words });
  return exitCode;
}
