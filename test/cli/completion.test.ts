import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import {
  bashCompletion,
  commandTree,
  powershellCompletion,
  fishCompletion,
  SHELLS,
  zshCompletion,
} from '../../src/flags/completion.js';
import { buildProgram } from '../../src/cli/command-tree.js';
import { COMMANDS } from '../../src/cli/program.js';
import { testDeps } from './helpers.js';
import { runCli } from '../../src/cli/run-cli.js';
import { expectCoded } from '../support/coded-message.js';

const program = (): Command => buildProgram(testDeps('/tmp').deps, () => undefined, COMMANDS);

const hasShell = (shell: string): boolean => spawnSync(shell, ['-c', 'exit 0']).status === 0;

/** Completes `words` (the last one being typed) in a real bash with the generated script loaded. */
async function complete(script: string, words: string[]): Promise<string[]> {
  const dir = await mkdtemp(join(tmpdir(), 'examctl-completion-'));
  try {
    await writeFile(join(dir, 'examctl.bash'), script);
    await writeFile(join(dir, 'report.csv'), '');
    const driver = `source ./examctl.bash
COMP_WORDS=("$@"); COMP_CWORD=$(( \${#COMP_WORDS[@]} - 1 ))
_examctl
printf '%s\\n' "\${COMPREPLY[@]}"`;
    const result = spawnSync('bash', ['-c', driver, 'bash', ...words], { cwd: dir, encoding: 'utf8' });
    if (result.status !== 0) throw new Error(result.stderr);
    return result.stdout.split('\n').filter((line) => line !== '');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Loads the script from a file in `shell` and runs `command` after it; its stdout. */
async function inShell(shell: string, script: string, command: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'examctl-completion-'));
  try {
    await writeFile(join(dir, 'examctl.completion'), script);
    expect(spawnSync(shell, ['-n', join(dir, 'examctl.completion')]).status).toBe(0);
    const result = spawnSync(shell, ['-c', `source ${join(dir, 'examctl.completion')}; ${command}`], {
      encoding: 'utf8',
    });
    if (result.status !== 0) throw new Error(result.stderr);
    return result.stdout;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

describe('completion from the command tree', () => {
  it('sees every command and option of the real program, help included', () => {
    const tree = commandTree(program());
    // `help`'s own children are the tree again (`examctl help user sync`).
    const paths = tree.children
      .flatMap((child) => (child.path[0] === 'help' ? [child] : [child, ...child.children]))
      .map((node) => node.path.join(' '));
    expect(paths.sort()).toEqual(
      [...COMMANDS.map((declaration) => declaration.path.join(' ')), 'options', 'help'].sort(),
    );
    const push = tree.children.find((child) => child.path[0] === 'schedule')!.children[0]!;
    expect(push.path).toEqual(['schedule', 'push']);
    const workflow = push.options.find((option) => option.names.includes('--workflow'))!;
    expect(workflow).toMatchObject({ takesValue: true, choices: ['DEFAULT', 'EXTERNAL_ATTEMPTS'], file: false });
    expect(push.options.find((option) => option.names.includes('--file'))).toMatchObject({
      names: ['-f', '--file'],
      file: true,
    });
  });

  it('a new command or flag is completed without editing anything', () => {
    const extended = program();
    extended.command('widget').description('a command added later').option('--colour <name>', 'its colour');
    expect(bashCompletion(extended)).toContain("'widget') echo '--colour");
    expect(fishCompletion(extended)).toContain("-a 'widget'");
  });

  it.skipIf(!hasShell('bash'))(
    'the bash script parses (bash -n) and completes commands, options, choices and files',
    async () => {
      const script = bashCompletion(program());
      expect(spawnSync('bash', ['-n'], { input: script }).status).toBe(0);
      // In the registry's order (src/cli/program.ts), then the two the tree adds.
      expect(await complete(script, ['examctl', ''])).toEqual([
        ...COMMANDS.filter((declaration) => declaration.path.length === 1).map((declaration) => declaration.path[0]),
        'options',
        'help',
      ]);
      expect(await complete(script, ['examctl', 'help', 'env'])).toEqual(['environment']);
      expect(await complete(script, ['examctl', 'completion', ''])).toEqual([]);
      expect(await complete(script, ['examctl', 'loc'])).toEqual(['local']);
      expect(await complete(script, ['examctl', 'local', ''])).toEqual(
        COMMANDS.filter((declaration) => declaration.path[0] === 'local' && declaration.path.length === 2).map(
          (declaration) => declaration.path[1],
        ),
      );
      expect(await complete(script, ['examctl', 'schedule', 'push', '--up'])).toEqual(['--upsert']);
      expect(await complete(script, ['examctl', '--store', 'x', 'schedule', 'push', '--workflow', ''])).toEqual([
        'DEFAULT',
        'EXTERNAL_ATTEMPTS',
      ]);
      expect(await complete(script, ['examctl', 'review-session', 'show', 'RS-1', '-o', 'c'])).toEqual(['csv']);
      expect(await complete(script, ['examctl', 'user', 'sync', '--report', 'rep'])).toEqual(['report.csv']);
      expect(await complete(script, ['examctl', 'help', 'con'])).toEqual(['config']);
      const globals = await complete(script, ['examctl', 'user', 'sync', '--']);
      expect(globals).toEqual(
        expect.arrayContaining(['--file', '--only-failed', '--json', '--dry-run', '--no-input', '--help']),
      );
      expect(globals).not.toContain('--version');
      expect(new Set(globals).size).toBe(globals.length);
    },
  );

  it.skipIf(!hasShell('zsh'))('the zsh script parses and registers the completion', async () => {
    expect(await inShell('zsh', zshCompletion(program()), 'complete -p examctl')).toContain(
      'complete -F _examctl examctl',
    );
  });

  it.skipIf(!hasShell('fish'))('the fish script parses and completes subcommands and choices', async () => {
    const script = fishCompletion(program());
    expect(await inShell('fish', script, 'complete -C "examctl local "')).toMatch(/^init\t/m);
    expect(await inShell('fish', script, 'complete -C "examctl --target "')).toMatch(/^remote\t/m);
  });

  it('fish: subcommands only after their group, options only under their command, files for path options', () => {
    const fish = fishCompletion(program());
    expect(fish).toContain(
      "complete -c examctl -n '__fish_seen_subcommand_from schedule; and not __fish_seen_subcommand_from push links' -a 'push'",
    );
    expect(fish).toContain(
      "complete -c examctl -n '__fish_seen_subcommand_from schedule; and __fish_seen_subcommand_from push' -s f -l file -r -F",
    );
    expect(fish).toContain("complete -c examctl -n '__fish_use_subcommand' -l target -x -a 'local remote'");
  });

  it('each command is offered the global flags its declaration takes, not those it refuses with exit 2 (trial11 F13)', async () => {
    const script = bashCompletion(program());
    if (hasShell('bash')) {
      expect(await complete(script, ['examctl', 'runs', 'prune', '--d'])).toEqual(['--debug']);
      // --strict, --no-strict: for commands that send records (runs list refuses them).
      expect(await complete(script, ['examctl', 'runs', 'list', '--st'])).toEqual([]);
      expect(await complete(script, ['examctl', 'runs', 'list', '--no-'])).toEqual(['--no-input']);
      expect(await complete(script, ['examctl', 'user', 'sync', '--st'])).toEqual(['--store', '--strict']);
      expect(await complete(script, ['examctl', '--st'])).toEqual(['--store', '--strict']);
      // A group: the global flags its commands take (trial12 F08).
      expect(await complete(script, ['examctl', 'user', '--st'])).toEqual(['--store', '--strict']);
    }
    expect(script).toMatch(/'review-session'\) echo '[^']*--store[^']*' ;;/);
    expect(script).not.toMatch(/'review-session'\) echo '[^']*--report[^']*' ;;/);
    const fish = fishCompletion(program());
    expect(fish).toContain(
      "complete -c examctl -n '__fish_seen_subcommand_from user; and __fish_seen_subcommand_from sync' -l dry-run",
    );
    expect(fish).not.toContain(
      "complete -c examctl -n '__fish_seen_subcommand_from runs; and __fish_seen_subcommand_from prune' -l dry-run",
    );
    const ps = powershellCompletion(program());
    expect(ps).toMatch(/'user sync' = @\([^)]*'--dry-run'/);
    expect(ps).not.toMatch(/'runs prune' = @\([^)]*'--dry-run'/);
  });
});

describe('completion command module', () => {
  it('prints the script for a known shell; another, or none, is refused by its table (exit 2) naming the shells', async () => {
    const io = testDeps('/tmp');
    expect(await runCli(['completion', 'bash'], io.deps)).toBe(0);
    expect(io.stdout.text).toContain('complete -F _examctl examctl');
    const other = testDeps('/tmp');
    expect(await runCli(['completion', 'tcsh'], other.deps)).toBe(2);
    expectCoded(other.stderr.text, 'E2001', "'tcsh'", SHELLS.join(', '));
    expect(other.stdout.text).toBe('');
    const none = testDeps('/tmp');
    expect(await runCli(['completion'], none.deps)).toBe(2);
    expectCoded(none.stderr.text, 'E2001', 'shell');
  });
});

describe('completion on macOS bash 3.2 and in PowerShell', () => {
  it.runIf(hasShell('bash'))('bash: eval "$(examctl completion bash)" registers the completer', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'examctl-completion-'));
    try {
      await writeFile(join(dir, 'examctl.bash'), bashCompletion(program()));
      const result = spawnSync('bash', ['-c', 'eval "$(cat ./examctl.bash)"; complete -p examctl'], {
        cwd: dir,
        encoding: 'utf8',
      });
      expect(result.stdout).toContain('complete -F _examctl examctl');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('bash: the script uses nothing newer than bash 3.2 (compopt, bash 4, only where its absence is harmless)', () => {
    const script = bashCompletion(program());
    expect(script).toContain('eval "$(examctl completion bash)"');
    for (const bash4 of [
      /declare -A/,
      /\bmapfile\b/,
      /\breadarray\b/,
      /\$\{\w+(,,|\^\^)\}/,
      /;;&/,
      /\|&/,
      /&>>/,
      /\bcoproc\b/,
    ])
      expect(script).not.toMatch(bash4);
    expect(
      script
        .split('\n')
        .filter((line) => line.includes('compopt'))
        .every((line) => line.includes('2>/dev/null')),
    ).toBe(true);
  });

  it('powershell: a native argument completer over the same tree, choices per command, files left to PowerShell', () => {
    const ps = powershellCompletion(program());
    expect(ps).toContain("Register-ArgumentCompleter -Native -CommandName @('examctl', 'examctl.cmd', 'examctl.ps1')");
    expect(ps).toContain("    'schedule' = @('push', 'links')");
    expect(ps).toContain("    'template|-o' = @('csv', 'xlsx', 'json')");
    expect(ps).toMatch(/\$examctlTakesValue = @\([^)]*'--file'/);
    expect(ps).toMatch(/'user sync' = @\([^)]*'--file'/);
    // Every command of the tree is a key of the options table.
    for (const node of commandTree(program()).children) expect(ps).toContain(`    '${node.path.join(' ')}' = @(`);
    // The tables are inside the completer's script block, not variables of the loading scope.
    expect(ps.indexOf('$examctlChildren = @{')).toBeGreaterThan(ps.indexOf('Register-ArgumentCompleter'));
  });
});
