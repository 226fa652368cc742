import { readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { examctlStep as examctl } from '../support/in-process.js';

/**
 * An export cut short inside its last row (the SIS job killed while writing, a full disk): its
 * last record has no line end while the others have one. The night says so on stderr, naming the
 * file and the line (docs/sync.md, "Leavers"), and is not refused (trial48 F04).
 */

const HEADER = 'ExternalId,FirstName,LastName,UserName,Role,Email';
const rows = Array.from({ length: 20 }, (_, i) => `u${i},F,L${i},u${i},Candidate,first.last.${i}@school.example.test`);

describe('a CSV whose last row has no line end', () => {
  let dir: string;
  let env: Record<string, string>;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'examctl-cut-export-'));
    env = { EXAMCTL_RUNS_DIR: join(dir, 'state', 'runs') };
    writeFileSync(join(dir, 'night1.csv'), `${[HEADER, ...rows].join('\n')}\n`);
    const whole = readFileSync(join(dir, 'night1.csv'), 'utf8');
    writeFileSync(join(dir, 'night2.csv'), whole.slice(0, whole.indexOf('u18,') + 40));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('is said on stderr, naming the file and its last line; a file that ends its rows says nothing of it (trial48 F04)', async () => {
    const sync = (file: string) =>
      examctl(
        [
          'user',
          'sync',
          '--file',
          file,
          '--target',
          'local',
          '--store',
          'store',
          '--changed-only',
          '--disable-missing',
          '--yes',
        ],
        dir,
        env,
      );
    const first = await sync('night1.csv');
    expect([first.code, first.stderr]).not.toContainEqual(expect.stringMatching(/line end/));
    const second = await sync('night2.csv');
    expect(second.stderr).toMatch(
      /warning: night2\.csv:20: the last row has no line end \(the others have one\): an export cut short\?/,
    );
  });
});
