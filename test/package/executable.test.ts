import { spawn, spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, type TestContext } from 'vitest';
import { expectCoded } from '../support/coded-message.js';
import { ROOT, type Finished } from '../support/cli.js';
import { json, startHostileServer } from '../support/hostile-server.js';
import { summaryOf } from '../support/facts.js';

/**
 * The Linux one-file executable (scripts/build-release.mjs, README "Install") does what the npm
 * install does, run with no Node on PATH: built once here (linux-x64 only: one ~50 MB Node tarball,
 * kept in the release cache and checked against scripts/release-pins.json at each use; the
 * executable itself kept there too, keyed by everything it is built from (build-release.mjs --host), so a second run of the
 * suite does not build it again). Where it cannot be built (no registry), every test here is
 * skipped and says why: it never passes without the executable.
 */

const PINS = JSON.parse(readFileSync(join(ROOT, 'scripts', 'release-pins.json'), 'utf8')) as {
  targets: Record<string, { node: string; file: string }>;
};
const LINUX = PINS.targets['linux-x64']!;
// The user's own cache (scripts/build-release.mjs's): the test's private HOME (test/support/private-home.ts) would lose it.
const CACHE =
  process.env.EXAMCTL_RELEASE_CACHE ??
  join(process.env.XDG_CACHE_HOME ?? join(userInfo().homedir, '.cache'), 'examctl-release');

let executable: string | undefined;
let unavailable = '';
let scratch: string;
/** A PATH with no node on it (nor anything else). */
let noNode: string;

beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), 'examctl-executable-'));
  noNode = join(scratch, 'empty-path');
  mkdirSync(noNode);
  const build = spawnSync(process.execPath, [join(ROOT, 'scripts', 'build-release.mjs'), '--host'], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, EXAMCTL_RELEASE_CACHE: CACHE },
  });
  const file = build.stdout.trim();
  if (build.status === 0 && existsSync(file)) executable = file;
  else {
    // Only a registry out of reach may skip: any other failure is the build's own, and fails here.
    expect(build.stderr).toMatch(/^build-release: cannot fetch /m);
    unavailable = `the linux-x64 executable could not be built (${/^build-release: (.*)$/m.exec(build.stderr)?.[1] ?? build.error?.message ?? build.stderr}): skipped`;
    process.stderr.write(`test/package/executable.test.ts: ${unavailable}\n`);
  }
}, 600_000);

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** The executable, or the test skipped with the reason it could not be built. */
function exe(context: TestContext): string {
  if (executable === undefined) context.skip(unavailable);
  return executable!;
}

function run(file: string, args: string[], cwd: string, env: Record<string, string> = {}): Promise<Finished> {
  return new Promise((resolve) => {
    const child = spawn(file, args, {
      cwd,
      env: { PATH: noNode, HOME: cwd, CI: 'true', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (text: string) => (stdout += text));
    child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr } as Finished));
  });
}

function fresh(name: string): string {
  const dir = join(scratch, name);
  mkdirSync(dir);
  return dir;
}

describe('the linux-x64 one-file executable, with no node on PATH', () => {
  it('has no node to fall back on; --version names examctl and the Node inside (the pinned one)', async (context) => {
    const file = exe(context);
    expect(spawnSync('sh', ['-c', 'command -v node'], { env: { PATH: noNode } }).status).not.toBe(0);
    const version = await run(file, ['--version'], fresh('version'));
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    expect(version.stdout.trim()).toMatch(
      new RegExp(
        `^examctl ${pkg.version} \\(Node v${LINUX.node.split('@')[1]}, zone rules \\d{4}[a-z], build [0-9a-f]{12}\\)$`,
      ),
    );
  });

  it('ignores NODE_OPTIONS (no code runs from --require); NODE_TLS_REJECT_UNAUTHORIZED=0 turns no check off and prints no warning', async (context) => {
    const file = exe(context);
    const dir = fresh('node-options');
    writeFileSync(join(dir, 'hook.cjs'), 'process.stderr.write("hook ran\\n")');
    const hooked = await run(file, ['--version'], dir, { NODE_OPTIONS: `--require ${join(dir, 'hook.cjs')}` });
    expect(hooked.code, hooked.stderr).toBe(0);
    expect(hooked.stderr).toBe('');
    expect(hooked.stdout).toMatch(/^examctl .*, build [0-9a-f]{12}\)\n$/);
    const server = await startHostileServer(
      (_request, res) =>
        json(res, 400, { Content: null, Success: false, Errors: [{ Code: 1101, Message: 'not found' }] }),
      { selfSigned: true },
    );
    try {
      const doctor = await run(file, ['--base-url', server.url, 'doctor'], dir, {
        EXAMCTL_TOKEN: 'executable-token-1',
        NODE_TLS_REJECT_UNAUTHORIZED: '0',
      });
      expect(doctor.code).toBe(3);
      expect(doctor.stdout).toMatch(/FAIL\s+reachable .*self-signed/);
      expect(doctor.stderr).not.toMatch(/warning/i);
      expect(server.requests).toHaveLength(0);
    } finally {
      await server.close();
    }
  });

  it('trusts only the bundled CAs and NODE_EXTRA_CA_CERTS: NODE_USE_SYSTEM_CA with SSL_CERT_FILE adds none (docs/security.md)', async (context) => {
    const file = exe(context);
    const dir = fresh('system-ca');
    const server = await startHostileServer(
      (_request, res) =>
        json(res, 400, { Content: null, Success: false, Errors: [{ Code: 1101, Message: 'not found' }] }),
      { selfSigned: true },
    );
    try {
      writeFileSync(join(dir, 'server.pem'), server.cert!);
      const env = {
        EXAMCTL_TOKEN: 'executable-token-1',
        NODE_USE_SYSTEM_CA: '1',
        SSL_CERT_FILE: join(dir, 'server.pem'),
      };
      const system = await run(file, ['--base-url', server.url, 'doctor'], dir, env);
      expect(system.stdout).toMatch(/FAIL\s+reachable .*self-signed/);
      expect(server.requests).toHaveLength(0);
      const extra = await run(file, ['--base-url', server.url, 'doctor'], dir, {
        ...env,
        NODE_EXTRA_CA_CERTS: join(dir, 'server.pem'),
      });
      expect(extra.stdout).toMatch(/ok\s+reachable/);
      expect(server.requests.length).toBeGreaterThan(0);
    } finally {
      await server.close();
    }
  });

  it("the README's main job on a fresh directory, as its Install section gives it: the example file from the executable, schedule push, then schedule links", async (context) => {
    const file = exe(context);
    const dir = fresh('readme');
    const example = await run(file, ['template', 'sittings', '--example', '--out', 'sittings.csv'], dir);
    expect(example.code, example.stderr).toBe(0);
    expect(readFileSync(join(dir, 'sittings.csv'), 'utf8')).toBe(
      readFileSync(join(ROOT, 'fixtures', 'sittings.csv'), 'utf8'),
    );
    const push = await run(file, ['schedule', 'push', '--file', 'sittings.csv'], dir);
    expect(push.code, push.stderr).toBe(0);
    expect(push.stderr).toContain('from the demo world built into examctl');
    const links = await run(file, ['schedule', 'links', 'S-MATH1-DEC'], dir);
    expect(links.code, links.stderr).toBe(0);
    expect(links.stdout).toMatch(/stu-2001 .*external-login\?session=/);
  });

  it('a dry run with an .xlsx report; a CSV over 4 MB', async (context) => {
    const file = exe(context);
    const dir = fresh('dry');
    const dry = await run(
      file,
      [
        'user',
        'sync',
        '--file',
        join(ROOT, 'fixtures', 'users-with-errors.csv'),
        '--dry-run',
        '--report',
        'report.xlsx',
      ],
      dir,
    );
    expect(dry.code).toBe(1);
    expect(summaryOf(dry.stderr)).toMatchObject({ dryRun: true, total: 5, ok: 2, partial: 0, failed: 3, skipped: 0 });
    expect(readFileSync(join(dir, 'report.xlsx')).subarray(0, 2).toString()).toBe('PK');
    const rows = Array.from({ length: 100_000 }, (_, i) => `w-${i},Ann,Lee,w${i}@example.test,Candidate`);
    writeFileSync(
      join(dir, 'wide.csv'),
      ['ExternalId,FirstName,LastName,Email,Role', ...rows, 'w-x,Ann'].join('\n') + '\n',
    );
    expect(statSync(join(dir, 'wide.csv')).size).toBeGreaterThan(4 * 1024 * 1024);
    const big = await run(file, ['user', 'sync', '--file', 'wide.csv', '--dry-run'], dir);
    // The ragged last row, with its line.
    expectCoded(big.stderr, 'E2100', `wide.csv:${rows.length + 2}:`, '2 cells', '5 columns');
    expect(big.code).toBe(2);
  });

  it('local serve, a remote run against it, a run stopped by SIGTERM and its resume', async (context) => {
    const file = exe(context);
    const dir = fresh('remote');
    const serve = spawn(
      file,
      ['--store', join(dir, 'served'), 'local', 'serve', '--host', '127.0.0.1', '--port', '0'],
      { cwd: dir, env: { PATH: noNode, HOME: dir, CI: 'true' }, stdio: ['ignore', 'ignore', 'pipe'] },
    );
    const url = await new Promise<string>((resolve, reject) => {
      let seen = '';
      serve.stderr.setEncoding('utf8').on('data', (text: string) => {
        seen += text;
        const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(seen);
        if (match) resolve(match[1]!);
      });
      serve.on('close', () => reject(new Error(`local serve ended: ${seen}`)));
    });
    try {
      const remote = { EXAMCTL_TOKEN: 'dev-token', EXAMCTL_BASE_URL: url };
      // More users than the 5 answered plus a window of requests in flight: some are never sent, whatever the timing.
      const users = Array.from(
        { length: 400 },
        (_, i) => `ex-${i},First,Last ${i},ex-${i}@example.test,ex-${i},Candidate`,
      );
      writeFileSync(join(dir, 'users.csv'), `ExternalId,FirstName,LastName,Email,UserName,Role\n${users.join('\n')}\n`);
      const stopped = await run(file, ['--yes', 'user', 'sync', '--file', 'users.csv'], dir, {
        ...remote,
        EXAMCTL_TEST_SIGNAL_AFTER: 'outcome:5:SIGTERM',
      });
      expect(stopped.code, stopped.stderr).toBe(130);
      const resumed = await run(file, ['--yes', 'runs', 'resume'], dir, remote);
      expect(resumed.code, resumed.stderr).toBe(0);
      const shown = await run(file, ['runs', 'show', 'last', '--json'], dir);
      const report = JSON.parse(shown.stdout) as { summary: { total: number; ok: number } };
      expect(report.summary).toMatchObject({ total: 400, ok: 400 });
    } finally {
      serve.kill('SIGTERM');
    }
  });

  it.skipIf(!existsSync('/usr/bin/script'))(
    'prompts on a terminal (util-linux script gives it a pty): asked, answered, Ctrl-C ends it with nothing sent',
    async (context) => {
      const file = exe(context);
      const dir = fresh('tty');
      const child = spawn(
        '/usr/bin/script',
        ['-qc', `/usr/bin/stty cols 100 rows 30; "${file}" user sync; echo "status=$?"`, '/dev/null'],
        { cwd: dir, env: { PATH: noNode, HOME: dir, TERM: 'xterm' } },
      );
      let screen = '';
      const steps: [RegExp, string][] = [
        [/External id/, 'u-500\r'],
        [/First name/, '\u0003'],
      ];
      child.stdout.setEncoding('utf8').on('data', (text: string) => {
        screen += text;
        if (steps.length > 0 && steps[0]![0].test(screen)) child.stdin.write(steps.shift()![1]);
      });
      await new Promise((resolve) => child.on('close', resolve));
      expect(steps).toEqual([]);
      expectCoded(screen, 'E1302');
      expect(/status=(\d+)/.exec(screen)?.[1]).toBe('130');
    },
  );

  it('started in a directory that was removed (a cron job in a replaced deploy): --version answers, a command refuses in one line, exit 2', (context) => {
    const file = exe(context);
    const started = (...args: string[]) => {
      const gone = fresh(`gone-${args.length}`);
      const script = 'cd "$1" && rmdir "$1" && shift && PATH="$NO_NODE" exec "$@"';
      return spawnSync('/bin/sh', ['-c', script, 'sh', gone, file, ...args], {
        env: { PATH: '/usr/bin:/bin', NO_NODE: noNode, HOME: scratch },
        encoding: 'utf8',
      });
    };
    expect(started('--version').stdout).toMatch(/^examctl \S+ \(Node v24\./);
    const list = started('runs', 'list');
    expect([list.status, list.stderr]).toEqual([
      2,
      'examctl: E2000: the current directory was removed (or cannot be read): cd to one that exists and run again\n',
    ]);
  });

  it('the docs the help cites travel beside the executable, in examctl-docs.zip (listed in SHA256SUMS)', async (context) => {
    const file = exe(context);
    const help = await run(file, ['--help'], scratch);
    const cited = [...new Set(help.stdout.match(/docs\/[a-z-]+\.md/g) ?? [])];
    expect(cited.length).toBeGreaterThan(0);
    // Names are stored as they are in a zip's headers: found in its bytes.
    const zip = readFileSync(join(dirname(file), 'examctl-docs.zip')).toString('latin1');
    for (const doc of [...cited, 'docs/input-formats.md', 'README.md', 'LICENSE'])
      expect(zip, doc).toContain(`examctl/${doc}`);
    // The files the README's dry run and the five-minute tour (docs/tutorial.md) copy: an admin without a clone has them.
    const used =
      readFileSync(join(ROOT, 'README.md'), 'utf8') + readFileSync(join(ROOT, 'docs', 'tutorial.md'), 'utf8');
    const fixtures = [...new Set(used.match(/fixtures\/[\w.-]+\.(csv|json)/g))];
    expect(fixtures).toContain('fixtures/users-with-errors.csv');
    for (const fixture of fixtures) expect(zip, fixture).toContain(`examctl/${fixture}`);
    expect(readFileSync(join(dirname(file), 'SHA256SUMS'), 'utf8')).toMatch(/ {2}examctl-docs\.zip\n/);
  });

  it("the README's Install section for Linux, as written: the sum checked, then --version", async (context) => {
    const file = exe(context);
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const section = readme.slice(
      readme.indexOf('## Install'),
      readme.indexOf('\n## ', readme.indexOf('## Install') + 1),
    );
    const block = /```sh\n([\s\S]*?)```\n\n```\n([\s\S]*?)```\n/.exec(section);
    expect(block, 'Install holds the commands and their output').not.toBeNull();
    // Only the tools the commands name on PATH (no node), in the release directory (SHA256SUMS beside the file).
    const tools = join(scratch, 'install-tools');
    mkdirSync(tools);
    for (const tool of ['grep', 'sha256sum', 'chmod'])
      symlinkSync(spawnSync('sh', ['-c', `command -v ${tool}`], { encoding: 'utf8' }).stdout.trim(), join(tools, tool));
    const shell = spawnSync('/bin/sh', ['-e', '-c', block![1]!], {
      cwd: dirname(file),
      env: { PATH: tools, HOME: scratch },
      encoding: 'utf8',
    });
    expect(shell.status, shell.stderr).toBe(0);
    // The build id is the program's hash: the README shows one, each build says its own.
    expect(shell.stdout.replace(/build [0-9a-f]{12}\)/, 'build ID)')).toBe(
      block![2]!.replace(/build [0-9a-f]{12}\)/, 'build ID)'),
    );
  });

  it("docs/ci.md's nightly job on a runner without Node: its download step takes the release file whose sum is committed, refuses another", async (context) => {
    const file = exe(context);
    const doc = readFileSync(join(ROOT, 'docs', 'ci.md'), 'utf8');
    const section = doc.slice(doc.indexOf('## A nightly job on a runner without Node'));
    const lines = section.slice(section.indexOf('- name: Download examctl and check its sum')).split('\n');
    const from = lines.findIndex((line) => line.trim() === 'run: |') + 1;
    const indent = /^ */.exec(lines[from]!)![0];
    const step = lines
      .slice(from)
      .filter((_, i, all) => all.slice(0, i + 1).every((line) => line.startsWith(indent)))
      .map((line) => line.slice(indent.length))
      .join('\n');
    expect(step).toContain('sha256sum --check');
    // A runner: the tools the step names, and a curl that serves `served` for any URL.
    const tools = join(scratch, 'runner-tools');
    mkdirSync(tools);
    for (const tool of ['grep', 'sha256sum', 'chmod', 'mkdir', 'mv'])
      symlinkSync(spawnSync('sh', ['-c', `command -v ${tool}`], { encoding: 'utf8' }).stdout.trim(), join(tools, tool));
    writeFileSync(join(tools, 'curl'), '#!/bin/sh\nwhile [ "$1" != -o ]; do shift; done\n/bin/cp "$SERVED" "$2"\n', {
      mode: 0o755,
    });
    const runner = (name: string, served: string) => {
      const dir = fresh(name);
      mkdirSync(join(dir, 'workspace', 'tools'), { recursive: true });
      // The committed sums: the release's own SHA256SUMS, copied into the repository.
      writeFileSync(join(dir, 'workspace', 'tools', 'SHA256SUMS'), readFileSync(join(dirname(file), 'SHA256SUMS')));
      const env = {
        PATH: tools,
        SERVED: served,
        RUNNER_TEMP: join(dir, 'temp'),
        GITHUB_WORKSPACE: join(dir, 'workspace'),
        GITHUB_PATH: join(dir, 'github-path'),
        EXAMCTL_RELEASE: 'https://releases.example.test/v0.1.0',
      };
      return { dir, env, shell: spawnSync('/bin/bash', ['-e', '-c', step], { cwd: dir, env, encoding: 'utf8' }) };
    };
    const good = runner('nightly', file);
    expect(good.shell.status, good.shell.stderr).toBe(0);
    const onPath = readFileSync(good.env.GITHUB_PATH, 'utf8').trim();
    const version = await run(join(onPath, 'examctl'), ['--version'], good.dir);
    expect(version.stdout).toMatch(/^examctl \S+ \(Node v24\./);
    writeFileSync(join(scratch, 'other'), 'not the release file');
    const other = runner('nightly-other', join(scratch, 'other'));
    expect(other.shell.status).not.toBe(0);
    expect(other.shell.stdout + other.shell.stderr).toContain('FAILED');
    expect(existsSync(join(other.env.RUNNER_TEMP, 'examctl', 'examctl'))).toBe(false);
    expect(existsSync(other.env.GITHUB_PATH)).toBe(false);
  });
});
