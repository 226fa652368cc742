import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, startNode, type Finished } from '../support/cli.js';
import { summaryOf } from '../support/facts.js';

/**
 * What `npm pack` ships is what people install: the tarball holds LICENSE, the bundle bin/examctl
 * runs (dist/bundle/, no build at install: `prepare` needs tsc and esbuild, dev dependencies, as
 * are the libraries it bundles: docs/architecture.md, "Build and package"), the docs the README
 * links, the fixtures the README and tutorial use; and, unpacked into a scratch prefix beside its runtime dependencies
 * only, it runs from another directory. The same with a real `npm install --global` from the
 * registry is in scripts/test-interop.mjs (it needs the network), and there too the production
 * install of the tarball into an empty folder: its package count, size and no "deprecated"
 * warning, from npm's own output (an install resolves the ranges of package.json afresh, which
 * needs the registry: npm ci's cache holds tarballs, not the registry's lists of versions).
 * Here, offline, the production tree the lockfile pins: what `npm ci --omit=dev` installs.
 */

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  version: string;
  dependencies: Record<string, string>;
};

let dir: string;
let tarball: string;
let packed: string[];
let installed: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'examctl-pack-'));
  // --ignore-scripts: dist/ is built already (the global setup, test/support/global-build.ts); `prepare` would only build it again.
  // npm is npm.cmd on Windows, which only a shell runs.
  const out = execFileSync('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', dir], {
    cwd: ROOT,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
    shell: process.platform === 'win32',
  });
  const [info] = JSON.parse(out) as { filename: string; files: { path: string }[] }[];
  tarball = join(dir, info!.filename);
  packed = info!.files.map((file) => file.path);

  // An install without the network: the tarball's own files, and each runtime dependency taken
  // from this checkout (a dev dependency that dist/ needed would be missing here, as in a real install).
  const modules = join(dir, 'prefix', 'node_modules');
  installed = join(modules, 'examctl');
  mkdirSync(installed, { recursive: true });
  execFileSync('tar', ['xzf', tarball, '-C', installed, '--strip-components=1']);
  for (const name of Object.keys(pkg.dependencies)) {
    mkdirSync(dirname(join(modules, name)), { recursive: true });
    symlinkSync(join(ROOT, 'node_modules', name), join(modules, name), 'junction');
  }
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

function runInstalled(args: string[], cwd: string): Promise<Finished> {
  return startNode([join(installed, 'bin', 'examctl'), ...args], cwd).done;
}

/** At most this many packages in a production install (the lean install: no exceljs and its ~200). */
const MAX_PRODUCTION_PACKAGES = 60;

describe('the production dependency tree (package-lock.json)', () => {
  const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { dev?: boolean; devOptional?: boolean }>;
  };
  const production = Object.entries(lock.packages)
    .filter(([path, entry]) => path.includes('node_modules/') && entry.dev !== true && entry.devOptional !== true)
    .map(([path]) => path.replace(/^.*node_modules\//, ''));

  it(`holds at most ${MAX_PRODUCTION_PACKAGES} packages, none of them exceljs or what it pulled in`, () => {
    expect(production.length).toBeGreaterThan(0);
    expect(production.length).toBeLessThanOrEqual(MAX_PRODUCTION_PACKAGES);
    expect(
      production.filter((name) => /^(exceljs|archiver|unzipper|fstream|rimraf|glob|inflight)$/.test(name)),
    ).toEqual([]);
    expect(Object.keys(pkg.dependencies).every((name) => production.includes(name))).toBe(true);
  });
});

describe('the npm tarball', () => {
  it('holds LICENSE (MIT, examctl contributors), README, bin, the bundle and the fixtures the docs use; no sources, tests or dist/ modules', () => {
    expect(packed).toEqual(
      expect.arrayContaining([
        'LICENSE',
        'README.md',
        'package.json',
        'bin/examctl',
        'dist/bundle/examctl.mjs',
        'dist/bundle/THIRD-PARTY-NOTICES.md',
        'fixtures/world.json',
        'fixtures/users-with-errors.csv',
        'fixtures/sittings.csv',
      ]),
    );
    expect(packed.filter((path) => /^(src|test|bench|scripts)\//.test(path))).toEqual([]);
    expect(packed.filter((path) => path.startsWith('dist/') && !path.startsWith('dist/bundle/'))).toEqual([]);
    expect(packed).not.toContain('dist/bundle/meta.json');
    // The bundled libraries' licences travel with them; a runtime dependency (csv-parse, the CSV
    // parser in production) is installed beside examctl with its own, and is not in the bundle.
    const notices = readFileSync(join(installed, 'dist', 'bundle', 'THIRD-PARTY-NOTICES.md'), 'utf8');
    for (const name of ['commander', 'undici', 'zod', 'ora', 'cli-table3', '@inquirer/prompts'])
      expect(notices).toMatch(new RegExp(`^## ${name} \\S+ \\(MIT\\)$`, 'm'));
    expect(Object.keys(pkg.dependencies)).toEqual(expect.arrayContaining(['csv-parse']));
    const bundled = Object.keys(
      (
        JSON.parse(readFileSync(join(ROOT, 'dist', 'bundle', 'meta.json'), 'utf8')) as {
          inputs: Record<string, unknown>;
        }
      ).inputs,
    );
    for (const name of Object.keys(pkg.dependencies)) {
      expect(notices).not.toMatch(new RegExp(`^## ${name} `, 'm'));
      expect(bundled.filter((input) => input.includes(`node_modules/${name}/`))).toEqual([]);
    }
    const license = readFileSync(join(installed, 'LICENSE'), 'utf8');
    expect(license).toMatch(/^MIT License/);
    expect(license).toContain('Copyright (c) 2026 examctl contributors');
  });

  it('holds every file the README links to, and every doc in docs/', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const links = [...readme.matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)]
      .map((match) => match[1]!)
      .filter((link) => !/^[a-z]+:/.test(link));
    expect(links.length).toBeGreaterThan(0);
    expect(packed).toEqual(expect.arrayContaining(links));
    const docs = readdirSync(join(ROOT, 'docs'))
      .filter((name) => name.endsWith('.md'))
      .map((name) => `docs/${name}`);
    expect(packed).toEqual(expect.arrayContaining(docs));
  });

  it('installed, runs from another directory: --version, a dry run of a shipped fixture, local serve', async () => {
    const elsewhere = join(dir, 'elsewhere');
    mkdirSync(elsewhere);
    const version = await runInstalled(['--version'], elsewhere);
    expect(version.code).toBe(0);
    expect(version.stdout.trim()).toMatch(
      new RegExp(
        `^examctl ${pkg.version} \\(Node ${process.version}, zone rules ${process.versions.tz}, build [0-9a-f]{12}\\)$`,
      ),
    );

    const dry = await runInstalled(
      ['user', 'sync', '--file', join(installed, 'fixtures', 'users-with-errors.csv'), '--dry-run'],
      elsewhere,
    );
    expect(dry.code).toBe(1);
    expect(summaryOf(dry.stderr)).toMatchObject({ dryRun: true, total: 5, ok: 2, partial: 0, failed: 3, skipped: 0 });

    const serve = startNode(
      [
        join(installed, 'bin', 'examctl'),
        '--store',
        join(elsewhere, 'store'),
        'local',
        'serve',
        '--host',
        '127.0.0.1',
        '--port',
        '0',
      ],
      elsewhere,
    );
    let stderr = '';
    const url = await new Promise<string>((resolve, reject) => {
      serve.child.stderr!.on('data', (chunk: string) => {
        stderr += chunk;
        const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(stderr);
        if (match) resolve(match[1]!);
      });
      serve.child.on('close', () => reject(new Error(`local serve ended before listening: ${stderr}`)));
    });
    try {
      const answer = await fetch(`${url}/api/v1/integrations/openapi.json`);
      expect(answer.status).toBe(200);
      expect(((await answer.json()) as { openapi: string }).openapi).toMatch(/^3\.1/);
    } finally {
      serve.child.kill('SIGTERM');
    }
    const stopped = await serve.done;
    expect(stopped.stderr).toContain('stopped');
    expect(stopped.code).toBe(0);
  });
});
