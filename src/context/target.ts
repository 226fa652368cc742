import { hash } from 'node:crypto';
import { access, readdir, realpath, stat } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { REMOTE_CONCURRENCY, SERVED_CONCURRENCY } from '../defaults.js';
import { UsageError } from '../system/errors.js';
import { DEMO_WORLD } from '../system/shipped-file.js';
// Whether a store is there, without the engine (a dry run with none never loads it).
import { CURRENT_FILE, storeExists } from '../engine/store/current-file.js';
import { type Env, nonEmpty, requestTimeoutFromEnv, wholeMillisecondsFromEnv } from '../system/env-values.js';
import { say } from '../formats/terminal-text.js';
import { type ApiFactory, type CommandDeps, type DirectoryFactory } from './command-deps.js';
import { type GlobalOptions } from '../flags/global-options.js';
import {
  noBaseUrlError,
  noTokenError,
  remoteTargetOf,
  TOKEN_SOURCE_WORDS,
  type RemoteTarget,
} from './remote-settings.js';
import { assertDirectoryTrusted, currentTrustContext, entryProblem } from '../system/trusted-place.js';
import type { RunSettings, SettingFlags } from './settings.js';
import { isCiEnvironment } from '../terminal/prompt-state.js';
import { targetIdentity, type ProfileNote, type ReportTarget } from '../report/run-report.js';
import { resolveRunsDir } from '../runs/runs-dir.js';
import type { ResolvedTarget, TargetOf } from './resolved-target.js';
import type { IntegrationApi, StoreHead } from '../port/integration-api.js';
import type { OpenDirectory } from '../port/local-directory.js';
import type { StoreDiscovery } from './store-discovery.js';
import { isStateAddress, syncDirSetting } from './state-http.js';
import { redactUrl } from '../domain/problem.js';
import { parseBaseUrl } from '../api/url-policy.js';

/** Where a per-project store lives when neither --store nor EXAMCTL_STORE says: like a .git dir. */
const DEFAULT_STORE_DIR = '.examctl-store';

export function targetOnce(options: GlobalOptions, deps: CommandDeps): TargetOf {
  let target: Promise<ResolvedTarget> | undefined;
  return () => (target ??= resolveTarget(options, deps));
}

/** The store `local init` makes: --store, EXAMCTL_STORE, else the current directory's (no search: like `git init`). */
export function namedStorePath(options: GlobalOptions, deps: CommandDeps) {
  return resolve(deps.cwd, options.store ?? nonEmpty(deps.env.EXAMCTL_STORE) ?? DEFAULT_STORE_DIR);
}

export type MemoryPlace = { kind: 'dir'; syncDir: string } | { kind: 'service'; address: string };

/**
 * Where sync memories live (docs/sync.md): `--sync-dir`, else EXAMCTL_SYNC_DIR (a state service's http(s)://
 * address, or a directory: a relative one from where examctl was started), else `synced` beside the runs directory;
 * `from` names which (`built-in` the last), as the settings line names each setting's source.
 */
export function memoryPlaceOf(
  syncDir: string | undefined,
  runsDir: string | undefined,
  deps: Pick<CommandDeps, 'env' | 'cwd'>,
): MemoryPlace & { from: string } {
  const given = syncDirSetting(syncDir, deps.env);
  const from = given?.from ?? 'built-in';
  if (given !== undefined && isStateAddress(given.value)) return { kind: 'service', address: given.value.trim(), from };
  return {
    kind: 'dir',
    syncDir: given === undefined ? defaultSyncDir(runsDir, deps) : resolve(deps.cwd, given.value),
    from,
  };
}

/** The sync directory when neither `--sync-dir` nor EXAMCTL_SYNC_DIR gives one: `synced` beside the runs directory. */
export function defaultSyncDir(runsDir: string | undefined, deps: Pick<CommandDeps, 'env' | 'cwd'>): string {
  return resolve(deps.cwd, dirname(resolveRunsDir(runsDir, deps.env)), 'synced');
}

/** One directory per target (its LOCK, a memory file per kind), named by a digest of its identity. */
export function memoryDir(syncDir: string, target: ReportTarget): string {
  return join(syncDir, hash('sha256', targetIdentity(target), 'hex').slice(0, 16));
}

/** A real run's local store, made first if missing (the first run with no `local init`). */
export async function ensureStore(store: string, deps: CommandDeps): Promise<void> {
  await goneStore(store, deps, 'nothing was created or sent');
  const { ensureLocalStore } = await import('../engine/local-target.js');
  await ensureLocalStore(store, () => void say(deps, storeCreatedLine(store)));
}

/**
 * A sync memory naming a store at `store` where none is (moved, deleted, not mounted): refused
 * (exit 2) by what would make one (`refused`: what it did); docs/store.md, "Creating and replacing".
 */
export async function goneStore(store: string, deps: CommandDeps, refused?: string): Promise<string | undefined> {
  const { syncDir, runsDir } = (deps.invocation ?? {}) as { syncDir?: string; runsDir?: string };
  const place = memoryPlaceOf(syncDir, runsDir, deps);
  // A state service is asked only by the run that opens the memory (docs/store.md).
  if (place.kind === 'service') return undefined;
  const dir = memoryDir(place.syncDir, { kind: 'local', store });
  const kept = (await readdir(dir).catch(() => [])).some((name) => name.endsWith('.ndjson'));
  if (!kept || (await storeExists(store))) return undefined;
  if (refused === undefined) return dir;
  const sync = place.syncDir;
  const bare = memoryPlaceOf('', '', { ...deps, env: { ...deps.env, EXAMCTL_SYNC_DIR: '', EXAMCTL_RUNS_DIR: '' } });
  throw new UsageError(
    `no local store at ${store}, but the sync memory ${dir} names one there (moved? deleted? not mounted?): ${refused}; point the job at it, mount it, or examctl local init --store ${store}${bare.kind === 'dir' && sync === bare.syncDir ? '' : ` --sync-dir ${sync}`}`,
    { code: 'E2301' },
  );
}

/** That store as the OS resolves it (judged as named: a link on the way is judged too). */
export async function localStorePath(options: GlobalOptions, deps: CommandDeps) {
  return realPathOf(namedStorePath(options, deps));
}

/** A path as the OS resolves it (links, Windows' letter case), as far as it exists: one store, one path. */
async function realPathOf(path: string): Promise<string> {
  const parent = dirname(path);
  return (
    (await realpath(path).catch(() => undefined)) ??
    (parent === path ? path : join(await realPathOf(parent), basename(path)))
  );
}

/** Whether `recorded` is the store `target` by its path (`path`), or holds no store now (`gone`: memory-files.ts). */
export async function sameStoreAs(recorded: ReportTarget, target: ReportTarget) {
  if (recorded.kind !== 'local') return;
  const path = await realPathOf(recorded.store);
  if (targetIdentity({ kind: 'local', store: path }) === targetIdentity(target)) return 'path';
  // One directory under two paths no link explains (a bind mount): the same device and inode.
  if (target.kind === 'local' && (await sameDirectory(path, target.store))) return 'path';
  return (await storeExists(path)) ? undefined : 'gone';
}

async function sameDirectory(a: string, b: string): Promise<boolean> {
  const [one, two] = await Promise.all([a, b].map((path) => stat(path, { bigint: true }).catch(() => undefined)));
  return !!two && one?.ino !== 0n && one?.dev === two.dev && one?.ino === two.ino;
}

/** Exit 2 for a store another user owns or could change (trusted-place.ts); `ownerOnly`: not even root's. */
export async function assertTrustedStore(store: string, deps: CommandDeps, ownerOnly = false): Promise<void> {
  await assertDirectoryTrusted('the local store', store, currentTrustContext(deps.env), { ownerOnly });
}

/**
 * The store a command uses, found, named and judged as docs/cli.md, "The local store" says (a
 * parent's is named so nobody writes to a store they did not mean). findStore: unsaid, unchecked.
 */
export async function usedStorePath(options: GlobalOptions, deps: CommandDeps): Promise<string> {
  const discovery = await findStore(options, deps);
  const line = (await import('./store-discovery.js')).describeDiscovery(discovery, deps.cwd);
  if (line !== undefined) await say(deps, line);
  await assertTrustedStore(discovery.found ? discovery.store : namedStorePath(options, deps), deps, discovery.found);
  return discovery.store;
}

export async function findStore(options: GlobalOptions, deps: CommandDeps): Promise<StoreDiscovery> {
  if (options.store !== undefined || nonEmpty(deps.env.EXAMCTL_STORE) !== undefined)
    return { store: await localStorePath(options, deps), found: false };
  const { discoverStore } = await import('./store-discovery.js');
  const context = currentTrustContext(deps.env);
  return discoverStore({
    cwd: deps.cwd,
    home: context.home,
    storeName: DEFAULT_STORE_DIR,
    probe: {
      isStore: (dir) =>
        access(join(dir, CURRENT_FILE)).then(
          () => true,
          () => false,
        ),
      // The current directory is always looked in; above it, only folders of the user's own.
      stopAt: async (dir) => {
        if (dir === resolve(deps.cwd)) return undefined;
        const entry = await stat(dir).catch(() => undefined);
        return entry === undefined ? 'cannot read it' : entryProblem(dir, entry, context, { ownerOnly: true });
      },
    },
  });
}

/** The target of a command (docs/cli-contract.md, "Targets") and the stderr line saying what it took. */
async function resolveTarget(options: GlobalOptions, deps: CommandDeps): Promise<ResolvedTarget> {
  const { resolveSettings, profileNote, settingText } = await import('./settings.js');
  const settings = await resolveSettings(options, deps, deps.runProfile, deps.cwd);
  // A remote's URL (even empty) or token beside a local target; a profile's beside its local engine.
  const { record } = settings;
  const kept = settings.target.from.startsWith('profile ') && (record?.tokenFile ?? record?.token) !== undefined;
  const unused = [
    deps.env.EXAMCTL_BASE_URL !== undefined && 'EXAMCTL_BASE_URL',
    nonEmpty(deps.env.EXAMCTL_TOKEN) && 'EXAMCTL_TOKEN',
    options.tokenFile && '--token-file',
    kept && `the token of ${settings.target.from}`,
  ].find(Boolean);
  let target: ResolvedTarget;
  let passed = '';
  if (settings.target.value === 'remote') {
    if (!deps.resume) refuseUnnamedInCi(settings, deps.env);
    const remote = await remoteTargetOf(settings, { ...deps, tokenFile: options.tokenFile });
    if (!remote) throw noBaseUrlError();
    // Refused here, naming the config file's line; a hint to set it (doctor's too) names the key alone.
    const placed = settingText(settings.baseUrl, 'baseUrl');
    if (placed !== undefined) parseBaseUrl(remote.baseUrl, options.allowInsecureHttp ?? false, placed.origin);
    target = await remoteTarget(remote, options, deps, settingText(settings.baseUrl, 'baseUrl', false)?.origin);
    const typed = options.profile !== undefined || !settings.target.from.startsWith('profile ');
    const here = typed ? undefined : await findStore(options, deps);
    if (here?.found === true) passed = `, the local store ${here.store} passed over`;
  } else {
    // Nothing chose local (a resume: the journal did) while a remote's URL or token is set, or the
    // config folder named is not there (a typo?): refused when the command can send, else said.
    if ((settings.target.from === 'built-in' || kept) && !deps.resume) {
      const dir = deps.env.EXAMCTL_CONFIG_DIR && resolve(deps.env.EXAMCTL_CONFIG_DIR);
      const gone = dir && !(await stat(dir).catch(() => undefined))?.isDirectory();
      const lost = gone ? `EXAMCTL_CONFIG_DIR names ${dir}, no folder, so no profile chose the target` : '';
      // A profile's own token: its URL goes with it (a bare --base-url passes the profile over).
      const name = unused === `the token of ${settings.target.from}` ? record!.name : undefined;
      const ways = name
        ? `examctl config set-profile ${name} --base-url <url>, or --profile ${name} --base-url <url>`
        : '--base-url, EXAMCTL_BASE_URL, a profile';
      const why = unused
        ? `${unused} is set but no base URL is given: give one (${ways})`
        : lost && `${lost}: create it (examctl login, config set-profile), fix the path, name a --store`;
      if (why && deps.sends === true) throw new UsageError(`${why}, or --target local`);
      if (lost) await say(deps, `warning: ${lost}`);
    }
    const store = await usedStorePath(options, deps);
    target = { kind: 'local', store, report: { kind: 'local', store } };
  }
  const from =
    deps.resume !== undefined
      ? "the run's journal"
      : settings.target.value === 'remote' &&
          settings.baseUrl !== undefined &&
          /^(--target|EXAMCTL_TARGET)/.test(settings.target.from)
        ? settings.baseUrl.from
        : settings.target.from;
  const profile = await profileNote(settings, options as SettingFlags, deps);
  // What named the other target: a URL beside --target remote, a resume's journal.
  if (profile?.why) profile.why = profile.why.replace(settings.target.from, from);
  // Where the token was read, never the token, and from which profile when not the settings' (a resume's --profile).
  const stored =
    target.kind === 'remote' && target.tokenSource?.startsWith('profile') === true
      ? target.tokenSource === 'profile'
        ? { token: 'stored' }
        : { tokenFile: target.tokenFile }
      : undefined;
  if (profile?.used === true && stored !== undefined && record?.name === profile.name)
    Object.assign(profile.settings, stored);
  const other =
    stored !== undefined && record !== undefined && record.name !== profile?.name
      ? `profile ${record.name} (${record.via}): ${Object.entries(stored)[0]!.join(' ')}`
      : undefined;
  const tokenFrom =
    target.kind === 'remote' && target.tokenSource?.startsWith('profile') === false
      ? TOKEN_SOURCE_WORDS[target.tokenSource]
      : other;
  // A token given here never goes to the URL of a default profile nothing named.
  if (from.startsWith('profile ') && record?.via === 'the default profile' && tokenFrom !== undefined) {
    const names = `EXAMCTL_BASE_URL, --base-url or --profile ${record.name}`;
    throw new UsageError(
      `the token from ${tokenFrom} would go to the base URL of ${from}, the default profile, which nothing named: name the target (${names})`,
    );
  }
  // A store path a variable gave (a CI job's) is said, beside `--target local` too: the path is the variable's.
  const storeFrom =
    target.kind === 'local' &&
    deps.resume === undefined &&
    options.store === undefined &&
    nonEmpty(deps.env.EXAMCTL_STORE)
      ? 'EXAMCTL_STORE'
      : undefined;
  const targetFrom = storeFrom ?? from;
  target.note = { targetFrom, tokenFrom, ...(profile === undefined ? {} : { profile }) };
  const notUsed = new Set(settings.target.unused);
  if (target.kind === 'local' && unused) notUsed.add(unused);
  // The sync memory's place, for a command that reads or feeds one; a resume's is its journal's.
  const memory = deps.commandFlags?.includes('syncDir')
    ? memoryPlaceOf((options as { syncDir?: string }).syncDir, options.runsDir, deps)
    : undefined;
  const memoryFrom = deps.resume !== undefined && memory?.from === '--sync-dir' ? "the run's journal" : memory?.from;
  if (
    profile !== undefined ||
    target.kind === 'remote' ||
    storeFrom !== undefined ||
    notUsed.size > 0 ||
    (memoryFrom ?? 'built-in') !== 'built-in'
  ) {
    const { describeTarget } = await import('../report/report-writers.js');
    const token =
      (tokenFrom === undefined ? '' : `, token from ${tokenFrom}`) +
      [...notUsed].map((name) => `, ${name} not used`).join('');
    const kept =
      memory === undefined
        ? ''
        : `; sync memory ${memory.kind === 'dir' ? memory.syncDir : redactUrl(memory.address)} (${memoryFrom})`;
    await say(
      deps,
      `${await settingsLine(`${describeTarget(target.report)} (${targetFrom})${token}${passed}`, profile)}${kept}`,
    );
  }
  return target;
}

/**
 * Under CI a remote target is named (docs/ci.md): a base URL only the default profile gives (no
 * --base-url, EXAMCTL_BASE_URL, --profile nor EXAMCTL_PROFILE: a job whose secrets were not
 * injected) is exit 2 before anything is read or sent, naming the profile and the unset variables.
 */
function refuseUnnamedInCi(settings: RunSettings, env: Env): void {
  const { record, baseUrl } = settings;
  if (!isCiEnvironment(env) || record?.via !== 'the default profile' || baseUrl?.from !== `profile ${record.name}`)
    return;
  const empty = ['EXAMCTL_BASE_URL', 'EXAMCTL_TOKEN', 'EXAMCTL_PROFILE']
    .filter((name) => nonEmpty(env[name]) === undefined)
    .map((name) => `${name} ${env[name] === undefined ? 'unset' : 'empty'}`);
  throw new UsageError(
    `CI=true and only the default profile ${record.name} names the remote target ${baseUrl.value} (${empty.join(', ')}: a secret not given to the job?): nothing was sent; name the target with EXAMCTL_BASE_URL or --base-url, or --profile ${record.name} (EXAMCTL_PROFILE=${record.name}) if its host is meant`,
  );
}

/**
 * `target: local store /x (--store); profile hr (--profile): set Role=Author, timezone Europe/London`; the caller
 * adds the sync memory's place (`; sync memory /y (--sync-dir)`).
 */
async function settingsLine(target: string, profile: ProfileNote | undefined): Promise<string> {
  const where = `target: ${target}`;
  if (profile === undefined) return where;
  if (!profile.used) return `${where}; the default profile ${profile.name} is not used: ${profile.why ?? ''}`;
  const { settingsText } = await import('./profile-settings.js');
  const took = settingsText(profile.settings);
  return `${where}; profile ${profile.name} (${profile.via}): ${took === '' ? 'none of its settings is read here' : took}`;
}

async function remoteTarget(
  settings: RemoteTarget,
  options: GlobalOptions,
  deps: CommandDeps,
  via?: string,
): Promise<ResolvedTarget> {
  for (const warning of settings.warnings) await say(deps, `warning: ${warning}`);
  const { baseUrl, token } = settings;
  // A number given (--concurrency, a profile's) holds throughout; the default widens toward `local serve`.
  const given = settings.concurrency;
  const concurrency = given ?? REMOTE_CONCURRENCY;
  const servedConcurrency = given === undefined ? SERVED_CONCURRENCY : undefined;
  const allowInsecureHttp = options.allowInsecureHttp ?? false;
  let said = false;
  let noted = false;
  // The window a run sends through: the note is for a run about to send, not a read of the store's head (doctor, a
  // refused apply).
  const window = (): number => {
    if (!said || servedConcurrency === undefined) return concurrency;
    if (!noted)
      void say(
        deps,
        `concurrency: ${servedConcurrency} in flight from here on, the default toward examctl local serve (--concurrency sets another)`,
      );
    noted = true;
    return servedConcurrency;
  };
  return {
    kind: 'remote',
    baseUrl,
    profile: settings.profile,
    tokenSource: settings.tokenSource,
    tokenFile: settings.tokenFile,
    report: { kind: 'remote', baseUrl },
    remote: {
      get concurrency() {
        return window();
      },
      async connect(signal?: AbortSignal): Promise<IntegrationApi> {
        if (token === undefined) throw noTokenError();
        const { createRemoteClient } = await import('../api/remote-client.js');
        return createRemoteClient({
          baseUrl,
          token,
          // Said `local serve` already (the sync memory asked it): the served window from the first request.
          concurrency: said ? (servedConcurrency ?? concurrency) : concurrency,
          servedConcurrency,
          rate: settings.rate,
          allowInsecureHttp,
          via,
          // Ctrl-C cuts backoff and rate waits short; requests already on the wire get a grace.
          signal: signal ?? deps.signal,
          env: deps.env,
          sleep: deps.retrySleep,
          interruptGraceMs: wholeMillisecondsFromEnv(deps.env, 'EXAMCTL_STOP_GRACE_MS'),
          requestTimeoutMs: requestTimeoutFromEnv(deps.env),
          debug: options.debug ? (line) => void say(deps, `debug: ${line}`) : undefined,
          onStoreSaid: () => void (said = true),
        });
      },
      storeSaid: () => said,
      async checkBaseUrl() {
        parseBaseUrl(baseUrl, allowInsecureHttp, via);
      },
      async probe(path, now) {
        const { probeRemote } = await import('../api/remote-probe.js');
        return probeRemote({ baseUrl, allowInsecureHttp, via, now, env: deps.env, token, signal: deps.signal }, path);
      },
    },
  };
}

export function storeCreatedLine(store: string): string {
  return `created local store at ${store} from ${DEMO_WORLD}`;
}

/** Local: the engine over the store, made from the demo world on first use; a dry run without one only validates. */
export const openTargetApi: ApiFactory = async (target, { dryRun, deps }) => {
  if (target.kind === 'remote') {
    if (dryRun) {
      // A dry run fails where the real run would: a plan for a URL that cannot be used is no plan.
      await target.remote.checkBaseUrl();
      await say(deps, `dry run: validating only, nothing is sent to ${target.baseUrl}`);
      return null;
    }
    return target.remote.connect();
  }
  const noStoreYet = async () => {
    await say(deps, `no store yet at ${target.store}: validating only, nothing created`);
    return null;
  };
  if (dryRun && !(await storeExists(target.store))) return noStoreYet();
  const { openLocalTarget, clockFromEnv, lockTimeoutFromEnv } = await import('../engine/local-target.js');
  if (!dryRun) await ensureStore(target.store, deps);
  const api = await openLocalTarget(target.store, {
    dryRun,
    now: clockFromEnv(deps.env),
    lockTimeoutMs: lockTimeoutFromEnv(deps.env),
  });
  return api ?? noStoreYet();
};

/**
 * The target opened for a read (`review-session show`): an existing local store read-only, without the lock
 * (docs/store.md, "What a read sees"), so a store the user cannot write is read too; only a missing one is
 * created, not in a dry run (exit 2, nothing to read).
 */
export async function openToRead(target: ResolvedTarget, dryRun: boolean, deps: CommandDeps): Promise<IntegrationApi> {
  const readOnly = target.kind === 'local' && (dryRun || (await storeExists(target.store)));
  const api = await (deps.openApi ?? openTargetApi)(target, { dryRun: readOnly, deps });
  if (api === null)
    throw noStoreError(
      target.report.kind === 'local' ? target.report.store : '',
      'nothing to read in a dry run (without --dry-run the read makes it from the demo world)',
    );
  return api;
}

/**
 * A read refused for want of the store it reads (E2302, exit 2), nothing created: `then` says, in the words of
 * the command that reads it, what that means there and how to get one.
 */
export function noStoreError(store: string, then: string): UsageError {
  return new UsageError(`no local store at ${store}: ${then}`, { code: 'E2302' });
}

/** Read-only and never created: a missing store has no links (the demo world's would mislead). */
export async function openStoreDirectory(store: string): Promise<OpenDirectory> {
  const { openLocalTarget } = await import('../engine/local-target.js');
  const engine = await openLocalTarget(store, { dryRun: true });
  if (engine === null)
    throw noStoreError(store, 'no schedule has links yet (schedule push creates the store; --store names another one)');
  return engine;
}

/** A local store's instance id as it is (none: not a local store, or none recorded). */
export async function storeInstance(target: ReportTarget): Promise<string | undefined> {
  if (target.kind !== 'local') return undefined;
  const { readStoreInstance } = await import('../engine/local-target.js');
  return readStoreInstance(target.store);
}

/**
 * Where the target's store stands, and which of `asked` heads it holds (docs/sync.md, "Where the
 * store stands"): a local store's (none: no store yet), a served one's (if `ask`, or once it said it
 * is one); none for the platform, which cannot say. `signal`: as the connection's connect's.
 */
export async function storeHead(
  target: ResolvedTarget,
  asked: readonly string[],
  ask: boolean,
  signal?: AbortSignal,
): Promise<StoreHead | undefined> {
  if (target.kind === 'local') {
    if (!(await storeExists(target.store))) return undefined;
    const { readStoreHead } = await import('../engine/local-target.js');
    return readStoreHead(target.store, asked);
  }
  if (!ask && !target.remote.storeSaid()) return undefined;
  const api = await target.remote.connect(signal);
  return (api.storeHead?.(asked) ?? Promise.resolve(undefined)).finally(() => api.close());
}

/** The local directory for prompts: the store read-only, or with none yet the demo world it will be. */
export const openTargetDirectory: DirectoryFactory = async (target) => {
  if (target.kind !== 'local') return null;
  const { openLocalTarget, loadWorldFile, BUNDLED_WORLD_PATH } = await import('../engine/local-target.js');
  const engine = await openLocalTarget(target.store, { dryRun: true });
  if (engine !== null) return engine;
  const { worldDirectory } = await import('../engine/directory.js');
  const directory = worldDirectory(await loadWorldFile(BUNDLED_WORLD_PATH));
  return { ...directory, close: async () => undefined };
};
