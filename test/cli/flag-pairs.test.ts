import { Command, Option } from 'commander';
import { describe, expect, it } from 'vitest';
import { COMMANDS } from '../../src/cli/program.js';
import { commandName } from '../../src/cli/command-declaration.js';
import { runCli } from '../../src/cli/run-cli.js';
import { excluding, needing, pairingRefusal } from '../../src/flags/flag-pairs.js';
import { option, registerSpecs } from '../../src/flags/option-table.js';
import { expectCoded } from '../support/coded-message.js';
import { testDeps, withTempDir } from './helpers.js';

/**
 * A flag that needs another of its command, or refuses one beside it, says so in its table
 * (src/flags/flag-pairs.ts): the program refuses the pair (exit 2, E2000) before the command runs.
 */

describe('flags that need or exclude others, declared on the tables', () => {
  it('every flag a table needs or excludes is a flag of that same command', () => {
    const wrong: string[] = [];
    for (const declaration of COMMANDS) {
      const table = declaration.options ?? [];
      const longs = table.flatMap((spec) => (spec.kind === 'option' ? [new Option(spec.flags).long] : []));
      for (const spec of table) {
        if (spec.kind !== 'option') continue;
        const named = [
          ...(spec.needs ?? []).flatMap((need) => need.anyOf),
          ...(spec.excludes ?? []).flatMap((exclusion) => exclusion.flags),
        ];
        for (const flag of named)
          if (!longs.includes(flag)) wrong.push(`${commandName(declaration)} ${spec.flags}: ${flag}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('the first flag given without what it needs, or with what it excludes, is refused; a default is not given', () => {
    const table = [
      ...needing(['--file'], 'the export', [
        option('--changed-only', 'c'),
        ...needing(['--disable-missing', '--prune'], undefined, [option('--max <n>', 'm', '5')] as const),
      ] as const),
      option('--file <path>', 'f'),
      ...excluding(['--only-new'], 'each leaves out the other', [option('--disable-missing', 'd')] as const),
      option('--prune', 'p'),
      option('--only-new', 'n'),
    ] as const;
    const parsed = (argv: string[]): Command => {
      const command = registerSpecs(new Command('x').exitOverride(), table);
      command.parse(argv, { from: 'user' });
      return command;
    };
    // --max's default alone is no --max given.
    expect(pairingRefusal(table, parsed([]))).toBeUndefined();
    expect(pairingRefusal(table, parsed(['--changed-only']))?.message).toBe('--changed-only needs --file: the export');
    // The outer need first.
    expect(pairingRefusal(table, parsed(['--max', '3']))?.message).toBe('--max needs --file: the export');
    expect(pairingRefusal(table, parsed(['--max', '3', '--file', 'f']))?.message).toBe(
      '--max needs --disable-missing or --prune',
    );
    expect(pairingRefusal(table, parsed(['--max', '3', '--file', 'f', '--prune']))).toBeUndefined();
    const both = pairingRefusal(table, parsed(['--disable-missing', '--only-new']));
    expect(both?.message).toBe('--disable-missing and --only-new do not go together: each leaves out the other');
    expect(both?.code).toBe('E2000');
  });

  it.each([
    [
      ['user', 'sync', '--population', 'staff'],
      ['--population', 'needs --file'],
    ],
    [
      ['user', 'sync', '--file', 'u.csv', '--max-prune', '5%'],
      ['--max-prune', 'needs --prune-memberships'],
    ],
    [
      ['user', 'sync', '--file', 'u.csv', '--require-memory'],
      ['--require-memory', '--changed-only'],
    ],
    [
      ['user', 'sync', '--file', 'u.csv', '--disable-missing', '--only-failed'],
      ['--disable-missing', '--only-failed'],
    ],
    [
      ['user', 'sync', '--file', 'u.csv', '--only-new', '--only-existing'],
      ['--only-new', '--only-existing'],
    ],
    [
      ['schedule', 'push', '--file', 's.csv', '--changed-only'],
      ['--changed-only', 'needs --upsert'],
    ],
    [
      ['schedule', 'push', '--file', 's.csv', '--upsert', '--require-memory'],
      ['--require-memory', '--changed-only'],
    ],
    [
      ['schedule', 'push', '--file', 's.csv', '--only-existing'],
      ['--only-existing', 'needs --upsert'],
    ],
    [
      ['local', 'serve', '--faults-seed', '3'],
      ['--faults-seed', 'needs --faults'],
    ],
    [
      ['invigilators', 'remove', 'S-1', 'inv-1', '--only-failed'],
      ['--only-failed', 'needs --file'],
    ],
    [
      ['user', 'sync', '--only-failed'],
      ['--only-failed', 'needs --file'],
    ],
    [
      ['collection', 'add', '--file', 'c.json', '--title', 'T'],
      ['--title', '--file', 'put the fields in the file'],
    ],
  ])('%j: exit 2, E2000, naming %j, nothing made', (argv, facts) =>
    withTempDir(async (dir) => {
      const io = testDeps(dir);
      expect(await runCli(['--store', 'store', '--no-input', ...argv], io.deps)).toBe(2);
      expectCoded(io.stderr.text, 'E2000', ...facts);
      expect(io.stdout.text).toBe('');
    }),
  );
});
