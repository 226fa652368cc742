import { readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { lineWith } from '../support/facts.js';
import { runCli } from '../../src/cli/run-cli.js';
import { clockFromEnv } from '../../src/engine/index.js';
import { serveLocalStore } from '../../src/server/index.js';
import type { CommandDeps } from '../../src/context/command-deps.js';
import { testDeps, withTempDir } from './helpers.js';

/**
 * `examctl apply FILE` at a terminal without --yes (docs/plan.md, "At a terminal"): it never asks,
 * on the local target and on a remote one alike; the plan a person reviewed is the confirmation.
 */

const USERS = resolve(__dirname, '../../fixtures/users.csv');

/** A night's plan (one surname changed), then its apply at a faked terminal without --yes: what was asked, what was sent. */
async function applyAtTerminal(dir: string, target: string[], env: Record<string, string>, sent: () => number) {
  const run = async (args: string[], overrides: Partial<CommandDeps> = {}) => {
    const io = testDeps(dir, overrides, { EXAMCTL_RUNS_DIR: join(dir, 'runs'), ...env });
    const code = await runCli([...target, ...args], io.deps);
    return { code, stderr: io.stderr.text };
  };
  const lines = (await readFile(USERS, 'utf8')).trimEnd().split('\n');
  await writeFile(join(dir, 'users.csv'), `${lines.join('\n')}\n`);
  expect((await run(['user', 'sync', '--file', 'users.csv', '--yes'])).code).toBe(0);
  lines[1] = lines[1]!.replace('Haddad', 'Haddad-Smith');
  await writeFile(join(dir, 'export.csv'), `${lines.join('\n')}\n`);
  expect(
    (await run(['user', 'sync', '--file', 'export.csv', '--changed-only', '--dry-run', '--plan-out', 'plan.json']))
      .code,
  ).toBe(0);
  const questions: string[] = [];
  const before = sent();
  const applied = await run(['apply', 'plan.json', '--report', 'applied.json'], {
    isTTY: true,
    confirm: async (question: string) => (questions.push(question), false),
  });
  const items = JSON.parse(await readFile(join(dir, 'applied.json'), 'utf8')).items as { id: string; action: string }[];
  return { applied, questions, sent: sent() - before, updated: items.filter((item) => item.action === 'updated') };
}

describe('examctl apply at a terminal, without --yes', () => {
  it('on the local target: asks nothing, sends the plan, says its counts', () =>
    withTempDir(async (dir) => {
      const { applied, questions, updated } = await applyAtTerminal(dir, ['--store', join(dir, 'store')], {}, () => 0);
      expect(applied.code, applied.stderr).toBe(0);
      expect(questions).toEqual([]);
      expect(updated.map((item) => item.id)).toEqual(['stu-2001']);
      expect(lineWith(applied.stderr, 'applying plan ', '1 to update', '19 unchanged')).toMatch(/plan [0-9a-f]{16} /);
    }));

  it('on a remote target: the same, nothing asked, the plan sent', () =>
    withTempDir(async (dir) => {
      const log: string[] = [];
      const server = await serveLocalStore({
        storeDir: join(dir, 'served'),
        port: 0,
        now: clockFromEnv({ EXAMCTL_NOW: '2026-11-21T10:00:00Z' }),
        log: (line) => log.push(line),
      });
      try {
        const posts = () => log.filter((line) => line.startsWith('POST /api/v1/integrations/user ')).length;
        const { applied, questions, sent, updated } = await applyAtTerminal(
          dir,
          ['--target', 'remote', '--base-url', server.url],
          { EXAMCTL_TOKEN: 'dev-token' },
          posts,
        );
        expect(applied.code, applied.stderr).toBe(0);
        expect(questions).toEqual([]);
        expect(sent).toBe(1);
        expect(updated.map((item) => item.id)).toEqual(['stu-2001']);
        expect(lineWith(applied.stderr, 'applying plan ', '1 to update')).toMatch(/plan [0-9a-f]{16} /);
      } finally {
        await server.close();
      }
    }));
});
