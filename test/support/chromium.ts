/**
 * Debian's chromium (/usr/bin/chromium, or CHROMIUM_PATH) driven by playwright-core: headless, as
 * root, so without chromium's own sandbox. The browser tests (browser.ts) and the dashboard bench
 * (bench/dashboard.ts) launch it the same way, with the viewports the screenshots use.
 */
import { type Browser, chromium } from 'playwright-core';

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export const LAPTOP = { width: 1366, height: 800 } as const;
export const PHONE = { width: 390, height: 844 } as const;

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
}
