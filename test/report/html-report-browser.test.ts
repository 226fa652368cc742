/**
 * The HTML page (html-report-writer.ts) in a real browser: headless Chromium from the npm registry
 * (test/support/headless-chromium.mjs). Slow tier: the first launch decompresses the browser.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { BrowserContext } from 'playwright-core';
import { launchChromium, openPage } from '../support/headless-chromium.mjs';
import { DRY_RUN, htmlPage, PLAN_ITEMS } from '../support/html-page.js';

let dir: string;
let browser: Awaited<ReturnType<typeof launchChromium>>;
let context: BrowserContext;
let url: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'examctl-html-browser-'));
  const file = join(dir, 'plan.html');
  await writeFile(file, await htmlPage(PLAN_ITEMS, DRY_RUN));
  url = pathToFileURL(file).href;
  browser = await launchChromium();
  context = browser.context;
});

afterAll(async () => {
  await browser?.close();
  await rm(dir, { recursive: true, force: true });
});

/** The rows a table shows, each as its cells' text. */
const tableRows = (page: import('playwright-core').Page, table: string) =>
  page.$$eval(`section#${table} tbody tr`, (rows) =>
    rows.map((row) => Array.from(row.querySelectorAll('td'), (cell) => (cell as { innerText: string }).innerText)),
  );

describe('the HTML page in Chromium', () => {
  it('opens with no request but the file itself, no error, no dialog', async () => {
    const { page, requests, dialogs, errors } = await openPage(context, url);
    expect(requests).toEqual([url]);
    expect(errors).toEqual([]);
    expect(dialogs).toEqual([]);
    await page.close();
  });

  it('shows the counts first', async () => {
    const { page } = await openPage(context, url);
    const tiles = await page.$$eval('#counts li', (items) =>
      items.map((item) => (item as { innerText: string }).innerText),
    );
    expect(tiles.map((tile) => tile.replace(/\s+/g, ' '))).toEqual([
      '9 Items',
      '8 Valid',
      '1 Invalid',
      '1 To disable (not in the file)',
      '1 To prune (movers)',
      '1 To create',
      '2 To update',
      '1 Invalid (not sent)',
      '3 Unchanged',
    ]);
    const top = async (selector: string) => (await page.locator(selector).first().boundingBox())!.y;
    expect(await top('#counts')).toBeLessThan(await top('section.group'));
    await page.close();
  });

  it("shows a mover's before and after, an update's old and new values, a leaver's one step", async () => {
    const { page } = await openPage(context, url);
    const [mover] = await tableRows(page, 'prune');
    expect(mover![0]).toBe('stu-2');
    // Its links once: as it leaves and joins them, not again as its Hierarchies' old and new value.
    expect(mover![2]).toBe('leaves H-NORTH\nH-NORTH: no longer coordinator');
    expect(mover![3]).toBe('joins H-SOUTH');
    const updates = await tableRows(page, 'update');
    expect(updates[0]!.slice(0, 4)).toEqual([
      'stu-1\nFirstName Amira · LastName Haddad-Jones · Email amira@example.test',
      'users.csv:2',
      'LastName Haddad\nPassword withheld',
      'LastName Haddad-Jones\nPassword withheld',
    ]);
    // A field that had no value says so in words, not as a blank or a value named "none".
    expect(updates[1]![2]).toBe('Email not known\nHierarchies (no value)');
    expect(updates[1]![3]).toBe('Email ben@example.test\nHierarchies H-NORTH');
    // Why a row the file did not change goes again (a store restored), where the officer reads the row.
    expect(updates[1]![4]).toContain('run 20261128-0102-ab12');
    expect(updates[1]![4]).toContain('the store was restored');
    expect(await page.locator('section#update tbody tr').nth(1).locator('td').nth(4).isVisible()).toBe(true);
    expect((await tableRows(page, 'disable'))[0]![3]).toBe('disable login');
    await page.close();
  });

  it('shows a name or an id holding markup as text', async () => {
    const { page, dialogs } = await openPage(context, url);
    expect((await tableRows(page, 'create'))[0]![3]).toBe('FirstName <script>alert("x")</script>');
    expect((await tableRows(page, 'invalid'))[0]![0]).toBe('stu-5</script><img src=x>');
    expect(await page.locator('main script, main img').count()).toBe(0);
    expect(dialogs).toEqual([]);
    await page.close();
  });

  it('filters every table by the search box, and sorts a column', async () => {
    const { page } = await openPage(context, url);
    await page.fill('#search', 'haddad');
    await expect.poll(() => page.locator('#matches').innerText()).toBe('1 of 9 rows match');
    expect(await tableRows(page, 'update')).toHaveLength(1);
    expect(await tableRows(page, 'prune')).toHaveLength(0);
    expect(await page.locator('section#prune .pager').innerText()).toBe('no row matches');
    // A value that does not change (the email, when only the surname does) finds its row too.
    await page.fill('#search', 'AMIRA@example');
    await expect.poll(() => page.locator('#matches').innerText()).toBe('1 of 9 rows match');
    const [found] = await tableRows(page, 'update');
    expect(found![0]).toContain('stu-1');
    expect(found![0]).toContain('Email amira@example.test');
    expect(found![0]).not.toContain('new-secret');
    await page.fill('#search', '');
    await expect.poll(() => tableRows(page, 'prune')).toHaveLength(1);
    await page.locator('section#unchanged summary').click();
    await page.locator('section#unchanged th button', { hasText: 'ID' }).click();
    await page.locator('section#unchanged th button', { hasText: 'ID' }).click();
    expect((await tableRows(page, 'unchanged')).map((row) => row[0])).toEqual(['stu-12', 'stu-11', 'stu-10']);
    await page.close();
  });
});
