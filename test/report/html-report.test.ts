import { describe, expect, it } from 'vitest';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { cspHash, PAGE_SCRIPT, PAGE_STYLE } from '../../src/report/html-page-assets.js';
import { beforeAndAfter, escapeHtml, groupOf, islandJson, recordOf } from '../../src/report/html-report-writer.js';
import { reportFormatOf } from '../../src/report/report-file.js';
import type { ReportItem } from '../../src/report/run-report.js';
import { DRY_RUN, htmlPage, PLAN_ITEMS } from '../support/html-page.js';
import { examctlStep } from '../support/in-process.js';
import { ROOT } from '../support/cli.js';

/** The page's rows, as its own script reads them from the JSON island. */
function islandRows(page: string): unknown[][] {
  const island = /<script type="application\/json" id="examctl-rows">([\s\S]*?)<\/script>/.exec(page);
  return JSON.parse(island![1]!) as unknown[][];
}

describe('--report FILE.html', () => {
  it('is chosen by the extension', () => {
    expect(reportFormatOf('plan.html')).toBe('html');
    expect(reportFormatOf('PLAN.HTM')).toBe('html');
    expect(() => reportFormatOf('plan.txt')).toThrow(/\.html/);
  });

  it('loads nothing from anywhere: its only script and style are inline, allowed by their hashes', async () => {
    const page = await htmlPage(PLAN_ITEMS, DRY_RUN);
    const policy = /<meta http-equiv="Content-Security-Policy" content="([^"]*)">/
      .exec(page)![1]!
      .replaceAll('&#39;', "'");
    expect(policy).toContain("default-src 'none'");
    expect(policy).toContain(`script-src ${cspHash(PAGE_SCRIPT)}`);
    expect(policy).toContain(`style-src ${cspHash(PAGE_STYLE)}`);
    // The policy comes before anything it governs.
    expect(page.indexOf('Content-Security-Policy')).toBeLessThan(page.indexOf('<style>'));
    expect(page).not.toMatch(/\b(src|href)="(?!#)/);
    expect(page).not.toMatch(/https?:\/\//);
    const scripts = [...page.matchAll(/<script(?: [^>]*)?>/g)].map((match) => match[0]);
    expect(scripts).toEqual(['<script type="application/json" id="examctl-rows">', '<script>']);
  });

  it('escapes every value: markup in a name or an id stays text', async () => {
    const page = await htmlPage(PLAN_ITEMS, DRY_RUN);
    expect(page).not.toContain('<script>alert');
    expect(page).not.toContain('<img');
    expect(page.match(/<\/script>/g)).toHaveLength(2);
    const rows = islandRows(page);
    expect(rows.map((row) => row[1])).toContain('stu-5</script><img src=x>');
    expect(JSON.stringify(rows)).toContain('<script>alert(\\"x\\")</script>');
    expect(escapeHtml(`<a href="x">'&'</a>`)).toBe('&#60;a href=&#34;x&#34;&#62;&#39;&#38;&#39;&#60;/a&#62;');
    expect(islandJson(['</script>\u2028'])).toBe('["\\u003c/script\\u003e\\u2028"]');
  });

  it('says the counts first, then a table per action', async () => {
    const page = await htmlPage(PLAN_ITEMS, DRY_RUN);
    const counts = page.slice(page.indexOf('<ul class="counts"'), page.indexOf('</ul>'));
    expect(counts).toContain('<span class="n">9</span><span class="label">Items</span>');
    expect(counts).toContain('<span class="n">1</span><span class="label">To disable (not in the file)</span>');
    expect(counts).toContain('<span class="n">2</span><span class="label">To update</span>');
    expect(counts).toContain('<span class="n">3</span><span class="label">Unchanged</span>');
    expect(page.indexOf('<ul class="counts"')).toBeLessThan(page.indexOf('<section class="group"'));
    const tables = [...page.matchAll(/<section class="group" id="(\w+)"/g)].map((match) => match[1]);
    expect(tables).toEqual(['disable', 'prune', 'create', 'update', 'invalid', 'unchanged']);
  });

  it("says a remote run's sent records are not known to have done anything once, as its words say it", async () => {
    const header = { command: 'user sync', target: { kind: 'remote', baseUrl: 'https://exams.example.test' } } as const;
    const sent: ReportItem = {
      source: { file: 'users.csv', line: 2 },
      id: 'stu-1',
      status: 'ok',
      errors: [],
      action: 'sent',
    };
    const page = await htmlPage([sent], { ...header, dryRun: false });
    expect(page.match(/what it did: not known/g)).toHaveLength(2);
    expect(page).toContain('<span class="label">Sent (what it did: not known)</span>');
  });

  it("gives each row its before and after: a field's values, a mover's links, a leaver's one step", () => {
    const [update, mover, leaver, create, unknown] = PLAN_ITEMS.map((item) => ({ ...item, dryRun: true as const }));
    expect(beforeAndAfter(update!)).toEqual({
      before: [
        ['LastName', 'Haddad'],
        ['Password', 'withheld'],
      ],
      after: [
        ['LastName', 'Haddad-Jones'],
        ['Password', 'withheld'],
      ],
    });
    expect(groupOf(mover!)).toBe('prune');
    expect(beforeAndAfter(mover!)).toEqual({
      before: [
        ['leaves', 'H-NORTH'],
        ['H-NORTH:', 'no longer coordinator'],
      ],
      after: [['joins', 'H-SOUTH']],
    });
    // A flag revoked on a link the user keeps is said as the plan line says it, never "leaves H-SOUTH:administrator".
    const demoted = { ...mover!, removed: ['H-SOUTH:administrator'], joined: [] };
    expect(beforeAndAfter(demoted).before).toEqual([['H-SOUTH:', 'no longer administrator']]);
    // Its links once: the Hierarchies change the move says is not shown again; one without a move is.
    const { removed: _removed, joined: _joined, ...notMoving } = mover!;
    expect(beforeAndAfter(notMoving)).toEqual({
      before: [['Hierarchies', 'H-NORTH:coordinator']],
      after: [['Hierarchies', 'H-SOUTH']],
    });
    expect(beforeAndAfter(leaver!)).toEqual({ before: [], after: [['', 'disable login']] });
    expect(beforeAndAfter({ ...leaver!, dryRun: undefined })).toEqual({ before: [], after: [['', 'login disabled']] });
    expect(beforeAndAfter(create!).before).toEqual([]);
    // A value not known (null: the page says so) apart from a field known to have had none.
    expect(beforeAndAfter(unknown!).before).toEqual([
      ['Email', null],
      ['Hierarchies', '(no value)'],
    ]);
  });

  it("carries each row's own values, never a password's, so a search finds it by one that does not change", async () => {
    const rows = islandRows(await htmlPage(PLAN_ITEMS, DRY_RUN));
    const haddad = rows.find((row) => row[1] === 'stu-1')!;
    expect(haddad[6]).toContain('Email amira@example.test');
    expect(haddad[6]).not.toContain('new-secret');
    expect(rows.find((row) => row[1] === 'stu-9')![6]).toBe('');
    const header = ['ExternalId', 'Labels'];
    const many = Array.from({ length: 400 }, (_, i) => ({ line: i + 2, header, cells: [`c-${i}`, 'x'.repeat(20)] }));
    expect(recordOf(many).length).toBeLessThan(2100);
  });

  it('cuts a value past 2,000 characters', () => {
    const long = 'x'.repeat(5000);
    const [, after] = beforeAndAfter({ ...PLAN_ITEMS[0]!, changes: [{ field: 'LastName', known: true, after: long }] })
      .after[0]!;
    expect(after!.length).toBeLessThan(2100);
    expect(after).toContain('5,000 characters');
  });

  it('is written by a dry run, which says where the page is', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'examctl-html-'));
    try {
      expect((await examctlStep(['local', 'init', '--store', 'store'], dir)).code).toBe(0);
      const users = join(ROOT, 'fixtures/users.csv');
      const run = await examctlStep(
        ['user', 'sync', '--file', users, '--store', 'store', '--dry-run', '--report', 'plan.html'],
        dir,
      );
      expect(run.code).toBe(0);
      expect(run.stderr).toContain(
        `report written to plan.html (open ${pathToFileURL(join(dir, 'plan.html')).href} in a browser)`,
      );
      const page = await readFile(join(dir, 'plan.html'), 'utf8');
      expect(islandRows(page)).toHaveLength(20);
      expect(page).toContain('<span class="n">20</span><span class="label">To create</span>');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
