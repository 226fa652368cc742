import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { expectCoded } from '../support/coded-message.js';
import { serveLocalStore } from '../../src/server/index.js';
import { examctl, serveWithFaults } from '../support/faulty-serve.js';

/**
 * Trial 35, F02: a profile's map file edited between a stopped run and `runs resume` reshaped the
 * rest of the run (first and last names swapped), exit 0, where a typed --map-file is refused. The
 * journal keeps the profile's map file's SHA-256 too: the resume refuses it changed, naming it.
 */

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'examctl-profile-map-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("runs resume and the profile's map file", () => {
  it('changed since the run stopped: exit 2 naming it, nothing sent; put back: the resume sends the rest mapped as the run was', async () => {
    const map = join(dir, 'map.json');
    await writeFile(map, '{"Given":"FirstName","Surname":"LastName"}');
    await writeFile(
      join(dir, 'users.csv'),
      'ExternalId,Given,Surname,Email,Role\npm-1,Ann,Lee,pm-1@example.test,Candidate\npm-2,Bo,Ng,pm-2@example.test,Candidate\n',
    );
    const failing = await serveWithFaults(dir, '503:100%', 7, []);
    const port = Number(new URL(failing.url).port);
    const log: string[] = [];
    try {
      await writeFile(join(dir, 'token'), 'dev-token\n', { mode: 0o600 });
      const profile = ['--base-url', failing.url, '--token-file', join(dir, 'token'), '--map-file', map, '--default'];
      expect((await examctl(dir, ['config', 'set-profile', 'admin', ...profile])).code).toBe(0);
      const first = await examctl(dir, ['--yes', 'user', 'sync', '--file', 'users.csv']);
      expect(first.code, first.stderr).toBe(3);
    } finally {
      await failing.close();
    }
    const healthy = await serveLocalStore({
      storeDir: join(dir, 'served-store'),
      port,
      now: () => new Date('2026-11-21T10:00:00Z'),
      log: (line) => log.push(line),
    });
    try {
      await writeFile(map, '{"Given":"LastName","Surname":"FirstName"}');
      const refused = await examctl(dir, ['--yes', 'runs', 'resume']);
      expect(refused.code, refused.stderr).toBe(2);
      expect(refused.stderr).toMatch(
        new RegExp(
          `: its profile admin's map file ${map} changed since the run started \\(SHA-256 differs\\); put the original back and resume`,
        ),
      );
      expect(log.filter((line) => line.startsWith('POST '))).toEqual([]);
      await writeFile(map, '{"Given":"FirstName","Surname":"LastName"}');
      const resumed = await examctl(dir, ['--yes', 'runs', 'resume']);
      expect(resumed.code, resumed.stderr).toBe(0);
    } finally {
      await healthy.close();
    }
    const world = JSON.parse(
      (await examctl(dir, ['--store', join(dir, 'served-store'), 'local', 'export'])).stdout,
    ) as { Users: { ExternalId: string; FirstName: string }[] };
    expect(world.Users.filter((user) => user.ExternalId.startsWith('pm-')).map((user) => user.FirstName)).toEqual([
      'Ann',
      'Bo',
    ]);
  });

  it('a run given its own --map-file: the profile map, which shaped nothing, edited since; the resume goes on (trial36 F06)', async () => {
    const map = join(dir, 'map.json');
    await writeFile(map, '{"Given":"FirstName","Surname":"LastName"}');
    await writeFile(join(dir, 'job.json'), '{"Given":"FirstName","Surname":"LastName"}');
    await writeFile(
      join(dir, 'users.csv'),
      'ExternalId,Given,Surname,Email,Role\npm-1,Ann,Lee,pm-1@example.test,Candidate\n',
    );
    const failing = await serveWithFaults(dir, '503:100%', 7, []);
    const port = Number(new URL(failing.url).port);
    try {
      await writeFile(join(dir, 'token'), 'dev-token\n', { mode: 0o600 });
      const profile = ['--base-url', failing.url, '--token-file', join(dir, 'token'), '--map-file', map, '--default'];
      expect((await examctl(dir, ['config', 'set-profile', 'admin', ...profile])).code).toBe(0);
      expect(
        (await examctl(dir, ['--yes', 'user', 'sync', '--file', 'users.csv', '--map-file', 'job.json'])).code,
      ).toBe(3);
    } finally {
      await failing.close();
    }
    const healthy = await serveLocalStore({
      storeDir: join(dir, 'served-store'),
      port,
      now: () => new Date('2026-11-21T10:00:00Z'),
      log: () => undefined,
    });
    try {
      await writeFile(map, '{"Given":"LastName","Surname":"FirstName"}');
      const resumed = await examctl(dir, ['--yes', 'runs', 'resume']);
      expect(resumed.code, resumed.stderr).toBe(0);
    } finally {
      await healthy.close();
    }
  });

  /** A run with profile admin's map `profileMap` and its own --map-file `ownMap`, stopped by a 503 before it sent a user; then `edited` in place of the profile's map: the resume's result, and the POSTs it made. */
  async function resumeAfterEdit(
    profileMap: string,
    ownMap: string,
    edited: string,
  ): Promise<{ code: number; stderr: string; posts: string[] }> {
    const map = join(dir, 'map.json');
    await writeFile(map, profileMap);
    await writeFile(join(dir, 'job.json'), ownMap);
    await writeFile(
      join(dir, 'users.csv'),
      'ExternalId,Given,Surname,Mail,Role\npm-1,Ann,Lee,pm-1@example.test,Candidate\n',
    );
    const failing = await serveWithFaults(dir, '503:100%', 7, []);
    const port = Number(new URL(failing.url).port);
    try {
      await writeFile(join(dir, 'token'), 'dev-token\n', { mode: 0o600 });
      expect(
        (
          await examctl(dir, [
            'config',
            'set-profile',
            'admin',
            '--base-url',
            failing.url,
            '--token-file',
            join(dir, 'token'),
            '--map-file',
            map,
            '--default',
          ])
        ).code,
      ).toBe(0);
      expect(
        (await examctl(dir, ['--yes', 'user', 'sync', '--file', 'users.csv', '--map-file', 'job.json'])).code,
      ).toBe(3);
    } finally {
      await failing.close();
    }
    const log: string[] = [];
    const healthy = await serveLocalStore({
      storeDir: join(dir, 'served-store'),
      port,
      now: () => new Date('2026-11-21T10:00:00Z'),
      log: (line) => log.push(line),
    });
    try {
      await writeFile(map, edited);
      return {
        ...(await examctl(dir, ['--yes', 'runs', 'resume'])),
        posts: log.filter((line) => line.startsWith('POST ')),
      };
    } finally {
      await healthy.close();
    }
  }

  it('a run given its own --map-file that maps other columns: both maps shaped it, the profile map edited since is refused (trial38 F03)', async () => {
    const resumed = await resumeAfterEdit(
      '{"Given":"FirstName","Surname":"LastName"}',
      '{"Mail":"Email"}',
      '{"Given":"LastName","Surname":"FirstName"}',
    );
    expect(resumed.code, resumed.stderr).toBe(2);
    expectCoded(resumed.stderr, 'E2200', `profile admin's map file ${join(dir, 'map.json')}`, 'SHA-256');
    expect(resumed.posts).toEqual([]);
  });

  it("a profile map whose every field the run's own --map-file maps from other columns shaped nothing: edited since, the resume goes on (trial38 F03)", async () => {
    const resumed = await resumeAfterEdit(
      '{"Forename":"FirstName"}',
      '{"Given":"FirstName","Surname":"LastName","Mail":"Email"}',
      '{"Forename":"LastName"}',
    );
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.posts.length).toBeGreaterThan(0);
  });
});
