/**
 * The dashboard's browser tests drive Debian's chromium (chromium.ts). One browser per test
 * file; each test gets a fresh context (its own sessionStorage) sized like a laptop, unless it asks
 * for a phone. Screenshots go to test-results/screenshots (gitignored); README shows copies of a
 * few, kept in docs/screenshots.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { LAPTOP, launchChromium } from './chromium.js';

export { CHROMIUM_PATH, LAPTOP, launchChromium, PHONE } from './chromium.js';

export const SCREENSHOT_DIR = fileURLToPath(
  new URL('../../test-results/screenshots/', import.meta.url),
);

export interface BrowserContextHandle {
  /**
   * A new page in a new context (its own storage) at `baseURL`. `bypassCSP` lets a test inject
   * scripts the page's policy would refuse (the accessibility checker); `ignoreHTTPSErrors`
   * accepts any certificate, for HTTPS test doubles whose test CA chromium does not trust.
   */
  open(
    baseURL: string,
    viewport?: { width: number; height: number },
    options?: { bypassCSP?: boolean; ignoreHTTPSErrors?: boolean },
  ): Promise<Page>;
}

/** One chromium for the file; the contexts a test opened are closed after it. */
export function useBrowser(): BrowserContextHandle {
  let browser: Browser | null = null;
  const contexts: BrowserContext[] = [];
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterEach(async () => {
    await Promise.all(contexts.splice(0).map((context) => context.close()));
  });
  afterAll(async () => {
    await browser?.close();
  });
  return {
    async open(baseURL, viewport = LAPTOP, options = {}) {
      if (browser === null) {
        throw new Error('useBrowser: the browser is not launched yet');
      }
      const context = await browser.newContext({
        baseURL,
        viewport,
        bypassCSP: options.bypassCSP ?? false,
        ignoreHTTPSErrors: options.ignoreHTTPSErrors ?? false,
      });
      context.setDefaultTimeout(15_000);
      contexts.push(context);
      return context.newPage();
    },
  };
}

/** Signs in on the sign-in page with a dashboard token and waits for the scan list. */
export async function signIn(page: Page, token: string, path = '/app/'): Promise<void> {
  await page.goto(path);
  await page.getByLabel('Dashboard token').fill(token);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
}

/** Saves a full-page screenshot as test-results/screenshots/<name>.png and returns its path. */
export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const path = join(SCREENSHOT_DIR, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}
