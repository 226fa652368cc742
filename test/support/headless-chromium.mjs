// Headless Chromium from the npm registry (@sparticuz/chromium: the browser ships inside the
// package, decompressed on first use to the OS temp directory; nothing downloaded at run time),
// driven by playwright-core, for the HTML page's browser test and its bench (bench/html-page-bench.mjs).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import chromium from '@sparticuz/chromium';
import { chromium as playwright } from 'playwright-core';

/** No GPU, no sandbox (a container's root), and nothing the browser would fetch on its own. */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** A browser with a fresh profile (its own --user-data-dir), removed by `close`. */
export async function launchChromium() {
  const profile = await mkdtemp(join(tmpdir(), 'examctl-chromium-'));
  try {
    const context = await playwright.launchPersistentContext(profile, {
      executablePath: await chromium.executablePath(),
      headless: true,
      args: CHROMIUM_ARGS,
      viewport: { width: 1280, height: 900 },
    });
    return {
      context,
      async close() {
        await context.close();
        await rm(profile, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await rm(profile, { recursive: true, force: true });
    throw error;
  }
}

/**
 * Opens a page file and waits until its script drew it; every request the page makes, the file
 * itself included, is counted in `requests`, and every dialog (an `alert` a value smuggled in).
 */
export async function openPage(context, file) {
  const page = await context.newPage();
  const requests = [];
  const dialogs = [];
  const errors = [];
  page.on('request', (request) => requests.push(request.url()));
  page.on('dialog', (dialog) => {
    dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  page.on('pageerror', (error) => errors.push(error.message));
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  const started = performance.now();
  await page.goto(file);
  await page.waitForSelector('html[data-ready="true"]');
  return { page, requests, dialogs, errors, openedIn: performance.now() - started };
}
