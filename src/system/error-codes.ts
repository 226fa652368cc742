/**
 * The codes of the messages that end a run (docs/errors.md is made from this table, `examctl
 * explain CODE` prints an entry). A code's leading digits are the exit code it ends with: E2xxx
 * usage (exit 2, nothing sent), E3xxx target (exit 3), E70xx an examctl bug (exit 70), E130x
 * interrupted (exit 130), E141x output closed (exit 141). Each typed error of errors.ts has a
 * default code; a refusal a user must tell apart from its class's others carries its own.
 * Per-item problems keep the API's codes and examctl's 9xxx (domain/codes.ts), not these.
 */
export interface ErrorCodeEntry {
  /** A few words, as a heading. */
  readonly title: string;
  readonly cause: string;
  readonly fix: string;
}

export const ERROR_CODES = {
  E2000: {
    title: 'a flag, value or combination refused',
    cause:
      'The command line asks for something examctl refuses before sending anything: a value out of range, two flags that do not go together, a flag the command takes but not with the others given. The message names the flag or value.',
    fix: 'Correct the named flag or value; `examctl <command> --help` lists what the command takes, `examctl options` the global flags.',
  },
  E2001: {
    title: 'command line not understood',
    cause:
      'An unknown command or flag, a flag without its value, an argument too many, or a flag value of the wrong kind (a number, a duration, a date).',
    fix: 'Check the spelling against `examctl <command> --help`; the message suggests the nearest flag when there is one.',
  },
  E2002: {
    title: 'command missing',
    cause: 'A command group was given without one of its commands (`examctl user`): it shows its help instead.',
    fix: 'Add one of the commands the message lists (`examctl user sync ...`).',
  },
  E2003: {
    title: 'text-only output asked for as JSON',
    cause:
      '`--json` or `-o` was given with something that writes text only: `--help`, `--version`, or a command that has no document.',
    fix: 'Leave out `--json` / `-o` for that command.',
  },
  E2004: {
    title: 'unknown error code',
    cause: '`examctl explain` was given a code that is not in the table of codes.',
    fix: 'Copy the code from the message (`E` and four digits, e.g. E3020); docs/errors.md lists them all.',
  },
  E2005: {
    title: 'confirmation needed',
    cause:
      'A run would send to a remote target, and nobody can be asked to confirm it: no terminal, `--no-input` or `CI=true`. Nothing was sent.',
    fix: 'Add `--yes` once you are sure of the target the message names (or `--dry-run` to check first).',
  },
  E2006: {
    title: 'no home directory',
    cause:
      'examctl needs a place for its own files (runs, config) and `HOME` is not set, or not an absolute path, and the account has none.',
    fix: 'Set `HOME`, or the variable the message names for that place (`EXAMCTL_RUNS_DIR`, `EXAMCTL_CONFIG_DIR`).',
  },
  E2007: {
    title: 'a flag the command does not take',
    cause:
      'A global flag was given to a command that has no use for it (`--strict` to `runs prune`, `--store` to `config list`): examctl refuses it rather than drop it silently. The message names the flag, the command and the commands that take it.',
    fix: 'Leave the flag out, or give it to a command that takes it; `examctl <command> --help` lists what the command takes.',
  },
  E2008: {
    title: 'remote target not set up',
    cause:
      'The target is the remote API and examctl lacks its base URL or its token: none given as a flag, in the environment or in the profile in use. The message says which. Nothing was sent.',
    fix: 'Give the base URL (`--base-url`, `EXAMCTL_BASE_URL`) and the token (`EXAMCTL_TOKEN`, `--token-file`), or keep both in a profile (`examctl login`); `examctl doctor` shows what the target resolves to and where each setting came from.',
  },
  E2100: {
    title: 'input file malformed',
    cause:
      "An input file cannot be read as input: a malformed line, an unknown or missing column, a value examctl cannot parse, a limit passed. A map file (`--map-file`, a profile's `mapFile`) is such a file: its syntax and what it holds (an unknown field, a key or a field twice, an entry not a map file's) alike. The message names the file and, when known, the line. Nothing was sent.",
    fix: 'Correct the file at the line named (`examctl template <kind>` shows the columns it takes, docs/input-formats.md the formats), then run again.',
  },
  E2101: {
    title: 'input file not found',
    cause:
      'A file named on the command line (`--file`, `--map-file`, an id list, the plan given to `apply`) does not exist. Nothing was sent.',
    fix: 'Check the path; a relative path is read from the working directory.',
  },
  E2102: {
    title: 'input file unreadable',
    cause:
      'A file named on the command line exists but cannot be read: permission denied, a directory, a device, larger than examctl reads, or a FIFO: one with no writer where nobody can start one (no terminal, --no-input, CI=true), or one named where only a regular file is read (`--map-file`, `--schedule`). Nothing was sent.',
    fix: "Give a regular file examctl may read, or start the FIFO's writer first (`--file` reads a FIFO once its writer opens it, `--file -` standard input); elsewhere save a pipe to a file first.",
  },
  E2110: {
    title: 'input refused by the run',
    cause:
      'The input is readable but the run refuses what it holds (a PIN withheld from the report with no `--pin` to give it). The run still writes its reports, every item skipped.',
    fix: 'Do what the message asks (give `--pin`, or drop the column), then run again.',
  },
  E2111: {
    title: 'a lost create fed back',
    cause:
      'A row of a run report given with `--only-failed` is a create whose answer its run lost, under an id examctl chose: it may have been made, and sending it as a new row would make a second one. Nothing was sent.',
    fix: '`examctl runs resume <run>` (the run the message names) finds whether it was made and sends it at most once (docs/runs.md).',
  },
  E2200: {
    title: 'run journal unusable',
    cause:
      'A run journal (`runs show`, `runs resume`) cannot be read or used as it is: damaged, of a newer examctl, or of another target; or `runs resume` of a run that read stdin or a pipe (`--file -`, a FIFO), which cannot be read again.',
    fix: 'Follow the message; `examctl runs list` shows the runs kept, docs/runs.md what a journal holds.',
  },
  E2201: {
    title: 'no such run',
    cause: 'The run id given to `runs show` or `runs resume` is not in the runs directory.',
    fix: '`examctl runs list` shows the ids kept; check `EXAMCTL_RUNS_DIR` if the run was made elsewhere.',
  },
  E2202: {
    title: 'a later run on record',
    cause:
      "`runs resume` of a run when a later run of the same command went to the same target since it started (in this runs directory, or recorded by the sync memory from another runner): resuming would send this run's older rows over what the later run sent. Nothing was sent.",
    fix: 'If the later run was this run\'s own retry and ended ok, the work is done (`examctl runs prune --all`); else run the command again with today\'s file, or give `--over-later-runs` if the later run sent other records (docs/runs.md, "runs resume").',
  },
  E2300: {
    title: 'a store is already there',
    cause: '`local init` (or `local import`) found a store where it would make one.',
    fix: 'Use the store that is there, give another `--store`, or add `--force` to replace it.',
  },
  E2301: {
    title: 'the store the sync memory names is gone',
    cause:
      'There is no local store at the path, but the sync memory of that path names one there: it was moved, deleted or is not mounted. A new store made there would hold none of what the memory says was sent. Nothing was created or sent.',
    fix: 'Point the job at where the store is now (`--store`), or mount it; if it is truly gone, `examctl local init --store PATH` makes a new one and moves that memory aside (docs/store.md, "Creating and replacing").',
  },
  E2302: {
    title: 'no store to read',
    cause:
      'A command that reads the local store (`local export`, `schedule links`, `synced adopt`, a dry run of `review-session show`) found no store at the path it names, and makes none just to read it. Nothing was created.',
    fix: 'Name the store you meant (`--store`, `EXAMCTL_STORE`), or make one: `examctl local init` (the demo world), `examctl schedule push` (the store with your schedules).',
  },
  E2400: {
    title: 'state kept in an untrusted place',
    cause:
      'A file examctl keeps state in (a profile, a sync memory, a runs directory and its runs) is in a place another user of the machine could write, is owned by another user, or is not what examctl makes there (a symbolic link, a FIFO). examctl refuses it rather than trust it.',
    fix: 'Make the directory and file yours and not writable by group or others (`chmod go-w`), or point examctl at another place.',
  },
  E2501: {
    title: 'no sync memory',
    cause:
      'The run needs the sync memory of this target (`--only-new`, `--only-existing`, `--require-memory`, or `runs resume` of a run that decided from it) and none was found, so examctl cannot tell what it sent before. Nothing was sent.',
    fix: 'Restore the memory (`examctl synced import` of a file `synced export` wrote, or the state service that keeps it: `--sync-dir`), or rebuild it (`examctl synced adopt --file` the last export fully synced, per `--population`; for a schedule push, `examctl synced adopt-schedules --file` the last file fully sent); only then, as a knowing choice, a run without the flag starts a new one, which disables no leaver and prunes no link (docs/sync.md, "When the memory is lost").',
  },
  E2502: {
    title: 'stale input',
    cause:
      'The file looks like an older export run again: byte for byte the file of an earlier run, or `--disable-missing` would disable users examctl created in runs later than every user it holds. Nothing was sent.',
    fix: 'Give the current export; if the file is meant, run again with the flag the message names (`--allow-old-file`, `--allow-disable-recent`: docs/sync.md, "Stale input").',
  },
  E2503: {
    title: 'over a threshold',
    cause:
      'The run would disable or change more of the users examctl synced than `--max-disable` (or its like) lets it. Nothing was sent.',
    fix: 'Check the input is complete; only if it is, raise the threshold the message names (docs/sync.md).',
  },
  E2504: {
    title: 'sync memory of another target',
    cause:
      'The sync memory given was made for another target (or for the store this path held before it was replaced): used here it would leave out records never sent to this one. Nothing was sent.',
    fix: 'Give the memory of this target, or the target this memory belongs to (`examctl synced show`).',
  },
  E2505: {
    title: 'written by a newer examctl',
    cause: 'A sync memory or its export was written by a newer examctl, in a format this one does not read.',
    fix: 'Upgrade examctl to the version that wrote it (or later).',
  },
  E2506: {
    title: 'an export older than the memory there',
    cause:
      '`synced import` was given an export older than the sync memory already there (its newest run is older), or one exported while a run still wrote whose end the memory there holds: importing it would forget what those runs sent. Nothing was written.',
    fix: 'Import the newest export (export the memory there first if in doubt); `--force` replaces it anyway (docs/sync.md, "When the memory is lost").',
  },
  E2507: {
    title: 'sync memory damaged',
    cause:
      'A sync memory, an export of one given to `synced import`, or a document a state service keeps beside it (a delta, the intents a run wrote ahead) cannot be used as it is: a line whose checksum does not hold or whose fields are not what examctl writes (edited by hand), a file cut short, another file. The message names the file and, when known, the line. It is not used; nothing was sent.',
    fix: 'Move the file aside as the message says, then bring the memory back from its newest export (`examctl synced import`) or adopt the last file fully synced (`examctl synced adopt --file`): docs/sync.md, "When the memory is lost".',
  },
  E2508: {
    title: 'sync memory behind a run',
    cause:
      'With `--require-memory`, the sync memory misses what a run of this target did that the runs directory knows: the memory is older than that run (restored from before it), cut short after it, or the run never stored it (killed). Deciding from it would skip or undo what that run sent. Nothing was sent.',
    fix: 'Do what the message says: `examctl runs resume <run>` stores what a killed run did; else restore the newest export (`examctl synced import`) or rebuild the memory (`examctl synced adopt --file` the last file fully synced): docs/sync.md, "When the memory is lost".',
  },
  E2600: {
    title: 'not a plan examctl wrote',
    cause:
      'The file given to `examctl apply` is not a plan as examctl wrote it: changed after it was written (its checksum does not match), cut short, not JSON, of another version, or not a file. Nothing was sent.',
    fix: 'Make a new plan (`--dry-run --plan-out FILE`), review it, and apply that file as it is (docs/plan.md).',
  },
  E2601: {
    title: 'the plan no longer fits',
    cause:
      "The plan was made for another target or other profile settings, its store or sync memory moved since (another run, a restore), or it is older than `--max-age`: what it would send is no longer what was reviewed. Or it was applied already and the store no longer holds where that apply left it (restored to before it, replaced): what it sent may be gone. Or a `runs resume` of an apply's run found the plan apply kept for it (`plans/<id>/plan.json` in the runs directory) gone or changed, so no request can be checked against it. Nothing was sent.",
    fix: 'Make a new plan against the target as it is now, review it, and apply that (docs/plan.md, "Refusals").',
  },
  E2602: {
    title: "the plan's apply did not finish",
    cause:
      'The plan was applied before, and the run that applied it did not finish (killed, stopped, or still running): part of the plan may not have been sent. Applying it again sends nothing.',
    fix: '`examctl runs resume <run> --target-from-run` (the run the message names; its target is the plan\'s) sends the rest of the plan (docs/plan.md, "Apply").',
  },
  E3000: {
    title: 'target failed',
    cause:
      'The target (the remote service, the local store, or a file examctl had to write) could not be used; the message says what failed.',
    fix: 'Fix what the message names and run again; after a run, `examctl runs resume <id>` sends the rest.',
  },
  E3001: {
    title: 'service failed after retries',
    cause:
      'The service answered with errors (5xx, 429) or timed out through every retry; a request cut short may have been applied.',
    fix: 'Try again later; `examctl runs resume <id>` sends what is left and checks what may have been applied (docs/runs.md, "Transient outcomes").',
  },
  E3002: {
    title: 'service not reached',
    cause:
      'The request never reached the service: the name did not resolve, the connection was refused, the TLS certificate was not trusted, or a proxy failed. That request was not sent; what the service answered before it (a service gone mid-run) stands, and the report lists it.',
    fix: 'Check `--base-url`, the network and the proxy (`examctl doctor` checks them); for a private certificate authority set `NODE_EXTRA_CA_CERTS`. Then run the command again, or, for a run it stopped after the service answered some requests, `examctl runs resume <id>` (the id its message names) sends the rest.',
  },
  E3003: {
    title: 'answer unreadable',
    cause:
      "The service answered success in a form examctl could not read or keep (not the API's answer, cut short, too large): the request may have been applied.",
    fix: '`examctl runs resume <id>` checks and sends the rest; if it repeats, the service (or a proxy in front of it) is not the API examctl expects.',
  },
  E3010: {
    title: 'token refused',
    cause: 'The service refused the token (HTTP 401 or 403): retrying with the same token is pointless.',
    fix: 'Give a valid token with the rights needed (`examctl login`, `EXAMCTL_TOKEN`, `--token-file` or a profile).',
  },
  E3011: {
    title: 'state service refused the credentials',
    cause:
      'The state service that keeps the sync memory (an `http(s)://` `--sync-dir` or `EXAMCTL_SYNC_DIR`) refused its credentials (HTTP 401 or 403): the memory could not be locked, read or stored.',
    fix: 'Give `EXAMCTL_SYNC_USERNAME` and `EXAMCTL_SYNC_PASSWORD` that may read and write that state (docs/sync.md, "A state service").',
  },
  E3020: {
    title: 'locked by another examctl',
    cause:
      'Another examctl (a run, `local serve`, a `config` command) holds a lock examctl waits for past `EXAMCTL_LOCK_TIMEOUT_MS`: a local store, the config directory. The message names which, and the process holding it.',
    fix: 'Wait for it to end, or stop it. A lock left by a process that died on this host is taken over without you; one of another host (a store or memory on a shared folder) never is: once that process no longer runs, remove the `LOCK` file the message names.',
  },
  E3021: {
    title: 'sync memory locked',
    cause:
      'Another run of the same target and population holds the sync memory: two syncs at once would each miss what the other sent.',
    fix: 'Let the other run end (CI: one sync per target at a time), then run again.',
  },
  E3030: {
    title: 'store damaged',
    cause:
      'The local store cannot be loaded: a damaged or missing file, a format from a newer examctl, or a directory that is not a store. Nothing was overwritten.',
    fix: 'Restore the store from a copy (`local export` makes one), or upgrade examctl if a newer one wrote it (docs/store.md).',
  },
  E3031: {
    title: 'store replaced',
    cause:
      'The local store was replaced (restored, made again) while a run used it: what the run sent is not in the store now.',
    fix: 'Run again against the store as it is now; the run cannot be resumed (docs/store.md).',
  },
  E3040: {
    title: 'report not written',
    cause:
      'The `--report` file could not be written during the run (a full disk, a file open in Excel). The run stopped as at a target failure; the other reports and the journal are complete.',
    fix: 'Free the disk or close the file, then `examctl runs resume <id>` sends the rest; `examctl runs show <id> --report <file>` writes the report again.',
  },
  E3050: {
    title: 'run journal or memory not written',
    cause:
      'The run journal or the sync memory could not be written (a full disk, a directory removed or not writable), or the state service that keeps the memory did not store it (an error answered to its POST, or another document held after it).',
    fix: 'Free the disk, fix the directory or the state service named, then run again (or `examctl runs resume <id>`); where the message names a file holding the memory, import it as it says.',
  },
  E3060: {
    title: 'input file changed during the run',
    cause:
      'The input file changed, or could no longer be read, after the run checked it and began sending: the rows sent before stand (the report lists them); the rest was not sent.',
    fix: 'Put back the file the run checked and `examctl runs resume <id>` sends the rest (it refuses another file); or run the new file as a new run.',
  },
  E7000: {
    title: 'examctl bug',
    cause:
      'examctl reached a state it should never reach (a command that stopped before it ended, a store used after it was closed).',
    fix: 'Run again with `--debug` and report the message and the stack trace to the examctl maintainers.',
  },
  E7001: {
    title: 'unexpected error',
    cause:
      'An error examctl did not expect ended the command (a system error no command handles, a failure in a library).',
    fix: 'Run again with `--debug` and report the message and the stack trace to the examctl maintainers.',
  },
  E1300: {
    title: 'interrupted',
    cause: 'Ctrl-C, SIGTERM or SIGHUP: the requests in flight were finished, the report written, the rest not sent.',
    fix: '`examctl runs resume <id>` (the id is in the message) sends the rest.',
  },
  E1301: {
    title: 'interrupted, answers lost',
    cause:
      'Interrupted after requests went out whose answers did not come before the grace ended: they may have been applied.',
    fix: '`examctl runs show <id>` lists them; `examctl runs resume <id>` checks and sends the rest.',
  },
  E1302: {
    title: 'interrupted at a prompt',
    cause:
      "A prompt was answered with Ctrl-C, or its input ended (Ctrl-D). Nothing was sent; at `login`'s token prompt (which sends nothing) nothing was changed: the profile's token is as it was.",
    fix: 'Run again and answer, or give the value as a flag (with `--no-input` nothing is asked).',
  },
  E1410: {
    title: 'output closed',
    cause:
      'Standard output or error was closed under the run (a pipe whose reader ended, `| head`, a full disk): handled as an interrupt, the rest not sent.',
    fix: 'Read the whole output (or write it to a file with `--report`); `examctl runs resume <id>` sends the rest.',
  },
} as const satisfies Record<string, ErrorCodeEntry>;

/** A code of the table: a code not in it does not type-check. */
export type ErrorCodeId = keyof typeof ERROR_CODES;

/** The exit statuses a run ends with, longest first: a code's leading digits are one of them. */
const EXITS = [141, 130, 70, 3, 2] as const;
export type ErrorExit = (typeof EXITS)[number];

/** The codes of one exit status, for a typed error's constructor. */
export type CodeOfExit<Exit extends ErrorExit> = Extract<ErrorCodeId, `E${Exit}${string}`>;

/** The entry of `code`, any case (`e3020`), with its exit status, or undefined for a code not in the table. */
export function errorCodeEntry(code: string): (ErrorCodeEntry & { code: ErrorCodeId; exit: ErrorExit }) | undefined {
  const id = code.toUpperCase() as ErrorCodeId;
  if (!Object.hasOwn(ERROR_CODES, id)) return undefined;
  return { code: id, exit: EXITS.find((exit) => id.startsWith(`E${exit}`))!, ...ERROR_CODES[id] };
}
