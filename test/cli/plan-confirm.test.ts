import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { lineWith } from '../support/facts.js';
import { runCli } from '../../src/cli/run-cli.js';
import { testDeps, withTempDir } from './helpers.js';

/**
 * The terminal's own plan (docs/plan.md, "At a terminal"): without --yes, the remote confirmation
 * counts per action, the records the local checks refuse apart, and names where every record is.
 */
describe('the remote confirmation of collection add', () => {
  it('counts per action, the invalid apart, and names the page; nothing is sent when declined', () =>
    withTempDir(async (dir) => {
      const collections = [
        { ExternalId: 'c1', Title: 'Physics', Owner: 'scheduler' },
        { ExternalId: 'c2', Title: 'Maths', Owner: 'scheduler' },
        { ExternalId: 'c3', Title: '', Owner: 'scheduler' },
      ];
      await writeFile(join(dir, 'collections.json'), JSON.stringify(collections));
      const questions: string[] = [];
      let opened = 0;
      const io = testDeps(
        dir,
        {
          isTTY: true,
          confirm: async (question: string) => (questions.push(question), false),
          openApi: async () => ((opened += 1), null),
        },
        { EXAMCTL_BASE_URL: 'https://exam.example.test', EXAMCTL_TOKEN: 'tok' },
      );
      const args = ['--target', 'remote', 'collection', 'add', '--file', 'collections.json'];
      expect(await runCli([...args, '--report', 'night.html'], io.deps)).toBe(2);
      expect(
        lineWith(
          questions[0]!,
          'collection add to remote https://exam.example.test',
          '2 to send',
          '1 invalid (not sent)',
        ),
      ).toBeTruthy();
      expect(questions[0]).toContain('Every record: night.html');
      expect(opened).toBe(0);
    }));
});
