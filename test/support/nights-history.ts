/**
 * The sync memory against the real code, model-based (docs/sync.md, "Where the store stands"):
 * random histories of nights run in this process (runCli: the real pipeline, journal, SentMemory
 * and engine): `user sync --changed-only`, `schedule push --upsert --changed-only` and plain
 * `schedule push` creates, each stopped at a random request as an interrupt stops it (the run's
 * AbortSignal; a spawned kill per step would cost a Node start each), or killed outright (`kill`: what
 * a `kill -9` just before its end leaves on disk: its journal and memory without their end, so no end
 * head either; test/durability/killed-night-restored.test.ts kills a spawned run), `runs resume` and second
 * resumes, copies of the store and of the memory taken between nights or in the middle of one,
 * restores to them (by copy, and in place: rm then copy), compactions, and on the local store another writer (a
 * `user sync` or `schedule push --upsert` of another file, with a memory of its own) between any two of them. On the
 * local store, and through `local serve` (the remote client against the store served in this process).
 *
 * After every run that ends, the store holds what its file says; no request sends a schedule the
 * store already holds, nor a user as the memory last acknowledged it that the store did not change
 * since (a schedule's candidates are the users file's users: a push rewrites them, changing them
 * or not: docs/sync.md, "Drift"), but one a restore undid (a store restore: those it changed and
 * those acknowledged after its copy; a memory restore: those acknowledged after its copy). A
 * create the store already holds would fail ("already exists"): the run would not end.
 *
 * Used by test/sync/nights-property.test.ts and nights-property-served.test.ts (two files: vitest
 * runs them side by side).
 */
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, expect } from 'vitest';
import { runCli } from '../../src/cli/run-cli.js';
import type { ApiFactory } from '../../src/context/command-deps.js';
import { openTargetApi } from '../../src/context/target.js';
import { createLocalEngine } from '../../src/engine/index.js';
import { openStore } from '../../src/engine/store/index.js';
import type { IntegrationApi } from '../../src/port/integration-api.js';
import { storeTokens } from '../../src/server/serve-local.js';
import { startServer, type RunningServer } from '../../src/server/server.js';
import { childEnv } from './child-env.js';
import { PINNED_NOW, ROOT } from './cli.js';
import { StringSink } from './string-sink.js';

/**
 * Whether histories restore the memory: the memory is judged from the store's head (the store holds
 * the memory's newest head and more after it: the memory is older, docs/sync.md, "Where the store
 * stands"). RESTORED_MEMORY, below, is the history that found it judged by the runs directory.
 */
const MEMORY_RESTORES = true;

/** What a night runs: `user sync --changed-only`, `schedule push --upsert --changed-only`, or a plain `schedule push` of new sittings. */
type Kind = 'users' | 'upsert' | 'create';

type Step =
  /**
   * A night of `file` (each record's value), interrupted at its `stop`-th request, a copy taken at its `copyAt`-th;
   * `kill`: then killed outright as it ends (no end recorded).
   */
  | { t: 'night'; kind: Kind; file: number[]; stop: number | null; copyAt: number | null; kill?: boolean }
  /** `runs resume` of the newest run, if it was interrupted (`kill`: as a night's). */
  | { t: 'resume'; stop: number | null; kill?: boolean }
  | { t: 'copy' }
  /** The store compacted (its heads kept through it). */
  | { t: 'compact' }
  /** A restore of the store or of the memory; `fresh`: on a runner without the runs directory (a CI cache restored). */
  | { t: 'restore'; of: 'store' | 'memory'; copy: number; inPlace: boolean; fresh: boolean }
  /**
   * Another writer: a run of `file` with a memory of its own, on the local store only (through `local serve` a resume
   * cannot read the store, so it takes another writer's change of a key it had in flight for its own: docs/runs.md).
   */
  | { t: 'other'; kind: 'users' | 'upsert'; file: number[] };

const users = (file: number[], stop: number | null = null, copyAt: number | null = null, kill = false): Step => ({
  t: 'night',
  kind: 'users',
  file,
  stop,
  copyAt,
  ...(kill && { kill }),
});

/**
 * The shortest history fast-check found with memory restores on: a night, a copy, a second night,
 * the memory restored to the copy (the runs directory still here), and a night of the first file's
 * u1 again: the memory calls u1 unchanged (F1), the store holds the second night's F0, and it
 * stays so. Today the night only warns that the memory "is older than run ...".
 */
const RESTORED_MEMORY: Step[] = [
  users([2, 1, 0]),
  { t: 'copy' },
  users([0, 0, 0]),
  { t: 'restore', of: 'memory', copy: 0, inPlace: false, fresh: false },
  users([0, 1, 0]),
];

/**
 * A store compacted past the newest head of a memory older than it (restored to a copy that misses
 * an acknowledgement): the store still names what it changed since (its serials), so the last night
 * sends u2 again and the store ends holding the file's F0.
 */
const COMPACTED_PAST_MEMORY: Step[] = [
  users([0, 0, 0]),
  { t: 'copy' },
  users([0, 0, 1]),
  { t: 'restore', of: 'memory', copy: 0, inPlace: false, fresh: false },
  { t: 'compact' },
  users([0, 0, 0]),
];

/**
 * A served store copied in the middle of the first night its memory records, restored: that night's start
 * head came with its first answer, so the next night sends exactly what the restore undid.
 */
export const SERVED_FIRST_NIGHT: Step[] = [
  users([0, 0, 0], null, 1),
  { t: 'restore', of: 'store', copy: 0, inPlace: false, fresh: false },
  users([0, 0, 0]),
];

/** Histories found once and kept (fast-check runs them first). */
export const FOUND: Step[][] = [
  // A night stopped at its first request, then another file: what it was to send and did not goes again.
  [users([1, 2, 0]), users([0, 0, 0], 1), users([0, 2, 0])],
  // A store copied in the middle of a night (its lock left out), restored, and the next night.
  [users([0, 0, 0], null, 1), { t: 'restore', of: 'store', copy: 0, inPlace: false, fresh: false }, users([0, 1, 0])],
  // A night stopped, the store restored to before it, a resume stopped again, a second resume.
  [
    users([1, 1, 1]),
    { t: 'copy' },
    users([2, 2, 2], 2),
    { t: 'restore', of: 'store', copy: 0, inPlace: true, fresh: false },
    { t: 'resume', stop: 1 },
    { t: 'resume', stop: null },
  ],
  // A night stopped at its second request, the store restored to a copy taken after its first, a resume: the row
  // the store lost is sent again, though the memory recorded it acknowledged (--changed-only left it out as unchanged).
  [
    users([0, 0, 0], 2, 1),
    { t: 'restore', of: 'store', copy: 0, inPlace: false, fresh: false },
    { t: 'resume', stop: null },
  ],
  // The same, then the same file as a new night: an interrupted served attempt records where it ended, so the restore
  // shows, and the row the store lost is sent again.
  [users([0, 0, 0], 2, 1), { t: 'restore', of: 'store', copy: 0, inPlace: false, fresh: false }, users([0, 0, 0])],
  // A restore to a copy that holds u1's value by chance: u1's later acknowledgement is sent again, exactly that.
  [
    users([0, 2, 0]),
    { t: 'copy' },
    users([0, 0, 0]),
    users([0, 2, 0]),
    { t: 'restore', of: 'store', copy: 0, inPlace: false, fresh: false },
    users([0, 2, 0]),
  ],
  // Issue 78's second scenario: a schedule push stopped, the store restored to a copy taken before it, a resume
  // stopped again, a second resume: every sitting is there, none "already exists", exit 0.
  [
    { t: 'night', kind: 'create', file: [0, 0, 0], stop: null, copyAt: null },
    { t: 'copy' },
    { t: 'night', kind: 'create', file: [1, 1, 1], stop: 2, copyAt: null },
    { t: 'restore', of: 'store', copy: 0, inPlace: false, fresh: false },
    { t: 'resume', stop: 1 },
    { t: 'resume', stop: null },
  ],
  // The same with --upsert --changed-only, after a user sync to the same store (others wrote since).
  [
    { t: 'night', kind: 'upsert', file: [0, 0, 0], stop: null, copyAt: null },
    users([0, 0, 0]),
    { t: 'copy' },
    { t: 'night', kind: 'upsert', file: [1, 1, 1], stop: 2, copyAt: null },
    { t: 'restore', of: 'store', copy: 0, inPlace: true, fresh: false },
    { t: 'resume', stop: 1 },
    { t: 'resume', stop: null },
  ],
  // A night stopped with the store copied at its first request, resumed, the store restored to that copy: the
  // resume's rows the store held stay the first attempt's acknowledgements, so the next night sends none again.
  [
    users([2, 0, 0], 1, 1),
    { t: 'resume', stop: null },
    { t: 'restore', of: 'store', copy: 0, inPlace: false, fresh: false },
    users([2, 0, 0]),
  ],
  // A schedule push stopped, the memory restored to a copy from before it, the resume: refused (E2501), nothing sent.
  [
    users([0, 0, 0]),
    { t: 'copy' },
    { t: 'night', kind: 'upsert', file: [0, 0, 0], stop: 1, copyAt: null },
    { t: 'restore', of: 'memory', copy: 0, inPlace: false, fresh: false },
    { t: 'resume', stop: null },
  ],
  // Through local serve (seed 257822112): the store copied, a night stopped at its first request, the store restored
  // to the copy, the same file again: every user is on the store.
  [
    { t: 'copy' },
    users([0, 0, 0], 1),
    { t: 'restore', of: 'store', copy: 0, inPlace: false, fresh: false },
    users([0, 0, 0]),
  ],
  // A night killed outright (no end head), the store restored to a copy taken at its first request, the same file:
  // what it acknowledged after the copy is sent again (before, the store was "ahead" of its start head: u1, u2 missing).
  [
    users([0, 0, 0]),
    users([1, 1, 1], null, 1, true),
    { t: 'restore', of: 'store', copy: 0, inPlace: false, fresh: false },
    users([1, 1, 1]),
  ],
  // A schedule push between two user syncs rewrites its candidates as the store holds them: it changes no user, so
  // the second user sync sends none again (before f84ce7ec it sent all three, from the schedule memory's registrations).
  [users([0, 0, 0]), { t: 'night', kind: 'upsert', file: [0, 0, 0], stop: null, copyAt: null }, users([0, 0, 0])],
  // A user sync killed outright, then a push renames u2: the next user sync sends u2 again (the killed run's
  // acknowledgements after its last batch head go again, docs/sync.md, the killed-run row), so the store holds F2.
  [
    users([0, 0, 2], null, null, true),
    { t: 'night', kind: 'create', file: [0, 0, 0], stop: null, copyAt: null },
    users([0, 0, 2]),
  ],
  // The store restored to a copy from before a night, then a push renames u2 (acknowledged before that copy): the
  // next user sync sends u2 again, one the store changed since the head it holds, whoever changed it.
  [
    users([1, 1, 2]),
    { t: 'copy' },
    users([0, 0, 2]),
    { t: 'restore', of: 'store', copy: 0, inPlace: false, fresh: false },
    { t: 'night', kind: 'create', file: [0, 0, 0], stop: null, copyAt: null },
    users([0, 0, 2]),
  ],
  ...(MEMORY_RESTORES ? [RESTORED_MEMORY] : []),
  COMPACTED_PAST_MEMORY,
  // A night stopped at its first request, another writer renames every user, the resume: the rows the night had in
  // flight are sent again (the store holds other values than they write), so the store holds the night's F0.
  [users([0, 0, 0], 1), { t: 'other', kind: 'users', file: [2, 2, 2] }, { t: 'resume', stop: null }],
  // Through local serve (seed 175647789): a night killed as it ends, the same file stopped at its first request (u0
  // sent again, a write that changed nothing), the resume: u0 stands (local serve says `unchanged`), not sent again.
  [users([0, 0, 0], null, null, true), users([0, 0, 0], 1), { t: 'resume', stop: null, kill: true }],
  // A night that found every row unchanged, killed as it ends, another writer renames u2, the resume: u2, kept as
  // unchanged, is sent again (the store holds other values than the row's), so the store holds F0.
  [
    users([0, 0, 0]),
    users([0, 0, 0], null, null, true),
    { t: 'other', kind: 'users', file: [0, 0, 1] },
    { t: 'resume', stop: null },
  ],
  // Through local serve: a push killed as it ends (the store copied at its first request), a user sync, the same
  // file again killed as it ends (every row judged unchanged), the store restored to the copy, the resume: the memory
  // is of another store now, so the rows it judged unchanged are sent (they stood kept, exit 0, the store lacked them).
  [
    { t: 'night', kind: 'create', file: [0, 0, 0], stop: null, copyAt: 1, kill: true },
    users([1, 0, 0]),
    users([1, 0, 0], null, null, true),
    { t: 'restore', of: 'store', copy: 0, inPlace: false, fresh: false },
    { t: 'resume', stop: null, kill: true },
  ],
  // Three nights killed as they end (the first copied at its first request), the store restored to that copy, a
  // resume stopped at its first request, a second resume: the row the first resume applied (after the restore) stands;
  // judged against the run's start head, which the store lacks, it went again.
  [
    users([0, 0, 0], null, 1, true),
    users([0, 0, 1], null, null, true),
    users([0, 0, 0], null, null, true),
    { t: 'restore', of: 'store', copy: 0, inPlace: false, fresh: false },
    { t: 'resume', stop: 1 },
    { t: 'resume', stop: null, kill: true },
  ],
  // Another writer's push whose only change was its candidates' users: the next --changed-only push sends no
  // schedule again (the store changed none of them; a fix that records such a call as changing each schedule fails).
  [
    { t: 'night', kind: 'upsert', file: [0, 1, 0], stop: null, copyAt: null },
    users([0, 1, 0], null, null, true),
    { t: 'other', kind: 'upsert', file: [0, 1, 0] },
    { t: 'night', kind: 'upsert', file: [0, 1, 0], stop: null, copyAt: null, kill: true },
  ],
  // A night stopped, the store restored to before it, a resume killed after it wrote new heads, a second resume: the
  // rows the restore undid go again (the memory's newest head is the killed resume's, which the store holds).
  [
    users([1, 1, 1]),
    { t: 'copy' },
    users([2, 2, 2], 3),
    { t: 'restore', of: 'store', copy: 0, inPlace: false, fresh: false },
    { t: 'resume', stop: 3, kill: true },
    { t: 'resume', stop: null },
  ],
  // The same with a new night after the restore, killed, then the resume of the first night.
  [
    users([1, 1, 1]),
    { t: 'copy' },
    users([2, 2, 2], 3),
    { t: 'restore', of: 'store', copy: 0, inPlace: false, fresh: false },
    users([0, 1, 1], null, null, true),
    users([2, 2, 2]),
  ],
  // Another writer's push, a user sync renaming u1, a push stopped after S-1's answer, a resume (seed 155225983):
  // S-1's request changed only its candidate's user (u1), so the store records no change of S-1's key; the resume
  // keeps S-1's answer because the store holds the head after the commit that answer carried.
  [
    { t: 'other', kind: 'upsert', file: [2, 0, 0] },
    users([0, 1, 0], null, null, true),
    { t: 'night', kind: 'upsert', file: [0, 0, 0], stop: 2, copyAt: null },
    { t: 'resume', stop: null, kill: true },
  ],
];

/** Records per night. */
const RECORDS = 3;
/**
 * Each schedule's candidate: the users file's user of its position, by one of the names a users file gives (a push
 * rewrites a user the users file named otherwise, and leaves one it named so as it is).
 */
const CANDIDATE_NAME = 'F0';
/** A served run's requests one at a time: stopped at its n-th, it sends no later one (several in flight would all go). */
const ONE_AT_A_TIME = ['--yes', '--concurrency', '1'];
/** The group every schedule's candidates join, and every user of the users file is in (a push adds no membership). */
const GROUP = 'H-NORTH';
const USER_HEADER = 'ExternalId,FirstName,LastName,Email,UserName,Role,Hierarchies';
const SITTING_HEADER =
  'ScheduleExtId,AssessmentExtId,Title,StartDateTime,EndDateTime,GroupExtId,GroupName,CandidateExtId,FirstName,LastName,Email';

const stop = fc.option(fc.integer({ min: 1, max: RECORDS }), { nil: null, freq: 2 });
/** A run killed outright one time in four. */
const kill = fc.nat({ max: 3 }).map((n) => n === 0);
const steps: fc.Arbitrary<Step[]> = fc.array(
  fc.oneof(
    {
      weight: 5,
      arbitrary: fc.record({
        t: fc.constant('night' as const),
        kind: fc.constantFrom<Kind>('users', 'users', 'upsert', 'create'),
        file: fc.array(fc.integer({ min: 0, max: 2 }), { minLength: RECORDS, maxLength: RECORDS }),
        stop,
        copyAt: fc.option(fc.integer({ min: 1, max: RECORDS }), { nil: null, freq: 4 }),
        kill,
      }),
    },
    { weight: 3, arbitrary: fc.record({ t: fc.constant('resume' as const), stop, kill }) },
    { weight: 2, arbitrary: fc.record({ t: fc.constant('copy' as const) }) },
    { weight: 2, arbitrary: fc.record({ t: fc.constant('compact' as const) }) },
    {
      weight: 2,
      arbitrary: fc.record({
        t: fc.constant('other' as const),
        kind: fc.constantFrom('users' as const, 'upsert' as const),
        file: fc.array(fc.integer({ min: 0, max: 2 }), { minLength: RECORDS, maxLength: RECORDS }),
      }),
    },
    {
      weight: 3,
      arbitrary: fc.record({
        t: fc.constant('restore' as const),
        of: MEMORY_RESTORES ? fc.constantFrom('store' as const, 'memory' as const) : fc.constant('store' as const),
        copy: fc.nat({ max: 7 }),
        inPlace: fc.boolean(),
        fresh: fc.boolean(),
      }),
    },
  ),
  { minLength: 1, maxLength: 6 },
);

/** What the histories did, in all: each kind of step must have happened. */
const tally = { requests: 0, schedules: 0, rewrites: 0, resumes: 0, restores: 0, stopped: 0, killed: 0, others: 0 };

let root = '';
let template = '';
let histories = 0;

/** The histories' directory and the store template every history copies, made once per file. */
export function nightsTemplate(): void {
  beforeAll(async () => {
    root = mkdtempSync(join(existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), 'examctl-nights-'));
    template = join(root, 'template');
    const init = ['local', 'init', '--store', 'store', '--seed', join(ROOT, 'fixtures', 'world.json')];
    expect((await cli(template, init)).code).toBe(0);
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));
}

async function cli(
  dir: string,
  args: readonly string[],
  openApi?: ApiFactory,
  signal?: AbortSignal,
): Promise<{ code: number; stderr: string }> {
  const stderr = new StringSink();
  const code = await runCli(args, {
    stdout: new StringSink(),
    stderr,
    env: {
      ...childEnv(dir),
      EXAMCTL_NOW: PINNED_NOW,
      EXAMCTL_RUNS_DIR: join(dir, 'runs'),
      EXAMCTL_SYNC_DIR: join(dir, 'synced'),
      EXAMCTL_TOKEN: 'dev-token',
      EXAMCTL_LOCK_TIMEOUT_MS: '1000',
    },
    now: () => new Date(),
    isTTY: false,
    cwd: dir,
    openApi,
    signal,
  });
  return { code, stderr: stderr.text };
}

/** The users' FirstName and the schedules' Title in the store, by `users:<id>` and `schedules:<id>` (read without its lock: a served store stays open). */
async function storeValues(store: string): Promise<Map<string, string>> {
  const opened = await openStore(store, { readOnly: true });
  const values = new Map<string, string>();
  for (const [collection, field] of [
    ['users', 'FirstName'],
    ['schedules', 'Title'],
  ] as const)
    for (const [id, entity] of opened.state.get(collection) ?? new Map())
      values.set(`${collection}:${id}`, String((entity as Record<string, unknown>)[field]));
  await opened.close();
  return values;
}

/** A night's records: their keys in the model, and the value each file value gives. */
function recordsOf(kind: Kind, index: number) {
  const ids = Array.from({ length: RECORDS }, (_, n) =>
    kind === 'users' ? `u${n}` : kind === 'upsert' ? `S-${n}` : `C${index}-${n}`,
  );
  const collection = kind === 'users' ? 'users' : 'schedules';
  return {
    keys: ids.map((id) => `${collection}:${id}`),
    value: (value: number) => `${kind === 'users' ? 'F' : 'T'}${value}`,
    text: (file: readonly number[]) =>
      `${[
        kind === 'users' ? USER_HEADER : SITTING_HEADER,
        ...file.map((value, n) =>
          kind === 'users'
            ? `u${n},F${value},Last,u${n}@example.test,u${n},Candidate,${GROUP}`
            : `${ids[n]},A-MATH-1,T${value},2026-12-14T09:00:00Z,2026-12-14T12:00:00Z,${GROUP},North,u${n},${CANDIDATE_NAME},Last,u${n}@example.test`,
        ),
      ].join('\n')}\n`,
    args: (name: string) =>
      kind === 'users'
        ? ['user', 'sync', '--file', name, '--changed-only', '--allow-old-file']
        : kind === 'upsert'
          ? ['schedule', 'push', '--file', name, '--upsert', '--changed-only', '--allow-old-file']
          : ['schedule', 'push', '--file', name],
  };
}

/** What one history found wrong, if anything (thrown: fast-check shrinks it). */
async function history(served: boolean, history: readonly Step[]): Promise<void> {
  const dir = join(root, `h${histories++}`);
  cpSync(template, dir, { recursive: true });
  const store = join(dir, 'store');
  const memory = join(dir, 'synced');
  /** Each copy, the number of acknowledgements before it, and (a store's) the records it holds. */
  const copies: {
    of: 'store' | 'memory';
    path: string;
    acks: number;
    values: Map<string, string>;
    during: string[];
  }[] = [];
  /** The records the store holds, kept by each request it takes (only these change them) and by restores. */
  let values = new Map<string, string>();
  let acks = 0;
  const lastAck = new Map<string, number>();
  /** What each user's last acknowledged request gave: a user sync sends it again only if the file changed it since. */
  const userAcks = new Map<string, string>();
  /** Records a restore undid: sending one the store holds is no waste. */
  const mayResend = new Set<string>();
  /** The newest run, its records and file, and whether it ended. */
  // `memoryRestored`: the memory was put back since the run began, so a resume may be refused (E2501: docs/runs.md).
  // `overOthers`: another writer ran since, so a resume goes over its later run (--over-later-runs: docs/runs.md).
  let newest:
    | { run: string; keys: string[]; values: string[]; ended: boolean; memoryRestored?: boolean; overOthers?: boolean }
    | undefined;
  let server: RunningServer | undefined;
  let port = 0;
  let closeEngine: (() => Promise<void>) | undefined;

  /** The attempt under way: its requests, the records they went to, when to stop, when to copy. */
  let now = {
    sent: 0,
    keys: new Set<string>(),
    stopAt: null as number | null,
    copyAt: null as number | null,
    abort: new AbortController(),
    /** What `acks` was as the night began. */
    from: 0,
    /** The first request sent again that the store held as sent. */
    wasted: undefined as Error | undefined,
  };
  /** `midNight`: taken during a night, whose acknowledgements so far a restore to it sends again (docs/sync.md). */
  const copy = (of: 'store' | 'memory', midNight = false) => {
    const path = join(dir, `copy${copies.length}`);
    if (existsSync(of === 'store' ? store : memory)) {
      // Not the store's LOCK of this process's open store (mid-night): a copy's would be a dead process's.
      cpSync(of === 'store' ? store : memory, path, { recursive: true, filter: (from) => !from.endsWith('LOCK') });
      const during = midNight ? [...lastAck].filter(([, ack]) => ack > now.from).map(([key]) => key) : [];
      copies.push({ of, path, acks, values: new Map(values), during });
    }
  };
  /** One request, counted and checked where it arrives; what it changes when the store takes it. */
  const request = async <A extends { status: number }>(key: string, value: string, send: () => Promise<A>) => {
    const n = ++now.sent;
    tally.requests++;
    now.keys.add(key);
    const held = values.get(key) === value;
    // A user by the memory (a push writes users too), a schedule by the store (only pushes write one).
    const known = key.startsWith('users:') ? userAcks.get(key) === value : held;
    if (known && !mayResend.has(key)) {
      // Thrown where the run reads it too: through local serve, as the server's 500, so the attempt rethrows it.
      now.wasted ??= new Error(`${key} sent again though the store held ${value} as sent`);
      throw now.wasted;
    }
    if (n === now.stopAt) now.abort.abort();
    const answer = await send();
    if (answer.status < 300) {
      values.set(key, value);
      mayResend.delete(key);
      lastAck.set(key, ++acks);
      if (key.startsWith('users:')) userAcks.set(key, value);
    }
    if (n === now.copyAt) copy('store', true);
    return answer;
  };
  /**
   * A push's candidate written to its user (docs/engine-rules.md): its name (the group's membership the users file
   * gives too). A user it changes is one the store changed since the memory's last acknowledgement: the next user
   * sync sends it.
   */
  const rewrite = (candidate: { CandidateExtId: string; FirstName: string }) => {
    const key = `users:${candidate.CandidateExtId}`;
    if (values.get(key) === candidate.FirstName) return;
    values.set(key, candidate.FirstName);
    mayResend.add(key);
    tally.rewrites++;
  };
  /** The engine, counting and checking each request at the port (or at the local target). */
  const watched = (api: IntegrationApi): IntegrationApi =>
    Object.assign(Object.create(api) as IntegrationApi, {
      upsertUser: (user: Parameters<IntegrationApi['upsertUser']>[0], options?: object) =>
        request(`users:${user.ExternalId}`, user.FirstName, () => api.upsertUser(user, options)),
      createSchedule: (schedule: Parameters<IntegrationApi['createSchedule']>[0], options?: object) => {
        tally.schedules++;
        return request(`schedules:${schedule.Schedule.ScheduleExtId}`, String(schedule.Schedule.Title), async () => {
          const answer = await api.createSchedule(schedule, options);
          if (answer.status < 300) for (const candidate of schedule.Candidates) rewrite(candidate);
          return answer;
        });
      },
    });
  const serve = async () => {
    const opened = await openStore(store);
    const engine = createLocalEngine({ store: opened });
    closeEngine = () => engine.close();
    server = await startServer({ api: watched(engine), tokens: storeTokens(opened), port });
    port = server.port;
  };
  const stopServing = async () => {
    await server?.close();
    await closeEngine?.();
    server = undefined;
  };
  const target = () =>
    served ? ['--target', 'remote', '--base-url', `http://127.0.0.1:${port}`, ...ONE_AT_A_TIME] : ['--store', 'store'];
  const local: ApiFactory = async (resolved, options) => {
    const api = await openTargetApi(resolved, options);
    return api && (served ? api : watched(api));
  };

  const attempt = async (
    args: string[],
    keys: string[],
    file: string[],
    stopAt: number | null,
    copyAt: number | null,
    refusable?: string,
    kill = false,
  ) => {
    const before = new Map(values);
    now = { sent: 0, keys: new Set(), stopAt, copyAt, abort: new AbortController(), from: acks, wasted: undefined };
    const done = await cli(dir, args, local, now.abort.signal);
    if (now.wasted !== undefined) throw now.wasted;
    const run = /\brun (\S+) \(examctl runs show/.exec(done.stderr)?.[1];
    const killed = kill && run !== undefined && killedAtEnd(run);
    const ended = done.code === 0 && !killed;
    if (!ended) tally.stopped++;
    // What a stopped run was to send and did not may have gone out, as far as the memory knows (its
    // intents are written ahead: a kill leaves them so): the next run sends it again.
    if (!ended)
      for (const [n, key] of keys.entries()) if (!now.keys.has(key) && before.get(key) !== file[n]) mayResend.add(key);
    // What a killed run acknowledged after its last batch head goes again, whatever the store changed since
    // (docs/sync.md, the killed-run row): a history's night is one batch, so all it sent.
    if (killed) for (const key of now.keys) mayResend.add(key);
    const refused = refusable !== undefined && done.code === 2 && done.stderr.includes(`examctl: ${refusable}:`);
    expect(done.code === 0 || refused || (stopAt !== null && now.abort.signal.aborted), done.stderr).toBe(true);
    if (done.code === 0) {
      // A run that ends leaves the store as its file says.
      const held = await storeValues(store);
      expect(
        keys.map((key) => held.get(key)),
        done.stderr,
      ).toEqual(file);
    }
    return { ended, run };
  };
  /**
   * What a `kill -9` of run `run` just before its end leaves (its acknowledgements written, its end not): the
   * journal's end line and the memory's end of the run (the head it ended at) cut off. False: nothing to cut.
   */
  const killedAtEnd = (run: string): boolean => {
    const journal = join(dir, 'runs', run, 'journal.ndjson');
    if (!cutLast(journal, (line) => line.includes('"t":"end"'))) return false;
    for (const memoryDir of existsSync(memory) ? readdirSync(memory) : [])
      for (const name of ['users.ndjson', 'schedules.ndjson'])
        cutLast(
          join(memory, memoryDir, name),
          (line) => line.includes(`"t":"population"`) && line.includes(`"r":"${run}"`) && line.includes('"e":true'),
        );
    tally.killed++;
    return true;
  };

  try {
    if (served) await serve();
    for (const [index, step] of history.entries()) {
      if (step.t === 'night') {
        const name = `night${index}.csv`;
        const records = recordsOf(step.kind, index);
        writeFileSync(join(dir, name), records.text(step.file));
        const file = step.file.map(records.value);
        const args = [...records.args(name), ...target()];
        const { ended, run } = await attempt(args, records.keys, file, step.stop, step.copyAt, undefined, step.kill);
        newest = run === undefined ? undefined : { run, keys: records.keys, values: file, ended };
      } else if (step.t === 'resume' && newest !== undefined && !newest.ended) {
        const args = [
          'runs',
          'resume',
          newest.run,
          ...(served ? ['--base-url', `http://127.0.0.1:${port}`, ...ONE_AT_A_TIME] : []),
          ...(newest.overOthers ? ['--over-later-runs'] : []),
        ];
        const refusable = newest.memoryRestored ? 'E2501' : undefined;
        newest.ended = (await attempt(args, newest.keys, newest.values, step.stop, null, refusable, step.kill)).ended;
        tally.resumes++;
      } else if (step.t === 'other' && !served) {
        // Not watched: its requests are not this population's. What it changed, the next run may send again.
        const name = `other${index}.csv`;
        const records = recordsOf(step.kind, index);
        writeFileSync(join(dir, name), records.text(step.file));
        const other = [...records.args(name).filter((arg) => arg !== '--changed-only'), '--sync-dir', 'other-synced'];
        const done = await cli(dir, [...other, ...target()]);
        expect(done.code, done.stderr).toBe(0);
        for (const [key, value] of await storeValues(store))
          if (values.get(key) !== value) {
            values.set(key, value);
            mayResend.add(key);
          }
        if (newest !== undefined) newest.overOthers = true;
        tally.others++;
      } else if (step.t === 'copy') {
        copy('store');
        copy('memory');
      } else if (step.t === 'compact') {
        if (served) await stopServing();
        const opened = await openStore(store);
        await opened.compact();
        await opened.close();
        if (served) await serve();
      } else if (step.t === 'restore') {
        const chosen = copies.filter((one) => one.of === step.of);
        if (chosen.length === 0) continue;
        const { path, acks: before, values: copied, during } = chosen[step.copy % chosen.length]!;
        const into = step.of === 'store' ? store : memory;
        tally.restores++;
        if (served && step.of === 'store') await stopServing();
        if (step.inPlace) for (const name of readdirSync(into)) rmSync(join(into, name), { recursive: true });
        else rmSync(into, { recursive: true });
        cpSync(path, into, { recursive: true });
        if (step.of === 'store') {
          // A copy taken mid-night: what that night acknowledged after its newest batch head goes again, held or
          // not (a change since may be another writer's); a history's night is one batch.
          for (const key of during) mayResend.add(key);
          for (const key of new Set([...values.keys(), ...copied.keys()]))
            if (values.get(key) !== copied.get(key)) mayResend.add(key);
          values = new Map(copied);
        }
        // What was acknowledged after the copy goes again, exactly that (docs/sync.md, "Where the store stands").
        for (const [key, ack] of lastAck) if (ack > before) mayResend.add(key);
        if (served && step.of === 'store') await serve();
        if (step.of === 'memory' && newest !== undefined) newest.memoryRestored = true;
        if (step.of === 'memory' && step.fresh) {
          rmSync(join(dir, 'runs'), { recursive: true, force: true });
          newest = undefined;
        }
      }
    }
  } finally {
    await stopServing();
  }
  rmSync(dir, { recursive: true, force: true });
}

/** Cuts the file's last line off where `is` says it is the one (a file there); whether it did. */
function cutLast(file: string, is: (line: string) => boolean): boolean {
  if (!existsSync(file)) return false;
  const lines = readFileSync(file, 'utf8').split('\n');
  const last = lines.at(-2);
  if (lines.at(-1) !== '' || last === undefined || !is(last)) return false;
  writeFileSync(file, `${lines.slice(0, -2).join('\n')}\n`);
  return true;
}

/** Runs `count` random histories (after `examples`), then checks that every kind of step happened. */
export async function checkHistories(served: boolean, count: number, examples: Step[][]): Promise<void> {
  await fc.assert(
    fc.asyncProperty(steps, (each) => history(served, each)),
    { numRuns: count, examples: examples.map((found) => [found]) },
  );
  // Every kind of step happened (another writer on the local store only), and the requests were counted where they
  // arrive.
  expect(
    Object.entries(tally).every(([kind, count]) => count > 0 || (served && kind === 'others')),
    JSON.stringify(tally),
  ).toBe(true);
}
