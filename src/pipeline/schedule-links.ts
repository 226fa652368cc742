import { dataForStdout, say } from '../formats/terminal-text.js';
import type { OpenDirectory, ScheduleLinks } from '../port/local-directory.js';
import { UsageError } from '../system/errors.js';
import { csvLine, withUtf8Bom } from '../formats/csv-cell.js';
import { describeTarget } from '../report/report-writers.js';
import { printJson, promptIoOf, promptsOff, type CommandDeps } from '../context/command-deps.js';
import { type GlobalOptions } from '../flags/global-options.js';
import { openStoreDirectory } from '../context/target.js';
import type { ResolvedTarget, TargetOf } from '../context/resolved-target.js';

/** `schedule links`' own flags (src/cli/commands/schedule-links.options.ts) and the global ones. */
type LinksFlags = GlobalOptions & { scheduleExtId?: string; output?: 'table' | 'csv' | 'json'; bom?: boolean };

/** The CSV's columns, always all of them (LaunchUrl empty without proctoring): a mail merge template keeps working. */
export const LINK_COLUMNS = ['CandidateExtId', 'FirstName', 'LastName', 'Email', 'StartupLink', 'LaunchUrl'] as const;

const REMOTE_HAS_NO_LINKS =
  "schedule links reads the local store: the integration API does not return the candidates' StartupLink or LaunchUrl, so a remote target cannot list them (the service delivers them to the candidates itself)";

/** `examctl schedule links <ScheduleExtId>`: each candidate's links from the local store, read-only and unlocked. */
export async function listLinks(options: LinksFlags, deps: CommandDeps, targetOf: TargetOf): Promise<number> {
  const target = await targetOf();
  if (target.kind !== 'local') throw new UsageError(REMOTE_HAS_NO_LINKS);
  const directory = await (deps.openDirectory?.(target, deps) ?? openStoreDirectory(target.store));
  if (directory === null) throw new UsageError(REMOTE_HAS_NO_LINKS);
  let links: ScheduleLinks;
  try {
    const scheduleExtId = options.scheduleExtId ?? (await pickSchedule(directory, options, deps));
    const found = directory.scheduleLinks(scheduleExtId);
    if (found === null) throw new UsageError(notFound(directory, scheduleExtId, target));
    links = found;
  } finally {
    await directory.close();
  }
  const format = options.json ? 'json' : (options.output ?? 'table');
  if (format === 'json') {
    await printJson(deps, { target: target.report, ...links }, 2);
  } else if (format === 'csv') {
    await deps.stdout.write(dataForStdout(withUtf8Bom(linksCsv(links), options.bom !== false), deps.stdoutIsTTY));
  } else {
    const { stdoutTableStyle } = await import('../terminal/table-format.js');
    await deps.stdout.write(await linksTable(links, stdoutTableStyle(deps)));
  }
  const count = links.Candidates.length;
  // The id and the title come from the store or the service: gated like every such text.
  await say(
    deps,
    `${count} ${count === 1 ? 'candidate' : 'candidates'} of ${links.ScheduleExtId} (${links.Title}) from ${describeTarget(target.report)}`,
  );
  return 0;
}

/** RFC 4180 with the run report's formula neutraliser: a name such as `=HYPERLINK(...)` stays text. */
function linksCsv(links: ScheduleLinks): string {
  const rows = links.Candidates.map((candidate) => LINK_COLUMNS.map((column) => candidate[column] ?? ''));
  return [LINK_COLUMNS, ...rows].map((row) => csvLine(row)).join('');
}

async function linksTable(links: ScheduleLinks, options: { width?: number; color?: boolean }): Promise<string> {
  const { renderRecordTable } = await import('../terminal/record-table.js');
  const proctored = links.Candidates.some((candidate) => candidate.LaunchUrl !== undefined);
  const labels = ['Candidate', 'Name', 'Email', 'StartupLink', ...(proctored ? ['LaunchUrl'] : [])];
  const rows = links.Candidates.map((candidate) => [
    candidate.CandidateExtId,
    [candidate.FirstName, candidate.LastName].filter((part) => part !== '').join(' '),
    candidate.Email,
    candidate.StartupLink,
    ...(proctored ? [candidate.LaunchUrl ?? ''] : []),
  ]);
  return renderRecordTable(labels, rows, { ...options, headingColumns: 2 });
}

async function pickSchedule(directory: OpenDirectory, options: LinksFlags, deps: CommandDeps): Promise<string> {
  const { missingValue, promptSchedule } = await import('../terminal/prompts.js');
  const off = promptsOff(options, deps);
  if (off !== undefined) throw missingValue('<ScheduleExtId>', off);
  return promptSchedule(directory.schedules(), promptIoOf(deps));
}

/** Names the store, and the schedule meant when only the case differs (ids match exactly). */
function notFound(directory: OpenDirectory, scheduleExtId: string, target: ResolvedTarget): string {
  const lower = scheduleExtId.toLowerCase();
  const near = directory.schedules().find((entry) => entry.id.toLowerCase() === lower);
  const hint = near === undefined ? '' : ` (did you mean ${near.id}? ids are case-sensitive)`;
  return `no schedule ${scheduleExtId} on ${describeTarget(target.report)}${hint}`;
}
