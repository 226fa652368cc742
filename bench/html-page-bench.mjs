// `npm run bench -- html` (issue 79): the HTML report page of a 50,000-user night (dist/'s writer),
// opened in headless Chromium from the npm registry (test/support/headless-chromium.mjs): how long
// it takes to write, how large it is, how long until its script has drawn it (goal: 3 s), and a
// search and a sort over all its rows. Never run in tests (test/report/html-report-browser.test.ts
// checks what the page shows, not how fast).
import { mkdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { launchChromium, openPage } from '../test/support/headless-chromium.mjs';
import { dataDir as DATA_DIR } from './generate.mjs';

const ROWS = Number(process.env.EXAMCTL_BENCH_HTML_ROWS ?? 50_000);

/** A night of `count` users: most unchanged, some updates with each field's before and after, movers, creates, leavers, invalid rows. */
function* nightItems(count) {
  for (let i = 0; i < count; i++) {
    const source = { file: 'users.csv', line: i + 2 };
    // Ids out of the file's order (a prime stride), so a sort by ID has work to do.
    const id = `stu-${String((i * 7919) % count).padStart(6, '0')}`;
    const kind = i % 100;
    const ok = (action, more = {}) => ({ source, id, status: 'ok', errors: [], action, ...more });
    if (kind < 60) yield ok('unchanged');
    else if (kind < 85)
      yield ok('updated', {
        changedFields: ['LastName', 'Email'],
        changes: [
          { field: 'LastName', known: true, before: `Surname${i}`, after: `Surname${i}-Jones` },
          { field: 'Email', known: true, before: `u${i}@old.example.test`, after: `u${i}@example.test` },
        ],
      });
    else if (kind < 93) yield ok('updated', { removed: [`H-${i % 12}`], joined: [`H-${(i + 1) % 12}`] });
    else if (kind < 97) yield ok('created', { changes: [{ field: 'FirstName', known: true, after: `Name${i}` }] });
    else if (kind < 99)
      yield { source: { file: 'sync memory', line: 0 }, id, status: 'ok', errors: [], action: 'disabled' };
    else
      yield {
        source,
        id,
        status: 'failed',
        errors: [{ field: 'Email', code: 209, message: 'Email is not a valid address' }],
      };
  }
}

async function writePage(file) {
  const { HtmlReportWriter } = await import('../dist/report/html-report-writer.js');
  const { RunReportBuilder } = await import('../dist/report/report-writers.js');
  const parts = [];
  const header = { command: 'user sync', target: { kind: 'local', store: '/srv/store' }, dryRun: true, plans: true };
  const started = performance.now();
  const builder = new RunReportBuilder(
    [new HtmlReportWriter({ write: (text) => void parts.push(text) }, header)],
    true,
  );
  for (const item of nightItems(ROWS)) await builder.add({ item });
  await builder.finish();
  const wrote = performance.now() - started;
  await writeFile(file, parts.join(''));
  return wrote;
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

export async function runHtmlPageBench() {
  await mkdir(DATA_DIR, { recursive: true });
  const file = join(DATA_DIR, `plan-${ROWS}.html`);
  const wrote = await writePage(file);
  const url = pathToFileURL(file).href;
  const browser = await launchChromium();
  try {
    const opened = [];
    const searched = [];
    const sorted = [];
    let requests = 0;
    for (let round = 0; round < 3; round++) {
      const { page, openedIn, requests: made } = await openPage(browser.context, url);
      opened.push(openedIn);
      requests = Math.max(requests, made.length - 1);
      sorted.push(
        await page.evaluate(async () => {
          const button = document.querySelector('section#unchanged th button');
          const started = performance.now();
          button.click();
          await new Promise((done) => requestAnimationFrame(() => done(undefined)));
          return performance.now() - started;
        }),
      );
      searched.push(
        await page.evaluate(async () => {
          const box = document.getElementById('search');
          const started = performance.now();
          box.value = 'jones';
          box.dispatchEvent(new Event('input'));
          await new Promise((done) => setTimeout(done, 130));
          await new Promise((done) => requestAnimationFrame(() => done(undefined)));
          return performance.now() - started - 120;
        }),
      );
      await page.close();
    }
    return [
      {
        rows: ROWS,
        'page MB': ((await stat(file)).size / 1e6).toFixed(1),
        'written ms': Math.round(wrote),
        'opened ms (median of 3)': Math.round(median(opened)),
        'opened ms (each)': opened.map(Math.round).join(', '),
        'search ms': Math.round(median(searched)),
        'sort by ID ms (30,000 rows)': Math.round(median(sorted)),
        'requests besides the file': requests,
      },
    ];
  } finally {
    await browser.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) console.table(await runHtmlPageBench());
