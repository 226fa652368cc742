/**
 * Type-level proof that a command's flags are declared once: checked by `tsc --noEmit` (part of
 * `npm test`), never run. Each `@ts-expect-error` fails the build if its line stops being an error.
 */
import { onlyGlobals, type GlobalOptions } from '../../src/flags/global-options.js';
import { positiveInt } from '../../src/flags/flag-values.js';
import { argument, choice, option, parsed, type OptionsOf } from '../../src/flags/option-table.js';
import { type CommandRun } from '../../src/cli/command-declaration.js';
import type { CollectionAddOptions } from '../../src/cli/commands/collection-add.options.js';
import type { InvigilatorsRemoveOptions } from '../../src/cli/commands/invigilators-remove.options.js';
import type { SchedulePushOptions } from '../../src/cli/commands/schedule-push.options.js';
import type { UserSyncOptions } from '../../src/cli/commands/user-sync.options.js';

const TABLE = [
  argument('name', '<name>', 'a name'),
  option('--seed <world.json>', 'a value'),
  option('--force', 'a switch'),
  option('--no-color', 'a negated switch'),
  choice('--mode <mode>', 'a choice', ['fast', 'safe']),
  parsed('--limit <n>', 'a parsed number', positiveInt('--limit')),
] as const;
type Options = OptionsOf<typeof TABLE> & GlobalOptions;

// The derived type: names as commander sets them, values as the flag syntax says.
export const complete: Options = {
  name: 'n',
  seed: 'w.json',
  force: true,
  color: false,
  mode: 'safe',
  limit: 3,
  dryRun: true,
};
// @ts-expect-error a switch holds a boolean, not text
export const textForSwitch: Options = { name: 'n', force: 'yes' };
// @ts-expect-error a choice holds one of its words
export const unknownChoice: Options = { name: 'n', mode: 'quick' };
// @ts-expect-error a required argument cannot be missing
export const noArgument: Options = { seed: 'w.json' };

/** Read but not declared: --replace is in no table. */
export function readsUndeclared(options: Options): unknown {
  // @ts-expect-error
  return options.replace;
}

/** Declared but not read: --force is in the table, the command never takes it out of its options. */
export function forgetsForce({ name, seed, color, mode, limit, ...globals }: Options): unknown[] {
  // @ts-expect-error
  onlyGlobals(globals);
  return [name, seed, color, mode, limit];
}

/** Every declared flag taken out: compiles. */
export function readsAll({ name, seed, force, color, mode, limit, ...globals }: Options): unknown[] {
  return [name, seed, force, color, mode, limit, onlyGlobals(globals).dryRun];
}

/** A run typed with a flag its table lacks cannot be registered with that table. */
// @ts-expect-error
export const wrongTable: CommandRun<Options> = async (options: Options & { replace: boolean }) =>
  options.replace ? 0 : 1;

// A renamed flag is a compile error wherever the old name is read.
// @ts-expect-error schedule push has --schedule-id (scheduleId), not --schedule-ext-id
export const renamed = (options: SchedulePushOptions): unknown => options.scheduleExtId;
// Negated pairs share one property.
export const pair = (options: SchedulePushOptions): boolean | undefined => options.proctoring;

// The record commands take their flags out the same way; each kind of flag they hold is guarded.
/** A flag from a shared table (FILE_OPTIONS' --only-failed, spread into user sync's) left in the options. */
export function forgetsSharedFlag({
  file,
  ignoreUnknownColumns,
  sheet,
  timezone,
  ...globals
}: UserSyncOptions): unknown[] {
  // @ts-expect-error
  onlyGlobals(globals);
  return [file, ignoreUnknownColumns, sheet, timezone];
}

/** A variadic argument (invigilators remove's [userExtId...]) never taken out. */
export function forgetsArgument({
  scheduleExtId,
  file,
  sheet,
  onlyFailed,
  ...globals
}: InvigilatorsRemoveOptions): unknown[] {
  // @ts-expect-error
  onlyGlobals(globals);
  return [scheduleExtId, file, sheet, onlyFailed];
}

/** A repeatable flag (collection add's --repository) never taken out. */
export function forgetsRepeatable({
  file,
  sheet,
  title,
  externalId,
  owner,
  taxonomy,
  ...globals
}: CollectionAddOptions): unknown[] {
  // @ts-expect-error
  onlyGlobals(globals);
  return [file, sheet, title, externalId, owner, taxonomy];
}

/** A negated pair (--proctoring / --no-proctoring) is one property: leaving it out fails like any flag. */
export function forgetsPair({
  file,
  schedule,
  workflow,
  upsert,
  ignoreUnknownColumns,
  onlyFailed,
  sheet,
  timezone,
  scheduleId,
  assessment,
  title,
  start,
  end,
  group,
  groupName,
  scheduleGroup,
  scheduleGroupName,
  owner,
  pin,
  proctoringTemplate,
  lockOnConnectionLoss,
  keycode,
  autoCleanup,
  cleanupNoticePeriod,
  ...globals
}: SchedulePushOptions): unknown[] {
  // @ts-expect-error
  onlyGlobals(globals);
  return [
    file,
    schedule,
    workflow,
    upsert,
    ignoreUnknownColumns,
    onlyFailed,
    sheet,
    timezone,
    scheduleId,
    assessment,
    title,
    start,
    end,
    group,
    groupName,
    scheduleGroup,
    scheduleGroupName,
    owner,
    pin,
    proctoringTemplate,
    lockOnConnectionLoss,
    keycode,
    autoCleanup,
    cleanupNoticePeriod,
  ];
}

// A flag declared with a default is always set: each of them cannot be missing.
const DEFAULTED = [
  option('--delimiter <d>', 'a default', ','),
  choice('--how <how>', 'a choice', ['a', 'b'], 'a'),
  parsed('--most <n>', 'a number', positiveInt('--most'), 5),
] as const;
export const allDefaulted: OptionsOf<typeof DEFAULTED> = { delimiter: ',', how: 'a', most: 5 };
// @ts-expect-error an option with a default cannot be missing
export const noDelimiter: OptionsOf<typeof DEFAULTED> = { how: 'a', most: 5 };
// @ts-expect-error a choice with a default cannot be missing
export const noHow: OptionsOf<typeof DEFAULTED> = { delimiter: ',', most: 5 };
// @ts-expect-error a parsed flag with a default cannot be missing
export const noMost: OptionsOf<typeof DEFAULTED> = { delimiter: ',', how: 'a' };
