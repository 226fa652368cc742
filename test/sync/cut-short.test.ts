import { writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startExamctl, type Running } from '../durability/helpers.js';
import { examctlStep as examctl } from '../support/in-process.js';
import { okEnvelope, startFaultServer, type FaultServer } from '../support/fault-server.js';
import { lineWith } from '../support/facts.js';

/**
 * A night killed as a request arrives (applied, its answer lost) and never resumed: the next
 * nights must not take the memory's older entry for what the platform holds (docs/sync.md, "A
 * request cut short"; QA 41-A F1 and F2). The loopback service keeps users as a platform would
 * and kills examctl (SIGKILL) once it applied the marked request, before answering it.
 */

interface Link {
  ExternalId: string;
  Action?: string;
  IsAdministrator?: boolean;
}
interface Held {
  FirstName: string;
  disabled: boolean;
  links: Map<string, boolean>;
}

let dir: string;
let env: Record<string, string>;
let server: FaultServer;
let platform: Map<string, Held>;
/** The run to kill, and the request that kills it (after it is applied). */
let running: Running | undefined;
let killOn: ((user: Record<string, unknown>) => boolean) | undefined;
/** Killed as the request arrives, before it is applied (the answer is never sent). */
let killBeforeApply = false;
/** Answered 200 with a body no client reads, before it is applied (in process: the answer is lost). */
let loseAnswer: ((user: Record<string, unknown>) => boolean) | undefined;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'examctl-cut-short-'));
  env = { EXAMCTL_RUNS_DIR: join(dir, 'state', 'runs'), EXAMCTL_TOKEN: 'dev-token' };
  platform = new Map();
  running = undefined;
  killOn = undefined;
  killBeforeApply = false;
  loseAnswer = undefined;
  server = await startFaultServer();
  server.fallback = (request) => {
    const user = JSON.parse(request.body) as Record<string, unknown> & { ExternalId: string; Hierarchies?: Link[] };
    if (killOn?.(user) === true && killBeforeApply) {
      running?.child.kill('SIGKILL');
      return { hold: new Promise<void>(() => undefined) };
    }
    if (loseAnswer?.(user) === true) return { status: 200, body: '<html>gateway</html>' };
    // As the platform: a user is created only with a role (240).
    if (!platform.has(user.ExternalId) && typeof user.Role !== 'string') {
      return {
        status: 400,
        body: { Content: null, Success: false, Errors: [{ Code: 240, Message: 'Role null or empty.' }] },
      };
    }
    const held = platform.get(user.ExternalId) ?? { FirstName: '', disabled: false, links: new Map<string, boolean>() };
    if (typeof user.FirstName === 'string') held.FirstName = user.FirstName;
    if (typeof user.DisableLogin === 'boolean') held.disabled = user.DisableLogin;
    for (const link of user.Hierarchies ?? []) {
      if (link.Action === 'DELETE') held.links.delete(link.ExternalId);
      else held.links.set(link.ExternalId, link.IsAdministrator ?? held.links.get(link.ExternalId) ?? false);
    }
    platform.set(user.ExternalId, held);
    if (killOn?.(user) === true) running?.child.kill('SIGKILL');
    return okEnvelope({ User: { ExternalId: user.ExternalId }, GroupErrors: [] });
  };
});
afterEach(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

const NIGHTLY = ['--changed-only', '--disable-missing', '--prune-memberships'];
const args = (file: string, flags: readonly string[]) => [
  'user',
  'sync',
  '--file',
  file,
  '--target',
  'remote',
  '--base-url',
  server.url,
  '--allow-insecure-http',
  '--yes',
  '--json',
  ...flags,
];
const night = (file: string, flags: readonly string[] = NIGHTLY) => examctl(args(file, flags), dir, env);
/** The nightly flags for a file an older run read while the killed run read another (docs/sync.md, "Stale input"): meant here. */
const OLD_FILE_AGAIN = [...NIGHTLY, '--allow-old-file'];

/** A night the service kills once it applied the request `when` picks. */
async function killedNight(file: string, when: (user: Record<string, unknown>) => boolean) {
  killOn = when;
  running = startExamctl(args(file, NIGHTLY), dir, env);
  const killed = await running.done;
  killOn = undefined;
  running = undefined;
  return killed;
}

function writeUsers(file: string, rows: readonly [id: string, first: string, hierarchies: string][]): void {
  const lines = [
    'ExternalId,FirstName,LastName,Role,Hierarchies',
    ...rows.map(([id, first, hierarchies]) => `${id},${first},Last,Candidate,${hierarchies}`),
  ];
  writeFileSync(join(dir, file), `${lines.join('\n')}\n`);
}

const ids = ['u-1', 'u-2', 'u-3', 'u-4', 'u-5'];

describe('a night killed as a request arrives, not resumed', () => {
  it("a leaver's disable applied, its answer lost: back in the file, the user is enabled again (F1)", async () => {
    writeUsers(
      'all.csv',
      ids.map((id) => [id, 'Ann', 'H-A']),
    );
    writeUsers(
      'without-u3.csv',
      ids.filter((id) => id !== 'u-3').map((id) => [id, 'Ann', 'H-A']),
    );
    expect((await night('all.csv')).code).toBe(0);
    const killed = await killedNight(
      'without-u3.csv',
      (user) => user.ExternalId === 'u-3' && user.DisableLogin === true,
    );
    expect(killed.signal).toBe('SIGKILL');
    expect(platform.get('u-3')?.disabled).toBe(true);
    // synced show says what the next run sends again; a disable with no ok on record is unsettled, not counted disabled.
    const shown = await examctl(['synced', 'show'], dir, env);
    expect(shown.stdout).toMatch(
      /\d users, [1-9]\d* unsettled \(a request went out, or was about to, with no ok recorded: the next run sends them\)/,
    );
    const json = JSON.parse((await examctl(['synced', 'show', '--json'], dir, env)).stdout) as {
      memories: { unsettled: number; disabled: number }[];
    };
    expect(json.memories[0]).toMatchObject({ disabled: 0 });
    expect(json.memories[0]!.unsettled).toBeGreaterThanOrEqual(1);
    const back = await night('all.csv', OLD_FILE_AGAIN);
    expect(back.code, back.stderr).toBe(0);
    expect(platform.get('u-3')?.disabled).toBe(false);
    const items = (JSON.parse(back.stdout) as { items: { id: string; action?: string }[] }).items;
    expect(items.filter((item) => item.action !== 'unchanged').map((item) => item.id)).toEqual(['u-3']);
    // Settled: the next night sends nothing.
    const after = await night('all.csv');
    expect(
      (JSON.parse(after.stdout) as { items: { action?: string }[] }).items.every((item) => item.action === 'unchanged'),
    ).toBe(true);
  });

  it('the same disable cut short, the user still missing: disabled again, then left alone', async () => {
    writeUsers(
      'all.csv',
      ids.map((id) => [id, 'Ann', 'H-A']),
    );
    writeUsers(
      'without-u3.csv',
      ids.filter((id) => id !== 'u-3').map((id) => [id, 'Ann', 'H-A']),
    );
    expect((await night('all.csv')).code).toBe(0);
    expect(
      (await killedNight('without-u3.csv', (user) => user.ExternalId === 'u-3' && user.DisableLogin === true)).signal,
    ).toBe('SIGKILL');
    const again = await night('without-u3.csv');
    expect(again.code, again.stderr).toBe(0);
    const items = (JSON.parse(again.stdout) as { items: { id: string; action?: string }[] }).items;
    expect(items.filter((item) => item.action !== 'unchanged').map((item) => [item.id, item.action])).toEqual([
      ['u-3', 'disabled'],
    ]);
    const next = await night('without-u3.csv');
    expect(
      (JSON.parse(next.stdout) as { items: { action?: string }[] }).items.every((item) => item.action === 'unchanged'),
    ).toBe(true);
  });

  it("a wrong export's administrator link and name applied, the answer lost: the next night's right export removes the link and restores the name (F2)", async () => {
    writeUsers(
      'right.csv',
      ids.map((id) => [id, 'Ann', 'H-A']),
    );
    writeUsers(
      'wrong.csv',
      ids.map((id) => [id, id === 'u-2' ? 'Wrong' : 'Ann', id === 'u-2' ? 'H-A|H-NORTH:administrator' : 'H-A']),
    );
    expect((await night('right.csv')).code).toBe(0);
    expect((await killedNight('wrong.csv', (user) => user.ExternalId === 'u-2')).signal).toBe('SIGKILL');
    expect(platform.get('u-2')?.links.get('H-NORTH')).toBe(true);
    const fixed = await night('right.csv', OLD_FILE_AGAIN);
    expect(fixed.code, fixed.stderr).toBe(0);
    const held = platform.get('u-2')!;
    expect(held.FirstName).toBe('Ann');
    expect([...held.links.keys()]).toEqual(['H-A']);
    const items = (JSON.parse(fixed.stdout) as { items: { id: string; removed?: string[] }[] }).items;
    expect(items.find((item) => item.id === 'u-2')?.removed).toEqual(['H-NORTH']);
  });

  it('a joiner cut short after it was applied, gone from the next file: disabled', async () => {
    writeUsers('first.csv', [['u-1', 'Ann', 'H-A']]);
    writeUsers('with-joiner.csv', [
      ['u-1', 'Ann', 'H-A'],
      ['u-9', 'Joe', 'H-A'],
    ]);
    expect((await night('first.csv')).code).toBe(0);
    expect((await killedNight('with-joiner.csv', (user) => user.ExternalId === 'u-9')).signal).toBe('SIGKILL');
    expect(platform.has('u-9')).toBe(true);
    const gone = await night('first.csv', OLD_FILE_AGAIN);
    expect(gone.code, gone.stderr).toBe(0);
    expect(platform.get('u-9')?.disabled).toBe(true);
  });

  it('a joiner cut short before it was applied, then gone: its disable is answered 240 (not on the target), reported ok, not sent again', async () => {
    writeUsers('first.csv', [['u-1', 'Ann', 'H-A']]);
    writeUsers('with-joiner.csv', [
      ['u-1', 'Ann', 'H-A'],
      ['u-9', 'Joe', 'H-A'],
    ]);
    expect((await night('first.csv')).code).toBe(0);
    killBeforeApply = true;
    expect((await killedNight('with-joiner.csv', (user) => user.ExternalId === 'u-9')).signal).toBe('SIGKILL');
    killBeforeApply = false;
    expect(platform.has('u-9')).toBe(false);
    const gone = await night('first.csv', OLD_FILE_AGAIN);
    expect(gone.code, gone.stderr).toBe(0);
    const report = JSON.parse(gone.stdout) as {
      items: { id: string; status: string; action?: string; note?: string }[];
      summary: Record<string, number>;
    };
    const item = report.items.find((entry) => entry.id === 'u-9');
    // No login was turned off: the target changed nothing, and no summary counts it disabled.
    expect(item).toMatchObject({ status: 'ok', action: 'unchanged' });
    expect(item?.note).toContain('not on the target');
    expect(report.summary).toMatchObject({ ok: 2, unchanged: 2 });
    expect(report.summary.disabled).toBeUndefined();
    expect(lineWith(gone.stderr, '2 ok: ', '2 unchanged')).toBeTruthy();
    expect(lineWith(gone.stderr, '1 unchanged', 'not sent')).toBeTruthy();
    expect(platform.has('u-9')).toBe(false);
    const sent = server.requests.length;
    expect((await night('first.csv')).code).toBe(0);
    expect(server.requests.length - sent).toBe(0);
    // Back in a later file, it is created (DisableLogin false, with its role).
    const back = await night('with-joiner.csv', OLD_FILE_AGAIN);
    expect(back.code, back.stderr).toBe(0);
    expect(platform.get('u-9')?.disabled).toBe(false);
  });
});

describe('synced show after a joiner never created (docs/sync.md, "Retention")', () => {
  const shown = async () =>
    (
      JSON.parse((await examctl(['synced', 'show', '--json'], dir, env)).stdout) as {
        memories: { disabled: number; unsettled: number }[];
      }
    ).memories[0];
  /** A joiner whose create's answer is lost (never applied), then gone: its disable's answer lost too. */
  async function lostJoiner(): Promise<void> {
    writeUsers('first.csv', [['u-1', 'Ann', 'H-A']]);
    writeUsers('with-joiner.csv', [
      ['u-1', 'Ann', 'H-A'],
      ['u-9', 'Joe', 'H-A'],
    ]);
    expect((await night('first.csv')).code).toBe(0);
    loseAnswer = (user) => user.ExternalId === 'u-9';
    expect((await night('with-joiner.csv')).code).toBe(3);
    expect((await night('first.csv', OLD_FILE_AGAIN)).code).toBe(3);
    loseAnswer = undefined;
    expect(platform.has('u-9')).toBe(false);
  }

  it('counts no leaver disabled while the disable is unanswered: unsettled', async () => {
    await lostJoiner();
    expect(await shown()).toMatchObject({ disabled: 0, unsettled: 1 });
    expect((await examctl(['synced', 'show'], dir, env)).stdout).not.toContain('disabled as leavers');
  });

  it('counts none once the disable is answered 240 (not on the target); back in a file, the user is created and not disabled', async () => {
    await lostJoiner();
    const gone = await night('first.csv');
    expect(gone.code, gone.stderr).toBe(0);
    expect(
      (JSON.parse(gone.stdout) as { items: { id: string; action?: string }[] }).items.find((item) => item.id === 'u-9'),
    ).toMatchObject({ action: 'unchanged' });
    expect(await shown()).toMatchObject({ disabled: 0, unsettled: 0 });
    expect((await night('with-joiner.csv', OLD_FILE_AGAIN)).code).toBe(0);
    expect(platform.get('u-9')?.disabled).toBe(false);
    expect(await shown()).toMatchObject({ disabled: 0, unsettled: 0 });
  });
});

describe('a remote --changed-only dry run whose every record changed (QA 41-A)', () => {
  it('still has a plan: all to send, on screen and in the JSON report', async () => {
    writeUsers(
      'all.csv',
      ids.map((id) => [id, 'Ann', 'H-A']),
    );
    writeUsers(
      'renamed.csv',
      ids.map((id) => [id, 'Bea', 'H-A']),
    );
    const real = await night('all.csv');
    expect(real.code).toBe(0);
    // A real run has no plan, memory or not.
    expect(real.stderr).not.toContain('plan:');
    const sent = server.requests.length;
    const dry = await examctl(args('renamed.csv', ['--changed-only', '--dry-run']), dir, env);
    expect(dry.code, dry.stderr).toBe(0);
    expect(server.requests.length).toBe(sent);
    expect(dry.stderr).toMatch(/^plan: 5 to update$/m);
    expect((JSON.parse(dry.stdout) as { plan?: unknown }).plan).toEqual({
      toCreate: 0,
      toUpdate: 5,
      unchanged: 0,
      invalid: 0,
    });
  });
});
