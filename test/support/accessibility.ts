/**
 * Accessibility checks in the real browser: axe-core (the engine behind Lighthouse's and
 * Playwright's checks) run on a page for WCAG 2.x A and AA rules. The page's own policy forbids
 * scripts it did not serve, so the context that runs it is opened with CSP bypassed.
 */
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

const AXE_SOURCE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

export interface AxeViolation {
  readonly id: string;
  readonly impact: string | null;
  readonly help: string;
  readonly targets: string[];
}

/** The WCAG A/AA violations axe finds on the page as it is now. */
export async function accessibilityViolations(page: Page): Promise<AxeViolation[]> {
  await page.addScriptTag({ path: AXE_SOURCE });
  // Evaluated in the page (a string: this file is compiled without the DOM's types).
  return page.evaluate<AxeViolation[]>(`
    axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } })
      .then((result) => result.violations.map((v) => ({
        id: v.id,
        impact: v.impact ?? null,
        help: v.help,
        targets: v.nodes.map((node) => String(node.target)),
      })))
  `);
}
