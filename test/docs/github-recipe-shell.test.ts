import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { withTempDir } from '../support/temp-dir.js';

/**
 * docs/ci.md's nightly GitHub recipe: its memory step's shell, as written there, run by bash -e
 * (GitHub's default shell) with `gh` and `examctl` replaced by recorders. Which night it imports,
 * which lost nights it replays and in what order, and when it stops, decide whether a lost runner
 * or a re-run leaves silent damage (test/sync/lost-memory.test.ts runs the examctl side).
 */

function memoryStep(): string {
  const doc = readFileSync(join(__dirname, '..', '..', 'docs', 'ci.md'), 'utf8');
  const section = doc.slice(doc.indexOf('### GitHub Actions: the memory as an artifact of every night'));
  const lines = section.slice(section.indexOf('        id: memory')).split('\n');
  const from = lines.findIndex((line) => line === '        run: |') + 1;
  const body: string[] = [];
  for (const line of lines.slice(from)) {
    if (!line.startsWith('          ')) break;
    body.push(line.slice(10));
  }
  return `${body.join('\n')}\n`;
}

const FAKE_GH = `#!/bin/bash
if [ "$1" = api ]; then
  [ -n "$FAIL_API" ] && exit 1
  case "$*" in *examctl-sync-memory*) printf '%s\\n' $FAKE_MEMORIES;; *examctl-sync-input*) printf '%s\\n' $FAKE_INPUTS;; esac
  exit 0
fi
echo "gh $*" >> "$CALLS"
`;
const FAKE_EXAMCTL = `#!/bin/bash
if [ "$1" = user ]; then echo "examctl $1 $2 $4" >> "$CALLS"; exit \${FAKE_EXIT:-0}; fi
echo "examctl $*" >> "$CALLS"
`;

describe.skipIf(process.platform === 'win32')(
  "the nightly recipe's memory step, run by bash -e (GitHub's Linux runners)",
  () => {
    const night = (
      dir: string,
      tonight: number,
      memories: number[],
      inputs: number[],
      more: Record<string, string> = {},
    ) => {
      const calls = join(dir, `calls-${tonight}-${Math.random().toString(36).slice(2)}`);
      writeFileSync(calls, '');
      const run = spawnSync('bash', ['-e', join(dir, 'step.sh')], {
        cwd: dir,
        encoding: 'utf8',
        env: {
          PATH: `${join(dir, 'bin')}:${process.env.PATH ?? ''}`,
          REPO: 'o/r',
          BRANCH: 'main',
          TONIGHT: String(tonight),
          FAKE_MEMORIES: memories.join(' '),
          FAKE_INPUTS: inputs.join(' '),
          CALLS: calls,
          ...more,
        },
      });
      return {
        code: run.status,
        stdout: run.stdout,
        said: readFileSync(calls, 'utf8')
          .trim()
          .split('\n')
          .filter((line) => line !== ''),
      };
    };

    it("imports the newest night's memory, replays the nights lost since, oldest first, and stops where it must", () =>
      withTempDir(async (dir) => {
        mkdirSync(join(dir, 'bin'));
        writeFileSync(join(dir, 'bin', 'gh'), FAKE_GH);
        writeFileSync(join(dir, 'bin', 'examctl'), FAKE_EXAMCTL);
        chmodSync(join(dir, 'bin', 'gh'), 0o755);
        chmodSync(join(dir, 'bin', 'examctl'), 0o755);
        writeFileSync(join(dir, 'step.sh'), memoryStep());

        // Nights 400 and 450 kept their input and no memory: both replayed after night 300's memory, in order.
        const lost = night(dir, 500, [300, 100, 200], [450, 100, 400, 200, 300, 500]);
        expect(lost.code).toBe(0);
        expect(lost.said).toEqual([
          'gh run download 300 --name examctl-sync-memory --dir kept',
          'examctl synced import kept/sync-memory.json',
          'gh run download 400 --name examctl-sync-input --dir lost-400',
          'examctl user sync lost-400/staff.csv',
          'examctl user sync lost-400/students.csv',
          'gh run download 450 --name examctl-sync-input --dir lost-450',
          'examctl user sync lost-450/staff.csv',
          'examctl user sync lost-450/students.csv',
        ]);
        // A re-run of tonight: its own first attempt's memory, nothing replayed.
        expect(night(dir, 500, [300, 500], [300, 500]).said).toEqual([
          'gh run download 500 --name examctl-sync-memory --dir kept',
          'examctl synced import kept/sync-memory.json',
        ]);
        // A row refused in a replay (exit 1) goes on; a replay refused (exit 2) fails the step.
        expect(night(dir, 500, [300], [400], { FAKE_EXIT: '1' }).code).toBe(0);
        const refused = night(dir, 500, [300], [400, 450], { FAKE_EXIT: '2' });
        expect(refused.code).not.toBe(0);
        expect(refused.said.at(-1)).toBe('examctl user sync lost-400/staff.csv');
        // A re-run of a night older than the newest memory, no memory at all, or a listing that fails: nothing imported or sent.
        for (const stopped of [
          night(dir, 250, [100, 300], [100, 300]),
          night(dir, 500, [], [500]),
          night(dir, 500, [300], [400], { FAIL_API: '1' }),
        ]) {
          expect(stopped.code).not.toBe(0);
          expect(stopped.said).toEqual([]);
        }
      }));
  },
);
