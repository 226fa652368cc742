import { readdir, realpath, stat } from 'node:fs/promises';
import { devNull } from 'node:os';
import { basename, dirname, resolve } from 'node:path';
import { Writable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { ReplaceFailedError } from '../system/atomic-file.js';
import { TargetError, UsageError } from '../system/errors.js';
import { openOutputFile, type OutputFile } from '../system/output-file.js';
import type { CommandDeps } from './command-deps.js';
import { describeSystemError } from '../system/system-error-words.js';
import { configDir, configPath, expandPath, runConfig } from './config-file.js';
import { openRegularFile } from '../system/regular-file.js';
import { bomOf } from '../input/text-source.js';
import { resolveRunsDir } from '../runs/runs-dir.js';
import { unfinishedRunOf } from '../runs/read-run.js';
import { givenSyncDir } from './state-http.js';
import { defaultSyncDir, findStore } from './target.js';
import { WORLD_LISTS } from '../engine/view.js';
import { cannotWriteReport, dropEarlier, moveAside } from '../report/report-file.js';
import { DRY_RUN_OUT } from '../flags/global-options.js';

const NAMED_FILE = /^(CURRENT|INSTANCE|LOCK.*|(journal|snapshot).*\.ndjson)$/;
// A memory's names are common names for an admin's own NDJSON: such a file is told by its content.
const MEMORY_FILE = /^(users|schedules|collections)\.ndjson$/;
const WORLD_KEYS = ['Settings', ...WORLD_LISTS.map(([list]) => list)];
/** Told by the top-level keys their first bytes show: only the command that writes one replaces it (docs/cli.md). */
const RESTORE_POINTS = {
  memory: [
    (seen: string[]) => seen.includes('format="examctl-sync-memory"'),
    "the sync memory's export (synced export --out), kept to restore it",
  ],
  world: [
    (seen: string[]) => seen.length > 0 && seen.every((key) => WORLD_KEYS.includes(key)),
    "the local store's world file (local export --out), kept to restore it (local init --seed)",
  ],
} as const;
type RestorePoint = keyof typeof RESTORE_POINTS;
const READ_FILE_OPTIONS = {
  file: '--file',
  mapFile: '--map-file',
  schedule: '--schedule',
  pinFile: '--pin-file',
  tokenFile: '--token-file',
} as const;

/** The first bytes of a regular `file` (never a FIFO waited on), decoded by its BOM, else ''. */
async function head(file: string): Promise<string> {
  const handle = await openRegularFile(file).catch(() => undefined);
  if (handle === undefined) return '';
  const bytes = Buffer.alloc(256);
  const { bytesRead } = await handle.read(bytes, 0, bytes.length, 0).finally(() => handle.close());
  return new TextDecoder(bomOf(bytes)?.encoding).decode(bytes.subarray(0, bytesRead));
}

/** The top-level keys of the JSON object `start` begins, as far as it goes (a string value: `key="value"`). */
function topLevel(start: string): string[] {
  const seen: string[] = [];
  let depth = 0;
  for (const [token, text, colon] of /^\s*\{/.test(start)
    ? start.matchAll(/("(?:[^"\\]|\\.)*")(\s*:)?|[{}[\]]/g)
    : []) {
    if (text === undefined) depth += '{['.includes(token) ? 1 : -1;
    else if (depth === 1) seen.push(colon ? text.slice(1, -1) : `${seen.pop()}=${text}`);
  }
  return seen;
}

/** Refuses (exit 2) an output over what the run reads or keeps, `-`, or stdout under --json: docs/security.md. */
export async function assertNotRead(
  flag: string,
  out: string,
  given: Readonly<Record<string, unknown>>,
  deps: CommandDeps,
  /** The restore point the command writes: it replaces its own earlier one. */
  own?: RestorePoint,
): Promise<void> {
  if (out === '-') throw new UsageError(`${flag} - names no file: give a file name`);
  // A file not there yet by its path (a config file to be).
  const id = async (file: unknown, base = deps.cwd) => {
    if (typeof file !== 'string') return undefined;
    const path = expandPath(file, base, deps.env);
    const entry = await stat(path, { bigint: true }).catch(() => undefined);
    return entry?.ino ? `${entry.dev}:${entry.ino}` : path;
  };
  const refused = (words: string) =>
    Object.assign(new UsageError(`${flag} ${out} is ${words}: give the output another name`), { words });
  // Every profile's (`login` keeps tokens in the config folder), a replayed run's.
  const profiles = Object.entries((await runConfig(deps).catch(() => undefined))?.profiles ?? {});
  const path = resolve(deps.cwd, out);
  const places: Readonly<[unknown, string, string?]>[] = [
    ...Object.entries(READ_FILE_OPTIONS).map(([key, name]): [unknown, string] => [
      given[key],
      `the ${name} file this run reads`,
    ]),
    [given.file === '-' && '/dev/stdin', 'the --file - (stdin) this run reads'],
    [configPath(deps.env), 'the config file'],
    [deps.runProfile?.defaults.mapFile, `profile ${deps.runProfile?.name}'s mapFile`, deps.runProfile?.configDir],
    ...profiles.flatMap(
      ([name, p]) =>
        [
          [p.tokenFile, `profile ${name}'s tokenFile`, configDir(deps.env)],
          [p.defaults?.mapFile, `profile ${name}'s mapFile`, configDir(deps.env)],
        ] as const,
    ),
    [given.json && '/dev/stdout', 'stdout under --json'],
  ];
  const [nul, output] = [await id(devNull), await id(path)];
  for (const [place, words, base] of places)
    if (output !== nul && output === (await id(place, base))) throw refused(words);
  const file = await realpath(path).catch(() => path);
  const [dir, up] = [await id(dirname(file)), await id(dirname(dirname(file)))];
  const runs = resolveRunsDir(given.runsDir as string | undefined, deps.env);
  const synced = givenSyncDir(given.syncDir, deps.env) ?? defaultSyncDir(given.runsDir as string | undefined, deps);
  const ours = [await id((await findStore(given, deps)).store), await id(runs), await id(synced)];
  const listed = await readdir(dirname(file)).catch((): string[] => []);
  const kept = listed.filter((name) => NAMED_FILE.test(name) || MEMORY_FILE.test(name));
  const ourFolder = dir === ours[0] || (ours.includes(up) && kept.length > 0);
  if (ourFolder) throw refused("in this run's store, runs or memories");
  // Only over a file there (an id): a new name reads no journal.
  const run = output !== path && (await unfinishedRunOf(runs, async (input) => (await id(input)) === output));
  if (run) throw refused(`the input of unfinished run ${run} (runs resume reads it again)`);
  const start = await head(file);
  const examctls =
    (kept.includes(basename(file)) && NAMED_FILE.test(basename(file))) || /^\{"(crc|examctl)":"/.test(start);
  if (examctls) throw refused("named or written as a store's, a run's or a memory's file");
  for (const [kind, [told, words]] of Object.entries(RESTORE_POINTS))
    if (kind !== own && told(topLevel(start))) throw refused(words);
}

/** What `<path>.earlier` is when no output may replace it (never renamed over nor removed), else undefined. */
export const earlierIs = (...[flag, path, ...rest]: Parameters<typeof assertNotRead>) =>
  assertNotRead(flag, `${path}.earlier`, ...rest).then(
    () => undefined,
    (error: { words?: string }) => error.words,
  );

/** A write failed after the output was opened: exit 3, the finished file kept beside when only its replace failed. */
async function writeFailure(out: string, error: unknown, path: string, earlier?: string): Promise<TargetError> {
  if (error instanceof ReplaceFailedError) {
    return new TargetError(`cannot replace ${out}: ${error.reason}; the finished file was kept at ${error.keptAt}`, {
      cause: error,
    });
  }
  return new TargetError(
    `cannot write ${out}: ${describeSystemError(error)}${await moveAside(path, 'file', earlier)}`,
    { cause: error },
  );
}

/** `produce` with stdout pointed at `out` (`--out <file>`) through the output gate (docs/security.md, "Outputs"). */
export async function withOutFile(
  out: string | undefined,
  deps: CommandDeps,
  produce: (deps: CommandDeps) => Promise<number | void> | void,
  /** `secret` (PINs, password hashes, links): 0600, the kept-beside copy too; `public`: the umask decides. */
  holds: 'secret' | 'public' = 'secret',
  own?: RestorePoint,
): Promise<number> {
  if (out === undefined) return (await produce(deps)) ?? 0;
  if (deps.invocation?.dryRun === true) throw new UsageError(DRY_RUN_OUT);
  await assertNotRead('--out', out, deps.invocation ?? {}, deps, own);
  const path = resolve(deps.cwd, out);
  const earlier = await earlierIs('--out', path, deps.invocation ?? {}, deps, own);
  let file: OutputFile;
  try {
    file = await openOutputFile(path, {
      mode: holds === 'secret' ? 0o600 : 0o666,
      keepOnFailedReplace: true,
      platform: deps.platform ?? process.platform,
    });
  } catch (error) {
    // The gate's own words (a socket, a file Excel holds) or the system's.
    throw cannotWriteReport(out, error, '', '');
  }
  let wrote = false;
  const write = (chunk: string | Buffer) =>
    file.writer.write(chunk).then(
      () => void (wrote = true),
      async (error: unknown) => {
        throw await writeFailure(out, error, path, earlier);
      },
    );
  const bytes = new Writable({
    write(chunk: Buffer, _encoding, done) {
      write(chunk).then(() => done(), done);
    },
  });
  const fileDeps: CommandDeps = {
    ...deps,
    stdout: { write },
    stdoutBytes: bytes,
    stdoutIsTTY: false,
  };
  delete fileDeps.stdoutColumns;
  let code: number;
  try {
    code = (await produce(fileDeps)) ?? 0;
    // A workbook's last chunks may still wait in `bytes`: all reach the file before the rename (else a cut-short zip).
    await finished(bytes.end());
  } catch (error) {
    await file.discard();
    throw error;
  }
  await (code !== 0 && !wrote
    ? file.discard()
    : file.commit().then(() => earlier === undefined && dropEarlier(path))
  ).catch(async (error: unknown) => {
    throw await writeFailure(out, error, path, earlier);
  });
  return code;
}
