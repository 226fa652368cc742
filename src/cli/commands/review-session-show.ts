import type { CommandDeps } from '../../context/command-deps.js';
import type { TargetOf } from '../../context/resolved-target.js';
import { withOutFile } from '../../context/out-file.js';
import { onlyGlobals } from '../../flags/global-options.js';
import { takeTableFlags } from '../../flags/option-table.js';
import { showReviewSessions } from '../../pipeline/review-session-show.js';
import { REVIEW_SESSION_SHOW, type ReviewSessionShowOptions } from './review-session-show.options.js';

/** `examctl review-session show`: docs/cli.md, "review-session show" (and its one-id failures, above it). */
export function run(
  { out, ...options }: ReviewSessionShowOptions,
  deps: CommandDeps,
  targetOf: TargetOf,
): Promise<number> {
  const [own, rest] = takeTableFlags(options, REVIEW_SESSION_SHOW.options);
  return withOutFile(out, deps, (to) => showReviewSessions(own, onlyGlobals(rest), targetOf, to, deps));
}
