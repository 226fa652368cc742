import { createHash } from 'node:crypto';
import { copyFile, cp, mkdir, readdir, readFile, rm } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { commandName, type CommandDeclaration } from '../../src/cli/command-declaration.js';
import { COMMANDS } from '../../src/cli/program.js';
import { runCli } from '../../src/cli/run-cli.js';
import { CURRENT_FILE } from '../../src/engine/store/current-file.js';
import { childEnv } from '../support/child-env.js';
import { PINNED_NOW, ROOT } from '../support/cli.js';
import { StringSink } from '../support/string-sink.js';
import { withTempDir } from './helpers.js';

/**
 * Every command the table declares with `--store` uses the store `--store` or EXAMCTL_STORE names (docs/cli.md,
 * "The local store"), never `./.examctl-store` beside it: a command that drops the flag fails here. Each is run
 * in-process twice per source: the named store missing while a default one holds the demo world (it is made
 * there, or its refusal names it; the default is untouched), and the named store holding the demo world with no
 * default (none is made or named). A command is run as its first example on the local target says (the table's
 * own `examples`), else as DRIVES says; one that cannot be driven is in NOT_DRIVEN with the reason.
 */
const DRIVES: Readonly<
  Record<string, { argv: readonly string[]; before?: readonly (readonly string[])[]; stops?: true }>
> = {
  // Its examples name a fixed port; it stops as soon as it listens.
  'local serve': { argv: ['local', 'serve', '--port', '0'], stops: true },
  // Its examples read a plan a dry run wrote: this one's, against the same store.
  apply: {
    before: [['user', 'sync', '--file', 'users.csv', '--dry-run', '--plan-out', 'plan.json']],
    argv: ['apply', 'plan.json'],
  },
  // It reads a memory another store's run exported.
  'synced import': {
    before: [
      ['user', 'sync', '--file', 'users.csv', '--store', 'sent-store'],
      ['synced', 'export', '--store', 'sent-store', '--out', 'memory.json'],
    ],
    argv: ['synced', 'import', 'memory.json'],
  },
  'synced adopt': { argv: ['synced', 'adopt', '--file', 'users.csv', '--dry-run'] },
  'synced adopt-schedules': { argv: ['synced', 'adopt-schedules', '--file', 'sittings.csv', '--dry-run'] },
  'synced adopt-collections': { argv: ['synced', 'adopt-collections', '--file', 'collection.json', '--dry-run'] },
};

const NOT_DRIVEN: Readonly<Record<string, string>> = {
  'runs resume': 'a resume takes the target its journal recorded; --store is said not used (resume-run.ts)',
};

const STORE_COMMANDS = COMMANDS.filter((each) => each.options !== undefined && each.takes.includes('--store'));

/** A command line of an example, as words (quotes kept together), up to a redirection or pipe. */
function words(line: string): string[] {
  const found = line.replace(/\\\n\s*/g, ' ').match(/"[^"]*"|'[^']*'|[^\s"']+/g) ?? [];
  const end = found.findIndex((word) => ['>', '<', '|', '2>'].includes(word));
  return found.slice(0, end < 0 ? undefined : end).map((word) => word.replace(/^(["'])(.*)\1$/, '$2'));
}

/** The first example that runs `declaration` on the local target, without its own store. */
function exampleArgv(declaration: CommandDeclaration): string[] | undefined {
  const name = commandName(declaration);
  for (const line of declaration.examples) {
    if (!line.startsWith(`examctl ${name}`) || /--profile|--base-url|\$|--target remote/.test(line)) continue;
    const argv = words(line).slice(1);
    const store = argv.indexOf('--store');
    if (store >= 0) argv.splice(store, 2);
    return argv;
  }
  return undefined;
}

function driveOf(declaration: CommandDeclaration) {
  const name = commandName(declaration);
  const argv = exampleArgv(declaration);
  return DRIVES[name] ?? (argv === undefined ? undefined : { argv });
}

/** Every file under `dir` with a digest of its bytes: what a store holds. */
async function contents(dir: string): Promise<Record<string, string>> {
  const files = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  const held: Record<string, string> = {};
  for (const file of files.filter((each) => each.isFile())) {
    const path = join(file.parentPath, file.name);
    held[path] = createHash('sha256')
      .update(await readFile(path))
      .digest('hex');
  }
  return held;
}

async function run(argv: readonly string[], home: string, cwd: string, env: Record<string, string>, stops = false) {
  const [stdout, stderr] = [new StringSink(), new StringSink()];
  const code = await runCli([...argv], {
    stdout,
    stderr,
    env: { ...childEnv(home), EXAMCTL_NOW: PINNED_NOW, ...env },
    now: () => new Date(PINNED_NOW),
    isTTY: false,
    cwd,
    retrySleep: async () => undefined,
    signal: stops ? AbortSignal.abort() : undefined,
  });
  return { code, said: stdout.text + stderr.text };
}

const CASES = STORE_COMMANDS.flatMap((declaration) =>
  (['--store', 'EXAMCTL_STORE'] as const).map((source) => [commandName(declaration), source] as const),
).filter(([name]) => NOT_DRIVEN[name] === undefined);

describe('a command that takes --store uses the store named', () => {
  it('every command declaring --store is driven here or listed with why not', () => {
    const undriven = STORE_COMMANDS.filter(
      (each) => driveOf(each) === undefined && NOT_DRIVEN[commandName(each)] === undefined,
    );
    expect(undriven.map(commandName)).toEqual([]);
    for (const name of [...Object.keys(DRIVES), ...Object.keys(NOT_DRIVEN)])
      expect(STORE_COMMANDS.map(commandName)).toContain(name);
  });

  it.each(CASES)('%s, the store named by %s', (name, source) =>
    withTempDir(async (home) => {
      const declaration = STORE_COMMANDS.find((each) => commandName(each) === name)!;
      const drive = driveOf(declaration)!;
      const cwd = join(home, 'work');
      const named = join(home, 'elsewhere', 'named-store');
      const fallback = join(cwd, '.examctl-store');
      await mkdir(join(home, 'elsewhere'), { recursive: true });
      await mkdir(cwd, { recursive: true });
      for (const file of ['users.csv', 'sittings.csv', 'collection.json'])
        await copyFile(join(ROOT, 'fixtures', file), join(cwd, file));
      const demo = join(home, 'demo-store');
      expect((await run(['local', 'init'], home, home, { EXAMCTL_STORE: demo })).code).toBe(0);
      const given = (argv: readonly string[]) =>
        source === '--store'
          ? { argv: [...argv, '--store', named], env: {} as Record<string, string> }
          : { argv, env: { EXAMCTL_STORE: named } };
      const drove = async () => {
        // A step that names its own store runs as written; the others take the store named from EXAMCTL_STORE, so
        // that a plan records no --store an apply would take in place of its own.
        for (const step of drive.before ?? [])
          await run(step, home, cwd, step.includes('--store') ? {} : { EXAMCTL_STORE: named });
        const { argv, env } = given(drive.argv);
        return run(argv, home, cwd, env, drive.stops);
      };

      // The named store missing, a default one beside: the named one is made, or the refusal names it.
      await cp(demo, fallback, { recursive: true });
      const before = await contents(fallback);
      const missing = await drove();
      const made = existsSync(join(named, CURRENT_FILE));
      expect(made || missing.said.includes(named), `${name}: exit ${missing.code}: ${missing.said}`).toBe(true);
      expect(missing.said).not.toContain(fallback);
      expect(await contents(fallback)).toEqual(before);

      // The named store holds the demo world, no default: none is made or named.
      await Promise.all([fallback, named].map((dir) => rm(dir, { recursive: true, force: true })));
      await cp(demo, named, { recursive: true });
      const held = await drove();
      expect(existsSync(fallback), `${name}: exit ${held.code}: ${held.said}`).toBe(false);
      expect(held.said).not.toContain(fallback);
    }),
  );
});
