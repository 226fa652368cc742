import { readFileSync } from 'node:fs';

/**
 * Whether a process recorded in a lock file still runs (docs/store.md, "The lock": a zombie, a
 * reused pid). On Linux /proc gives the state letter and the start time (clock ticks since boot);
 * elsewhere only `kill(pid, 0)` is asked: /proc is read on Linux only (a Windows Node under Wine,
 * or a BSD with linprocfs, may see a /proc that does not describe its own processes' pids).
 */

/** Fields 3 (state) and 22 (starttime) of /proc/<pid>/stat; undefined off Linux or without the file. */
function procStat(pid: number | 'self', platform: NodeJS.Platform) {
  if (platform !== 'linux') return undefined;
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'latin1');
  } catch {
    return undefined;
  }
  // The command name (field 2) is in parentheses and may hold spaces or parentheses itself.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  const state = fields[0];
  const startTicks = Number(fields[19]);
  if (state === undefined || state === '' || !Number.isSafeInteger(startTicks)) return undefined;
  return { state, startTicks };
}

/** This process's start time, read once: it never changes, and each lock and marker a run takes records it. */
let ownTicks: { platform: NodeJS.Platform; ticks: number | undefined } | undefined;

/** This process's start time as /proc gives it, for a lock to record; undefined off Linux. */
export function ownStartTicks(platform: NodeJS.Platform = process.platform): number | undefined {
  if (ownTicks?.platform !== platform) ownTicks = { platform, ticks: procStat('self', platform)?.startTicks };
  return ownTicks.ticks;
}

/**
 * True while `pid` runs: not gone, not a zombie, and (when `startTicks` was recorded) the same
 * process that recorded it. EPERM (another user's process) counts as alive. When /proc cannot
 * be read, only `kill(pid, 0)` decides.
 */
export function processAlive(pid: number, startTicks?: number, platform: NodeJS.Platform = process.platform): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return false;
  }
  const stat = procStat(pid, platform);
  if (stat === undefined) return true;
  if (stat.state === 'Z' || stat.state === 'X' || stat.state === 'x') return false;
  return startTicks === undefined || stat.startTicks === startTicks;
}
