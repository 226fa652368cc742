import { resolve } from 'node:path';
import type { ApiResult } from '../../api/integration-api.js';
import { problemsFrom } from '../../api/envelope-errors.js';
import { ErrorCode, validateInvigilatorRemoval } from '../../domain/index.js';
import type { Problem } from '../../domain/problem.js';
import type { InvigilatorsResponseContent } from '../../domain/types.js';
import { InterruptedError, UsageError } from '../../errors.js';
import { readIdList } from '../../input/index.js';
import type { SourceRef } from '../../input/record.js';
import { describeTarget, exitCodeFor, type ReportEntry } from '../../report/report-writers.js';
import { promptIoOf, promptsAllowed, type CommandDeps } from '../context.js';
import { checkReportOption } from '../output.js';
import { failureProblems, notARunReport, openRun } from '../run-records.js';
import { openTargetDirectory, type TargetOf } from '../target.js';
import type { InvigilatorsRemoveOptions } from './invigilators-remove.options.js';

export const ARGUMENTS_SOURCE = '<arguments>';
export const PROMPT_SOURCE = '<prompt>';

interface IdEntry {
  id: string;
  source: SourceRef;
}

/**
 * `examctl invigilators remove`: one DELETE call for the schedule, one report item per
 * invigilator id. An id the service reports with 319 ("not an invigilator of this schedule")
 * is `partial`: the call went through and the person is not an invigilator there afterwards.
 */
export async function run(options: InvigilatorsRemoveOptions, deps: CommandDeps, target: TargetOf): Promise<number> {
  checkReportOption(options);
  const entries: IdEntry[] = (options.userExtIds ?? []).map((id, index) => ({ id, source: { file: ARGUMENTS_SOURCE, line: index + 1, index } }));
  if (options.onlyFailed && options.file === undefined) throw notARunReport('give the report with --file');
  if (options.file !== undefined) {
    const listed = await readIdList(resolve(deps.cwd, options.file), { displayName: options.file });
    // Without a status column every id would be sent again: the original list picked by mistake.
    if (options.onlyFailed && listed.length > 0 && listed[0]!.status === undefined) {
      throw notARunReport(`no status column in ${options.file}`);
    }
    for (const entry of listed) {
      if (options.onlyFailed && entry.status?.trim().toLowerCase() === 'ok') continue;
      entries.push({ id: entry.id, source: entry.source });
    }
  }
  if (entries.length === 0 && options.file === undefined) entries.push(...(await promptedIds(options, deps, target)));
  if (entries.length === 0) throw new UsageError('no invigilator user ids: give them as arguments or with --file');

  const validation = validateInvigilatorRemoval(options.scheduleExtId, entries.map((e) => e.id));
  const perId = new Map<number, Problem[]>();
  const whole: Problem[] = [];
  for (const problem of validation.ok ? [] : validation.problems) {
    const index = /^UserExtIds\[(\d+)\]$/.exec(problem.field)?.[1];
    if (index === undefined) whole.push(problem);
    else perId.set(Number(index), [...(perId.get(Number(index)) ?? []), problem]);
  }

  const { api, report } = await openRun('invigilators remove', entries.length, options, deps, target);
  const toSend = whole.length > 0 ? [] : entries.filter((_, index) => !perId.has(index));
  let outcome: (entry: IdEntry) => ReportEntry['item'] = (entry) => ({ source: entry.source, id: entry.id, status: 'ok', errors: [] });
  let fatal: Error | undefined;
  if (deps.signal?.aborted) {
    fatal = new InterruptedError('interrupted before sending: nothing was sent');
    outcome = (entry) => ({ source: entry.source, id: entry.id, status: 'skipped', errors: [] });
  } else if (api !== null && toSend.length > 0) {
    try {
      const result = await api.removeInvigilators(options.scheduleExtId, toSend.map((e) => e.id), options.dryRun ? { dryRun: true } : {});
      outcome = interpret(result);
    } catch (error) {
      fatal = error instanceof Error ? error : new Error(String(error));
      const message = fatal.message;
      outcome = (entry) => ({ source: entry.source, id: entry.id, status: 'skipped', errors: [{ field: '', code: null, message }] });
    }
  }

  try {
    for (const [index, entry] of entries.entries()) {
      const problems = whole.length > 0 ? whole : perId.get(index);
      const item = problems ? { source: entry.source, id: entry.id, status: 'failed' as const, errors: problems } : outcome(entry);
      await report.builder.add({ item });
    }
  } finally {
    await api?.close();
  }
  await report.close();
  if (fatal) throw fatal;
  return exitCodeFor(report.builder.summary);
}

/**
 * No ids given: on a terminal, the local target offers the schedule's invigilators as a checklist;
 * a remote target cannot list them, so they are typed. Otherwise a usage error naming what is missing.
 */
async function promptedIds(options: InvigilatorsRemoveOptions, deps: CommandDeps, targetOf: TargetOf): Promise<IdEntry[]> {
  const { missingValue, promptInvigilatorIds, promptInvigilators } = await import('../prompts.js');
  if (!promptsAllowed(options, deps)) throw missingValue('invigilator user ids (as arguments or with --file)');
  const target = await targetOf();
  const directory = await (deps.openDirectory ?? openTargetDirectory)(target, deps);
  let ids: string[];
  try {
    if (directory === null) {
      ids = await promptInvigilatorIds(options.scheduleExtId, promptIoOf(deps));
    } else {
      const invigilators = directory.invigilatorsOf(options.scheduleExtId);
      if (invigilators === null) throw new UsageError(`no schedule ${options.scheduleExtId} on ${describeTarget(target.report)}: nothing to choose from`);
      if (invigilators.length === 0) throw new UsageError(`schedule ${options.scheduleExtId} has no invigilators on ${describeTarget(target.report)}: nothing to remove`);
      const choices = invigilators.map((id) => {
        const person = directory.userOf(id);
        const name = person === null ? '' : [person.FirstName, person.LastName].filter((part) => part !== '').join(' ');
        return { value: id, name: name === '' ? id : `${id}  ${name}` };
      });
      ids = await promptInvigilators(choices, promptIoOf(deps));
    }
  } finally {
    await directory?.close();
  }
  return ids.map((id, index) => ({ id, source: { file: PROMPT_SOURCE, line: index + 1, index } }));
}

function interpret(result: ApiResult<InvigilatorsResponseContent>): (entry: IdEntry) => ReportEntry['item'] {
  const { envelope } = result;
  if (!envelope.Success) {
    const problems = failureProblems(result);
    return (entry) => ({ source: entry.source, id: entry.id, status: 'failed', errors: problems });
  }
  const byUser = new Map<string, Problem[]>();
  const content = envelope.Content as Partial<InvigilatorsResponseContent> | null;
  for (const entry of Array.isArray(content?.Errors) ? content.Errors : []) {
    const user = typeof entry?.UserExtId === 'string' ? entry.UserExtId : '';
    const problems = problemsFrom([{ Code: entry?.Code, Message: entry?.Error }]);
    byUser.set(user, [...(byUser.get(user) ?? []), ...problems.map((p) => ({ ...p, field: 'UserExtId' }))]);
  }
  return (entry) => {
    const errors = byUser.get(entry.id);
    const item = { source: entry.source, id: entry.id, errors: errors ?? [] };
    if (!errors) return { ...item, status: 'ok' };
    return { ...item, status: errors.every((e) => e.code === ErrorCode.NotAnInvigilator) ? 'partial' : 'failed' };
  };
}
