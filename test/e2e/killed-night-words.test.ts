import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { examctl } from '../support/cli.js';
import { withTempDir } from '../support/temp-dir.js';

/**
 * A night killed before it sent anything leaves the local store at the head that night found: not a
 * restore. Neither `doctor` nor the resume may call it one (issue 78: doctor says nothing false).
 */
describe('a night killed before its first request', () => {
  it('is not called a restored store by doctor or by its resume', () =>
    withTempDir(async (dir) => {
      const env = {
        EXAMCTL_RUNS_DIR: join(dir, 'runs'),
        EXAMCTL_SYNC_DIR: join(dir, 'synced'),
        EXAMCTL_STORE: join(dir, 'store'),
      };
      const users = (suffix: string) =>
        `ExternalId,FirstName,LastName,Email,UserName,Role\n${Array.from(
          { length: 20 },
          (_, i) => `u-${i},U,L${i}${i < 5 ? suffix : ''},u${i}@example.test,u-${i},Candidate`,
        ).join('\n')}\n`;
      writeFileSync(join(dir, 'mon.csv'), users(''));
      writeFileSync(join(dir, 'tue.csv'), users('-x'));
      const nightly = (file: string) => [
        'user',
        'sync',
        '--file',
        file,
        '--changed-only',
        '--target',
        'local',
        '--yes',
      ];
      expect((await examctl(['local', 'init'], dir, env)).code).toBe(0);
      expect((await examctl(nightly('mon.csv'), dir, env)).code).toBe(0);
      const killed = await examctl(nightly('tue.csv'), dir, { ...env, EXAMCTL_TEST_SIGNAL_AFTER: 'sent:1:SIGKILL' });
      expect(killed.signal).toBe('SIGKILL');
      const doctor = await examctl(['doctor', '--target', 'local'], dir, env);
      expect(doctor.stdout + doctor.stderr).not.toContain('restored');
      const resumed = await examctl(['runs', 'resume', '--yes', '--json'], dir, env);
      expect(resumed.code, resumed.stderr).toBe(0);
      expect(resumed.stderr).not.toContain('restored');
      const summary = (JSON.parse(resumed.stdout) as { summary: { actions: Record<string, number> } }).summary;
      expect(summary.actions).toEqual({ update: 5, unchanged: 15 });
    }));
});
