import type { BrowserContext, Page } from 'playwright-core';

export declare const CHROMIUM_ARGS: readonly string[];
export declare function launchChromium(): Promise<{ context: BrowserContext; close(): Promise<void> }>;
export declare function openPage(
  context: BrowserContext,
  file: string,
): Promise<{ page: Page; requests: string[]; dialogs: string[]; errors: string[]; openedIn: number }>;
