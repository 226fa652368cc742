import { readFile, writeFile } from 'node:fs/promises';
import { isDeepStrictEqual } from 'node:util';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { corpus, expectNoStack, inTempDir, parseCsv, parseReport, type Report } from './helpers.js';
import { examctlStep as examctl } from '../support/in-process.js';

// An unseen world (fixtures/corpus/world-alt.json): other ids and roles, an API owner without
// permissions, no proctoring templates, a nested inactive hierarchy, review sessions with odd
// fields. A scenario across every command, then export / re-init round trip, then broken worlds.

type World = Record<string, unknown> & {
  Users: { ExternalId: string }[];
  Schedules: {
    ScheduleExtId: string;
    Invigilators: string[];
    Candidates: { CandidateExtId: string; StartupLink: string }[];
  }[];
  Collections: { ExternalId: string; Owner: string }[];
};

const brief = (doc: Report) => doc.items.map((i) => [i.id, i.status, ...i.errors.map((e) => [e.field, e.code])]);

describe('world-alt: a scenario across all commands', () => {
  it('init, users, schedules, collections, invigilators, review sessions, export round trip', async () => {
    await inTempDir(async (dir) => {
      const store = join(dir, 'store');
      const S = ['--store', store];
      const run = async (args: string[]) => {
        const result = await examctl([...args, ...S], dir);
        expectNoStack(result);
        return result;
      };

      const init = await run(['local', 'init', '--seed', corpus('world-alt.json')]);
      expect(init.code).toBe(0);
      expect(init.stdout).toBe('');

      // Users: role names of this world, the inactive nested hierarchy, case-insensitive ids.
      const users = join(dir, 'users.csv');
      await writeFile(
        users,
        [
          'ExternalId,FirstName,LastName,Email,Role,Hierarchies,UserName',
          'st_002@alt,Bo,Ek,bo.ek@alt-university.test,Student,FAC-SCI,st002',
          'st_003@alt,Cy,Ek,cy.ek@alt-university.test,Student,LAB-OLD,st003',
          'st_004@alt,Di,Ek,di.ek@alt-university.test,Candidate,FAC-SCI,st004',
          'ST_001@ALT,Ed,Ek,ed.ek@alt-university.test,Student,,st005',
          'st_006@alt,Fa,Ek,fa.ek@alt-university.test,Student,ORG,planner',
          '',
        ].join('\n'),
      );
      const sync = await run(['user', 'sync', '--file', users, '--json']);
      expect(sync.code).toBe(1);
      expect(brief(parseReport(sync))).toEqual([
        ['st_002@alt', 'ok'],
        ['st_003@alt', 'partial', ['Hierarchies[0]', 1134]],
        ['st_004@alt', 'failed', ['Role', 241]],
        ['ST_001@ALT', 'failed', ['ExternalId', 233]],
        ['st_006@alt', 'failed', ['UserName', 214]],
      ]);

      // Schedules: the settings owner has no permission; with --owner planner it works; no
      // proctoring template anywhere; an inactive group; the span rule (60 + 15 minutes).
      const cands = join(dir, 'cands.csv');
      await writeFile(
        cands,
        'CandidateExtId,FirstName,LastName,Email,AttemptExtId\nst-002,Bo,Ek,bo.ek@alt-university.test,ATT-2\n',
      );
      const plain = join(dir, 'plain.csv');
      await writeFile(plain, 'CandidateExtId,FirstName,LastName,Email\nst-002,Bo,Ek,bo.ek@alt-university.test\n');
      const base = [
        'schedule',
        'push',
        '--json',
        '--no-input',
        '--start',
        '2026-12-01T08:00:00Z',
        '--group',
        'DEPT-CHEM',
        '--group-name',
        'Chemistry',
      ];
      const push = async (extra: string[]) => parseReport(await run([...base, ...extra]));
      expect(brief(await push(['--schedule-id', 'ALT-NEW', '--assessment', 'EX-CHEM-101', '--file', plain]))).toEqual([
        ['ALT-NEW', 'failed', ['Schedule.Owner', null]],
      ]);
      const created = await push([
        '--schedule-id',
        'ALT-NEW',
        '--assessment',
        'EX-CHEM-101',
        '--file',
        plain,
        '--owner',
        'planner',
      ]);
      expect(created.items.map((i) => [i.status, i.action])).toEqual([['ok', 'created']]);
      expect(
        brief(
          await push([
            '--schedule-id',
            'ALT-PROC',
            '--assessment',
            'EX-BIO-PROC',
            '--file',
            plain,
            '--owner',
            'planner',
          ]),
        ),
      ).toEqual([['ALT-PROC', 'failed', ['Schedule.ProctoringServiceTemplateExternalId', null]]]);
      expect(
        brief(
          await push([
            '--schedule-id',
            'ALT-OLD',
            '--assessment',
            'EX-CHEM-101',
            '--file',
            plain,
            '--owner',
            'planner',
            '--schedule-group',
            'DEPT-OLD',
          ]),
        ),
      ).toEqual([['ALT-OLD', 'failed', ['Schedule.ScheduleGroupExtId', null]]]);
      expect(
        brief(
          await push([
            '--schedule-id',
            'ALT-SHORT',
            '--assessment',
            'EX-CHEM-101',
            '--file',
            plain,
            '--owner',
            'planner',
            '--end',
            '2026-12-01T09:15:00Z',
          ]),
        ),
      ).toEqual([['ALT-SHORT', 'failed', ['Schedule.EndDateTime', null]]]);
      // Upsert of the EXTERNAL_ATTEMPTS schedule keeps its workflow; candidates are added.
      const upsert = await push([
        '--schedule-id',
        'ALT-UPCOMING',
        '--upsert',
        '--workflow',
        'EXTERNAL_ATTEMPTS',
        '--assessment',
        'EX-CHEM-101',
        '--file',
        cands,
        '--owner',
        'planner',
      ]);
      expect(upsert.items.map((i) => [i.status, i.action])).toEqual([['ok', 'updated']]);

      // Collections: 808 for the settings owner, 1002 for a draft repository, 810 for a used id.
      const coll = async (extra: string[]) => brief(parseReport(await run(['collection', 'add', '--json', ...extra])));
      expect(await coll(['--title', 'No perms'])).toEqual([[null, 'failed', ['Owner', 808]]]);
      expect(await coll(['--title', 'Drafts', '--owner', 'planner', '--repository', 'REPO-DRAFT'])).toEqual([
        [null, 'failed', ['ObjectiveRepositories[0].ExternalId', 1002]],
      ]);
      expect(await coll(['--title', 'Dup', '--owner', 'planner', '--external-id', 'scicore'])).toEqual([
        ['scicore', 'failed', ['ExternalId', 810]],
      ]);
      const made = parseReport(
        await run([
          'collection',
          'add',
          '--json',
          '--title',
          'Chemistry set',
          '--owner',
          'planner',
          '--external-id',
          'chem1',
          '--taxonomy',
          'TAX-SUBJ',
          '--repository',
          'REPO-SCI',
        ]),
      );
      expect(made.items.map((i) => [i.id, i.status])).toEqual([['chem1', 'ok']]);

      // Invigilators: finished (305), archived (302), 319 for a stranger, a duplicate id.
      const inv = async (args: string[]) =>
        brief(parseReport(await run(['invigilators', 'remove', '--json', ...args])));
      expect(await inv(['ALT-DONE', 'px-1'])).toEqual([['px-1', 'failed', ['ScheduleExtId', 305]]]);
      expect(await inv(['ALT-SHELVED', 'px-2'])).toEqual([['px-2', 'failed', ['ScheduleExtId', 302]]]);
      expect(await inv(['ALT-UPCOMING', 'px-1', 'px-9'])).toEqual([
        ['px-1', 'ok'],
        ['px-9', 'failed', ['UserExtId', 319]],
      ]);

      // Review sessions: odd fields come back exactly as the world gave them, but the PIN (withheld: docs/cli-contract.md, "Run report").
      const world = JSON.parse(await readFile(corpus('world-alt.json'), 'utf8')) as {
        ReviewSessions: Record<string, unknown>[];
      };
      const odd = await run(['review-session', 'show', 'RS-ALT-ODD', '--json']);
      expect(odd.code).toBe(0);
      expect(isDeepStrictEqual(JSON.parse(odd.stdout), { ...world.ReviewSessions[0], Pin: 'withheld' })).toBe(true);
      const csv = await run(['review-session', 'show', 'RS-ALT-ODD', '-o', 'csv']);
      const rows = parseCsv(csv.stdout);
      expect(rows[0]).toContain('Unexpected');
      for (const row of rows) for (const cell of row) expect(cell).not.toMatch(/^[=+\-@\t\r]/);
      expect(rows[2]![0]).toBe(`'=cmd|' /C calc'!A0`);
      const empty = await run(['review-session', 'show', 'RS-ALT-EMPTY', '--json']);
      expect(JSON.parse(empty.stdout)).toEqual({ ExternalId: 'RS-ALT-EMPTY', Results: [] });
      const missing = await run(['review-session', 'show', 'RS-NOPE']);
      expect(missing.code).toBe(1);
      expect(missing.stderr).toContain('1101');

      // Export: the scenario's effects are there, no plain token, and a re-init from it is equal.
      const exported = await run(['local', 'export']);
      expect(exported.code).toBe(0);
      const out = JSON.parse(exported.stdout) as World;
      expect(exported.stdout).not.toContain('alt-token-1');
      expect(out.Users.map((u) => u.ExternalId)).toEqual(
        expect.arrayContaining(['st_002@alt', 'st_003@alt', 'st-002']),
      );
      expect(out.Users.map((u) => u.ExternalId)).not.toContain('st_004@alt');
      const upcoming = out.Schedules.find((s) => s.ScheduleExtId === 'ALT-UPCOMING')!;
      expect(upcoming.Invigilators).toEqual(['px-2', 'px-3']);
      expect(upcoming.Candidates.map((c) => c.CandidateExtId).sort()).toEqual(['st-002', 'st_001@alt']);
      for (const c of upcoming.Candidates)
        expect(c.StartupLink).toMatch(
          /^https:\/\/assess\.alt-university\.test\/delivery\/external-login\?session=[A-Za-z0-9_-]{22,}/,
        );
      expect(out.Collections.map((c) => c.ExternalId).sort()).toEqual(['chem1', 'scicore']);

      const file = join(dir, 'export.json');
      await writeFile(file, exported.stdout);
      const store2 = join(dir, 'store2');
      expect((await examctl(['local', 'init', '--seed', file, '--store', store2], dir)).code).toBe(0);
      const again = await examctl(['local', 'export', '--store', store2], dir);
      expect(again.stdout).toBe(exported.stdout);
    });
  });
});

describe('broken worlds: exit 2, the JSON path named, the store untouched', () => {
  const cases: [string, RegExp][] = [
    ['world-bad-unknown-field.json', /Users\[1\]\.Nickname: unknown field/],
    ['world-bad-type.json', /Assessments\[0\]\.MaxTimePerAttempt: .*expected number/],
    ['world-bad-duplicate-ids.json', /Hierarchies\[6\]\.ExternalId: duplicate ExternalId "FAC-SCI"/],
    ['world-bad-syntax.json', /not valid JSON/],
  ];
  it('with and without --force, on an existing store and on none', async () => {
    await inTempDir(async (dir) => {
      const store = join(dir, 'store');
      expect((await examctl(['local', 'init', '--seed', corpus('world-alt.json'), '--store', store], dir)).code).toBe(
        0,
      );
      const before = (await examctl(['local', 'export', '--store', store], dir)).stdout;
      const runs = await Promise.all(
        cases.flatMap(([file]) => [
          examctl(['local', 'init', '--seed', corpus(file), '--store', store, '--force'], dir),
          examctl(['local', 'init', '--seed', corpus(file), '--store', join(dir, `fresh-${file}`)], dir),
        ]),
      );
      cases.forEach(([, message], i) => {
        for (const result of [runs[2 * i]!, runs[2 * i + 1]!]) {
          expectNoStack(result);
          expect(result.code).toBe(2);
          expect(result.stdout).toBe('');
          expect(result.stderr).toMatch(message);
        }
      });
      const after = await examctl(['local', 'export', '--store', store], dir);
      expect(after.stdout).toBe(before);
      const { readdir } = await import('node:fs/promises');
      expect((await readdir(dir)).filter((name) => name.startsWith('fresh-'))).toEqual([]);
    });
  });
});
