import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  chownSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { expectCoded, failedCheck } from '../support/coded-message.js';
import { memoryDir } from '../../src/context/target.js';
import { summedText } from '../../src/sync/memory-document.js';
import { encodeChecksummedLine } from '../../src/system/checksummed-line.js';
import { BIN, ROOT, examctl, startExamctl } from '../support/cli.js';
import { answeredAsPlatform } from '../support/platform-store-route.js';

/**
 * Issue 35: nothing another user can write is trusted (docs/security.md, "Other local users").
 * Two real users: the suite's user (root here, in CI) runs the built CLI as the admin; a second,
 * unprivileged user made for this file plants as the attacker (runuser). Where users cannot be
 * made (not root, no useradd/runuser) the file is skipped with a line saying so.
 */

const ATTACKER = `exatk${process.pid % 100000}`;
const canMakeUsers =
  process.platform === 'linux' &&
  process.getuid?.() === 0 &&
  ['/usr/sbin/useradd', '/usr/sbin/runuser', '/usr/sbin/userdel'].every((tool) => existsSync(tool));
if (!canMakeUsers)
  console.log(
    'two-user tier skipped: needs root on Linux with useradd, runuser and userdel to create the attacking user',
  );

let attackerUid = -1;
const USERS_CSV =
  'ExternalId,FirstName,LastName,Email,Role\nu-1,Ann,Lee,u-1@example.test,Candidate\nu-2,Bo,Lee,u-2@example.test,Candidate\n';
const WORLD = join(ROOT, 'fixtures/world.json');

/** Runs a shell script as the attacker. */
function attack(script: string, env: Record<string, string> = {}): string {
  return execFileSync('/usr/sbin/runuser', ['-u', ATTACKER, '--', 'sh', '-c', script], {
    env: { PATH: process.env.PATH ?? '', HOME: '/tmp', ...env },
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** A loopback service that answers every POST ok (a user upsert's envelope) and counts requests. */
async function countingServer(): Promise<{ url: string; received: () => number; close: () => Promise<void> }> {
  let received = 0;
  const server = http.createServer((req, res) => {
    if (answeredAsPlatform(req, res)) return;
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received += 1;
      const body = Buffer.concat(chunks).toString('utf8');
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          Content: { User: body === '' ? {} : (JSON.parse(body) as unknown), GroupErrors: [] },
          Success: true,
          Errors: null,
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received: () => received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The bytes of every file under `dir`, by relative name: to prove nothing in it changed. */
function fingerprint(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of readdirSync(dir, { recursive: true }) as string[]) {
    const path = join(dir, name);
    if (statSync(path).isFile()) out[name] = createHash('sha256').update(readFileSync(path)).digest('hex');
  }
  return out;
}

describe.skipIf(!canMakeUsers)(
  'two users on one machine: the admin (root) never trusts what the attacker can write',
  () => {
    let mine: string;
    let shared: string;
    let sticky: string;
    let server: Awaited<ReturnType<typeof countingServer>>;

    beforeAll(() => {
      execFileSync('/usr/sbin/useradd', ['--system', '--no-create-home', '--shell', '/bin/sh', ATTACKER]);
      attackerUid = Number(execFileSync('id', ['-u', ATTACKER], { encoding: 'utf8' }).trim());
    });
    afterAll(() => {
      execFileSync('/usr/sbin/userdel', [ATTACKER]);
    });
    beforeEach(async () => {
      // The admin's own folder (0700) under /tmp, a folder the attacker made for "the team" (0777),
      // and a sticky folder root owns that everybody can write, as /tmp itself.
      mine = mkdtempSync(join(tmpdir(), 'examctl-2u-admin-'));
      shared = join(tmpdir(), `examctl-2u-shared-${process.pid}-${Math.random().toString(36).slice(2)}`);
      attack(`mkdir -m 0777 ${shared}`);
      sticky = mkdtempSync(join(tmpdir(), 'examctl-2u-sticky-'));
      chmodSync(sticky, 0o1777);
      writeFileSync(join(mine, 'users.csv'), USERS_CSV);
      server = await countingServer();
    });
    afterEach(async () => {
      await server.close();
      for (const dir of [mine, shared, sticky]) rmSync(dir, { recursive: true, force: true });
    });

    const admin = (args: string[], env: Record<string, string> = {}, cwd = mine) =>
      examctl(args, cwd, { EXAMCTL_RUNS_DIR: join(mine, 'runs'), ...env });

    it('1. a config planted in a shared config directory is refused (exit 2, naming it) before the token goes anywhere; doctor names it', async () => {
      const cfg = join(shared, 'cfg');
      attack(
        `mkdir -m 0777 ${cfg} && printf '%s' '${JSON.stringify({ version: 1, defaultProfile: 'prod', profiles: { prod: { baseUrl: server.url, tokenFile: 'prod.token' } } })}' > ${cfg}/config.json`,
      );
      // The token file the admin's own `login` wrote there.
      writeFileSync(join(cfg, 'prod.token'), 'admin-secret-token\n', { mode: 0o600 });
      const run = await admin(['--yes', 'user', 'sync', '--file', 'users.csv'], { EXAMCTL_CONFIG_DIR: cfg });
      expect(run.code, run.stderr).toBe(2);
      expectCoded(run.stderr, 'E2400', join(cfg, 'config.json'), `uid ${attackerUid}`);
      const doctor = await admin(['doctor'], { EXAMCTL_CONFIG_DIR: cfg });
      expect(doctor.code).toBe(3);
      failedCheck(doctor.stdout, 'permissions', 'E2400', join(cfg, 'config.json'));
      expect(server.received()).toBe(0);
    });

    it("1b. the admin's own config in a folder others can write, and a token file the attacker owns: exit 2 naming the path and chmod go-w; nothing sent", async () => {
      const cfg = join(mine, 'cfg');
      mkdirSync(cfg, { mode: 0o700 });
      writeFileSync(
        join(cfg, 'config.json'),
        JSON.stringify({
          version: 1,
          defaultProfile: 'p',
          profiles: { p: { baseUrl: server.url, token: 'tok-0123456789' } },
        }),
        { mode: 0o600 },
      );
      chmodSync(cfg, 0o777);
      const loose = await admin(['--yes', 'user', 'sync', '--file', 'users.csv'], { EXAMCTL_CONFIG_DIR: cfg });
      expect(loose.code).toBe(2);
      expectCoded(loose.stderr, 'E2400', cfg, 'mode 777', `chmod go-w ${cfg}`);
      attack(`printf 'attacker-token' > ${shared}/token`);
      const token = await admin([
        '--yes',
        '--base-url',
        server.url,
        '--token-file',
        join(shared, 'token'),
        'user',
        'sync',
        '--file',
        'users.csv',
      ]);
      expect(token.code).toBe(2);
      expect(token.stderr).toContain(`${join(shared, 'token')} is owned by uid ${attackerUid}`);
      expect(server.received()).toBe(0);
    });

    it('2. a sync directory the attacker made beside the runs is refused before anything is sent (remote, --changed-only)', async () => {
      attack(`mkdir -m 0777 ${shared}/state && mkdir -m 0777 ${shared}/state/synced`);
      const run = await admin(
        ['--yes', '--base-url', server.url, 'user', 'sync', '--file', 'users.csv', '--changed-only'],
        {
          EXAMCTL_TOKEN: 'admin-secret-token',
          EXAMCTL_RUNS_DIR: join(shared, 'state', 'runs'),
        },
      );
      expectCoded(run.stderr, 'E2400', 'sync directory', join(shared, 'state', 'synced'));
      expect(run.stderr).toMatch(/uid \d+|writable by others/);
      expect(run.stderr).toMatch(
        /the sync directory: \S+synced is owned by uid \d+, not by you|the sync directory: .* is writable by others/,
      );
      expect(server.received()).toBe(0);
    });

    it('2d. a runs directory the attacker made: a new run (no sync memory involved) is refused before the confirmation, nothing sent, no journal written there', async () => {
      attack(`mkdir -m 0777 ${shared}/runs`);
      const run = await admin(['--yes', '--base-url', server.url, 'user', 'sync', '--file', 'users.csv'], {
        EXAMCTL_TOKEN: 'admin-secret-token',
        EXAMCTL_RUNS_DIR: join(shared, 'runs'),
        // The memory kept in the admin's own folder: only the runs directory is the attacker's.
        EXAMCTL_SYNC_DIR: join(mine, 'synced'),
      });
      expect(run.code, run.stderr).toBe(2);
      // Another's runs directory (theirs, or open to all): no run starts in it.
      expectCoded(run.stderr, 'E2400', 'runs directory', 'nothing was sent');
      expect(run.stderr).toMatch(/uid \d+|writable by others/);
      expect(server.received()).toBe(0);
      expect(readdirSync(join(shared, 'runs'))).toEqual([]);
    });

    it("2b. a memory moved into another target's place: exit 2 naming both targets, nothing sent", async () => {
      const sync = (store: string, ...flags: string[]) =>
        admin(['--target', 'local', '--store', store, 'user', 'sync', '--file', 'users.csv', ...flags]);
      const staging = join(mine, 'staging');
      const prod = join(mine, 'prod');
      expect((await sync(staging, '--changed-only')).code).toBe(0);
      expect((await sync(prod, '--changed-only')).code).toBe(0);
      const synced = join(mine, 'synced');
      const target = (store: string) => ({ kind: 'local' as const, store });
      rmSync(memoryDir(synced, target(prod)), { recursive: true });
      execFileSync('mv', [memoryDir(synced, target(staging)), memoryDir(synced, target(prod))]);
      const night = await sync(prod, '--changed-only');
      expect(night.code).toBe(2);
      expectCoded(night.stderr, 'E2504', `local ${staging}`, `local ${prod}`);
    });

    it("2c. a link planted as a target's memory directory is never followed: the run and synced forget refuse, the linked folder is untouched", async () => {
      const store = join(mine, 'store');
      const victim = join(mine, 'victim');
      mkdirSync(victim);
      writeFileSync(join(victim, 'keep'), 'x');
      mkdirSync(join(mine, 'synced'), { mode: 0o700 });
      symlinkSync(victim, memoryDir(join(mine, 'synced'), { kind: 'local', store }));
      const run = await admin([
        '--target',
        'local',
        '--store',
        store,
        'user',
        'sync',
        '--file',
        'users.csv',
        '--changed-only',
      ]);
      expect(run.code).toBe(2);
      expectCoded(run.stderr, 'E2400', 'symbolic link');
      const forget = await admin(['--target', 'local', '--store', store, 'synced', 'forget']);
      expect(forget.code).toBe(2);
      expect(readdirSync(victim)).toEqual(['keep']);
    });

    it("3. store discovery stops at a folder others can write: the attacker's store above is never used; --store naming it is refused", async () => {
      const theirs = join(sticky, '.examctl-store');
      attack(`${process.execPath} ${BIN} --store ${theirs} local init --seed ${WORLD}`, {
        EXAMCTL_CONFIG_DIR: join(shared, 'c'),
        EXAMCTL_RUNS_DIR: join(shared, 'r'),
      });
      const before = fingerprint(theirs);
      const project = join(sticky, 'admin', 'project');
      mkdirSync(project, { recursive: true, mode: 0o700 });
      writeFileSync(join(project, 'users.csv'), USERS_CSV);
      const run = await admin(['--target', 'local', 'user', 'sync', '--file', 'users.csv'], {}, project);
      expect(run.code, run.stderr).toBe(0);
      expect(run.stderr).not.toContain('found in a parent directory');
      expect(existsSync(join(project, '.examctl-store'))).toBe(true);
      expect(fingerprint(theirs)).toEqual(before);
      const named = await admin(['--target', 'local', '--store', theirs, 'user', 'sync', '--file', 'users.csv']);
      expect(named.code).toBe(2);
      expectCoded(named.stderr, 'E2400', theirs, `uid ${attackerUid}`);
      const byEnv = await admin(['--target', 'local', 'schedule', 'links'], { EXAMCTL_STORE: theirs });
      expect(byEnv.code).toBe(2);
      expect(fingerprint(theirs)).toEqual(before);
    });

    it("4. a PIN is given off the command line: --pin-file and EXAMCTL_PIN; --pin's help says ps shows it", async () => {
      writeFileSync(join(mine, 'c.csv'), 'CandidateExtId,FirstName,LastName,Email\nc-1,Ann,Lee,c-1@example.test\n');
      writeFileSync(join(mine, 'pin'), '12345\n', { mode: 0o600 });
      const push = (env: Record<string, string>, ...flags: string[]) =>
        admin(
          [
            '--target',
            'local',
            '--store',
            join(mine, 'store'),
            '--json',
            'schedule',
            'push',
            '--file',
            'c.csv',
            '--schedule-id',
            'S-1',
            '--assessment',
            'A-MATH-1',
            '--start',
            '2026-12-14T09:00:00Z',
            '--group',
            'H-1',
            '--group-name',
            'North',
            ...flags,
          ],
          env,
        );
      // A PIN of five characters fails validation (string(4)): proof that it was read from where it was given.
      const fromFile = await push({}, '--pin-file', 'pin');
      expect(fromFile.code, fromFile.stderr).toBe(1);
      expect(fromFile.stdout).toMatch(/PIN/);
      const fromEnv = await push({ EXAMCTL_PIN: '12345' });
      expect(fromEnv.code).toBe(1);
      expect(fromEnv.stdout).toMatch(/PIN/);
      attack(`printf '0000' > ${shared}/pin`);
      const planted = await push({}, '--pin-file', join(shared, 'pin'));
      expect(planted.code).toBe(2);
      expect(planted.stderr).toContain(`${join(shared, 'pin')} is owned by uid ${attackerUid}`);
      const help = await admin(['schedule', 'push', '--help']);
      expect(help.stdout.replace(/\s+/g, ' ')).toMatch(/--pin <pin> .*shows in `?ps`?/);
    });

    it('5. local export --out and schedule links --out are 0600 under umask 022: the attacker cannot read them; a template keeps the umask', async () => {
      chmodSync(mine, 0o755);
      const store = join(mine, 'store');
      expect((await admin(['--store', store, 'local', 'init', '--seed', WORLD])).code).toBe(0);
      const umask022 = (args: string[]) =>
        execFileSync('sh', ['-c', `umask 022; exec "$0" "$@"`, process.execPath, BIN, ...args], {
          cwd: mine,
          env: {
            PATH: process.env.PATH ?? '',
            HOME: mine,
            EXAMCTL_RUNS_DIR: join(mine, 'runs'),
            EXAMCTL_CONFIG_DIR: join(mine, 'cfg'),
          },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
      umask022(['--store', store, 'local', 'export', '--out', 'world.json']);
      umask022(['template', 'users', '--out', 'users-template.csv']);
      expect(statSync(join(mine, 'world.json')).mode & 0o777).toBe(0o600);
      expect(statSync(join(mine, 'users-template.csv')).mode & 0o777).toBe(0o644);
      expect(() => attack(`cat ${join(mine, 'world.json')}`)).toThrow();
    });

    it("6. local serve warns once at start on a store accepting the demo world's published token; local init without --seed prints a random token once", async () => {
      const serveUntilListening = async (store: string): Promise<string> => {
        const running = startExamctl(['--store', store, 'local', 'serve', '--port', '0'], mine);
        let stderr = '';
        await new Promise<void>((resolve) =>
          running.child.stderr!.on('data', (chunk: Buffer) => {
            stderr += chunk.toString();
            if (stderr.includes('listening on')) resolve();
          }),
        );
        running.child.kill('SIGTERM');
        return (await running.done).stderr;
      };
      expect((await admin(['--store', join(mine, 'demo'), 'local', 'init', '--seed', WORLD])).code).toBe(0);
      const demo = await serveUntilListening(join(mine, 'demo'));
      expect(demo.match(/accepts the token published in the demo world/g)).toHaveLength(1);
      const init = await admin(['--store', join(mine, 'own'), '--json', 'local', 'init']);
      expect(init.code).toBe(0);
      const { token } = JSON.parse(init.stdout) as { token: string };
      expect(token).toMatch(/^[A-Za-z0-9_-]{32}$/);
      expect(await serveUntilListening(join(mine, 'own'))).not.toContain('published');
      expect(
        readFileSync(
          join(mine, 'own', readdirSync(join(mine, 'own')).find((name) => name.startsWith('snapshot'))!),
          'utf8',
        ),
      ).not.toContain(token);
    });

    it('7. a report path the attacker planted in a sticky folder (a link): exit 2 before any request', async () => {
      const report = join(sticky, 'report.csv');
      attack(`printf 'theirs' > ${report}.txt && ln -s ${report}.txt ${report}`);
      const run = await admin(
        ['--yes', '--base-url', server.url, 'user', 'sync', '--file', 'users.csv', '--report', report],
        { EXAMCTL_TOKEN: 'admin-secret-token' },
      );
      expect(run.code, run.stderr).toBe(2);
      expectCoded(run.stderr, 'E2400', `uid ${attackerUid}`);
      expect(server.received()).toBe(0);
      expect(lstatSync(report).isSymbolicLink()).toBe(true);
      expect(readFileSync(`${report}.txt`, 'utf8')).toBe('theirs');
    });

    it("8. runs prune in a shared sticky runs directory prunes nothing (exit 2, as list, show and resume use nothing there) and leaves the attacker's plants (a directory, a link to the admin's folder)", async () => {
      const runs = join(sticky, 'runs');
      mkdirSync(runs);
      chmodSync(runs, 0o1777);
      const victim = join(mine, 'victim');
      mkdirSync(victim);
      writeFileSync(join(victim, 'keep'), 'x');
      attack(
        `mkdir ${runs}/20260101T000000Z-aaaaaaaa && printf x > ${runs}/20260101T000000Z-aaaaaaaa/journal.ndjson && ln -s ${victim} ${runs}/20260102T000000Z-bbbbbbbb`,
      );
      const prune = await admin(['runs', 'prune', '--all', '--older-than', '0d'], { EXAMCTL_RUNS_DIR: runs });
      expect(prune.code, prune.stderr).toBe(2);
      expectCoded(prune.stderr, 'E2400', runs, 'mode 1777', `chmod go-w ${runs}`, 'nothing pruned');
      expect(readdirSync(victim)).toEqual(['keep']);
      expect(existsSync(join(runs, '20260101T000000Z-aaaaaaaa', 'journal.ndjson'))).toBe(true);
    });

    it("9. a memory export the attacker forged in the team folder (a hand-made Administrator added, checksums recomputed) is no memory: synced import and synced adopt --file are exit 2 naming owner and mode; the admin's own copy is taken (issue 81, item 5)", async () => {
      const local = ['--store', join(mine, 'st')];
      expect((await admin([...local, '--yes', 'user', 'sync', '--file', 'users.csv', '--changed-only'])).code).toBe(0);
      const exported = join(mine, 'night1.json');
      expect((await admin([...local, 'synced', 'export', '--out', exported])).code).toBe(0);
      // The forgery: dean-1, the demo world's hand-made Administrator, in the memory as if synced.
      const { sha256: _sum, ...body } = JSON.parse(readFileSync(exported, 'utf8')) as {
        sha256: string;
        memories: { users: string };
      };
      const lines = body.memories.users.split('\n');
      const entry = (JSON.parse(lines[1]!) as { b: Record<string, unknown> }).b;
      lines.splice(-1, 0, encodeChecksummedLine(JSON.stringify({ ...entry, id: 'dean-1' })).trimEnd());
      body.memories.users = lines.join('\n');
      const forged = join(shared, 'night1.json');
      writeFileSync(forged, summedText(body), { mode: 0o666 });
      chmodSync(forged, 0o666);
      chownSync(forged, attackerUid, attackerUid);
      const synced = join(mine, 'synced');
      const before = fingerprint(synced);
      const imported = await admin([...local, 'synced', 'import', forged]);
      expect(imported.code, imported.stderr).toBe(2);
      expectCoded(imported.stderr, 'E2400', `synced import ${forged}`, `uid ${attackerUid}`, 'mode 0666');
      expect(imported.stderr).toContain(`docs/sync.md, "A colleague's export"`);
      // Root's own file in the attacker's folder: the folder is named.
      const planted = join(shared, 'mine.json');
      writeFileSync(planted, readFileSync(exported), { mode: 0o600 });
      const inShared = await admin([...local, 'synced', 'import', planted]);
      expect(inShared.code).toBe(2);
      expectCoded(inShared.stderr, 'E2400', shared, `uid ${attackerUid}`);
      writeFileSync(join(shared, 'users.csv'), USERS_CSV);
      chownSync(join(shared, 'users.csv'), attackerUid, attackerUid);
      const adopted = await admin([...local, 'synced', 'adopt', '--file', join(shared, 'users.csv')]);
      expect(adopted.code, adopted.stderr).toBe(2);
      expect(adopted.stderr).toContain(
        `synced adopt --file ${join(shared, 'users.csv')} (owner uid ${attackerUid}, mode 0644)`,
      );
      expect(fingerprint(synced)).toEqual(before);
      // The way the docs give: a copy of one's own, its sha256 compared (the forgery's differs), then imported.
      const copy = join(mine, 'copy.json');
      writeFileSync(copy, readFileSync(forged), { mode: 0o600 });
      const sum = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');
      expect(sum(copy)).not.toBe(sum(exported));
      const own = await admin([...local, 'synced', 'import', exported]);
      expect(own.code, own.stderr).toBe(0);
    });
  },
);
