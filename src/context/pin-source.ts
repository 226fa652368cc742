import { InputFileError, UsageError } from '../system/errors.js';
import { isGiven } from '../domain/field-rules.js';
import { refuseWithheldPins } from '../input/withheld-pins.js';
import type { InputRecord } from '../input/record.js';
import { say } from '../formats/terminal-text.js';
import { askedSecret, promptsAllowed, type CommandDeps } from './command-deps.js';
import { type GlobalOptions } from '../flags/global-options.js';
import { nonEmpty } from '../system/env-values.js';
import { tokenFileModeWarning } from './loose-permissions.js';

/*
 * Where a schedule PIN comes from, and why not only --pin (`ps` shows a command line to every user):
 * docs/security.md, "Other local users".
 */

/** A PIN is a few digits: a larger "PIN file" is the wrong file, refused unread. */
const PIN_FILE_MAX_BYTES = 1024;

interface PinFlags {
  pin?: string;
  pinFile?: string;
}

/** The PIN given by --pin, --pin-file or EXAMCTL_PIN (in that order; --pin with --pin-file is exit 2), or undefined. */
export async function givenPin(flags: PinFlags, deps: CommandDeps): Promise<string | undefined> {
  if (flags.pin !== undefined && flags.pinFile !== undefined)
    throw new UsageError('--pin and --pin-file: give one of them');
  if (flags.pin !== undefined) return flags.pin;
  if (flags.pinFile !== undefined) return readPinFile(flags.pinFile, deps);
  return nonEmpty(deps.env.EXAMCTL_PIN);
}

/**
 * givenPin's PIN, `typed` naming the flag that gave it, and as `pinField` the value for schedule-input's --pin field
 * flag: a typed PIN beats the --schedule file's; EXAMCTL_PIN is none of it (only a file without a PIN takes it).
 */
export async function typedPin(flags: PinFlags, deps: CommandDeps) {
  const typed = flags.pin !== undefined ? '--pin' : flags.pinFile !== undefined ? '--pin-file' : undefined;
  const pin = await givenPin(flags, deps);
  return { pin, typed, pinField: typed === undefined ? undefined : pin } as const;
}

async function readPinFile(file: string, deps: CommandDeps): Promise<string> {
  const [{ resolve }, { readSecretFile }] = await Promise.all([import('node:path'), import('./remote-settings.js')]);
  const { text, mode } = await readSecretFile(
    resolve(deps.cwd, file),
    '--pin-file',
    'PIN',
    PIN_FILE_MAX_BYTES,
    deps.env,
    file,
  );
  const exposed = tokenFileModeWarning(file, mode, '--pin-file');
  if (exposed !== undefined) await say(deps, `warning: ${exposed}`);
  return text;
}

/** Asks for the PIN (masked) when a person can be asked; undefined otherwise (the caller refuses as before). */
export async function askPin(why: string, options: GlobalOptions, deps: CommandDeps): Promise<string | undefined> {
  if (!promptsAllowed(options, deps)) return undefined;
  const pin = (await askedSecret(deps, `${why}: PIN`, 'PIN')).trim();
  if (pin === '') throw new UsageError('no PIN entered; nothing was sent');
  return pin;
}

interface SchedulePinSources {
  typed: '--pin' | '--pin-file' | undefined;
  pin: string | undefined;
  file: string | undefined;
  clearPin: boolean | undefined;
  filePin: unknown;
}

/**
 * The PIN a schedule push sends on its own: typed beats the --schedule file's, which beats EXAMCTL_PIN; --clear-pin
 * beats the variable and beside a given PIN is exit 2; a null or empty file PIN gives none (docs/sync.md, "Fields
 * left out").
 */
export async function schedulePinToSend(
  { typed, pin, file, clearPin, filePin }: SchedulePinSources,
  records: () => AsyncIterable<InputRecord>,
  onlyFailed: boolean,
  options: GlobalOptions,
  deps: CommandDeps,
): Promise<string | undefined> {
  const given = typed ?? (isGiven(filePin) ? `--schedule ${file}'s PIN` : undefined);
  // A resume sends what its run sent: an older examctl recorded --clear-pin beside the PIN it sent.
  if (clearPin === true && given !== undefined && deps.resume === undefined)
    throw new UsageError(`--clear-pin and ${given}: give one of them`);
  // EXAMCTL_PIN is implicit: --clear-pin or the --schedule file's PIN beats it.
  const envBeaten = typed !== undefined || pin === undefined ? undefined : clearPin === true ? '--clear-pin' : given;
  if (envBeaten !== undefined) await say(deps, `EXAMCTL_PIN is set: not used (${envBeaten})`);
  const sent = envBeaten === undefined ? pin : undefined;
  if (sent !== undefined || isGiven(filePin)) return sent;
  // A report's withheld PIN cells take the given PIN; on a terminal it is asked (never typed on the
  // command line, where `ps` shows it). None: `prepare` refuses the run before anything is sent (withheld-pins.ts).
  return refuseWithheldPins(records(), onlyFailed).then(
    () => undefined,
    (error: unknown) =>
      error instanceof InputFileError
        ? askPin('the report withholds the schedule PIN', options, deps)
        : Promise.reject(error),
  );
}
