import type { CommandDeps } from '../../context/command-deps.js';
import type { TargetOf } from '../../context/resolved-target.js';
import { withOutFile } from '../../context/out-file.js';
import { listLinks } from '../../pipeline/schedule-links.js';
import type { ScheduleLinksOptions } from './schedule-links.options.js';

/** `examctl schedule links <ScheduleExtId>`: the links as `listLinks` (pipeline/schedule-links.ts) lists them. */
export function run({ out, ...options }: ScheduleLinksOptions, deps: CommandDeps, targetOf: TargetOf): Promise<number> {
  return withOutFile(out, deps, (to) => listLinks(options, to, targetOf));
}
