/**
 * GET /docs: Swagger UI served by the service itself (no CDN), rendering the document GET
 * /api/v1/openapi.json serves, over HTTP against a listening app; then in Debian's Chromium,
 * which renders the operations with nothing loaded from elsewhere and no CSP violation.
 */
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import {
  DOCS_CONTENT_SECURITY_POLICY,
  DOCS_VIEWPORT,
} from '../../src/adapters/http/routes/system/docs-page.js';
import { launchChromium, PHONE } from '../support/chromium.js';
import { useTestApp } from '../support/harness.js';

const ctx = useTestApp();

/** The `src` of every script and the `href` of every stylesheet the page names, in order. */
function assetsOf(html: string): { scripts: string[]; styles: string[] } {
  const attribute = (pattern: RegExp) => [...html.matchAll(pattern)].map((match) => match[1] ?? '');
  return {
    scripts: attribute(/<script[^>]*\ssrc="([^"]+)"/g),
    styles: attribute(/<link[^>]*rel="stylesheet"[^>]*\shref="([^"]+)"/g),
  };
}

describe('GET /docs', () => {
  it('answers Swagger UI whose scripts and styles this service serves, with and without a trailing slash', async () => {
    for (const page of ['/docs', '/docs/']) {
      const response = await ctx.app.request(page);
      expect(response.status, page).toBe(200);
      expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(response.headers.get('content-security-policy')).toBe(DOCS_CONTENT_SECURITY_POLICY);
      expect(response.text).toContain('<title>Rampart API</title>');
      expect(response.text.match(/<meta name="viewport"[^>]*>/g)).toEqual([DOCS_VIEWPORT]);
      // Nothing from another origin: every URL in the page is a path on this service.
      expect(response.text).not.toMatch(/(?:src|href)="(?:[a-z]+:)?\/\//i);
      const { scripts, styles } = assetsOf(response.text);
      expect(scripts.map((src) => src.split('/').at(-1))).toEqual([
        'swagger-ui-bundle.js',
        'swagger-ui-standalone-preset.js',
        'swagger-initializer.js',
      ]);
      expect(styles.map((href) => href.split('/').at(-1))).toEqual(['swagger-ui.css', 'index.css']);
      for (const [assets, type] of [
        [scripts, 'application/javascript; charset=utf-8'],
        [styles, 'text/css; charset=utf-8'],
      ] as const) {
        for (const asset of assets) {
          const path = new URL(asset, `${ctx.app.url}${page}`).pathname;
          expect(path, `${page}: ${asset}`).toMatch(/^\/docs\/static\//);
          const file = await ctx.app.request(path);
          expect(file.status, path).toBe(200);
          expect(file.headers.get('content-type'), path).toBe(type);
          expect(file.text.length, path).toBeGreaterThan(0);
        }
      }
    }
    const bundle = await ctx.app.request('/docs/static/swagger-ui-bundle.js');
    expect(bundle.text).toContain('SwaggerUIBundle');
  });

  it('shows the document GET /api/v1/openapi.json serves: /docs/json and /docs/yaml are that document', async () => {
    const served = await ctx.app.request('/api/v1/openapi.json');
    expect(served.status).toBe(200);
    const json = await ctx.app.request('/docs/json');
    expect(json.status).toBe(200);
    expect(json.text).toBe(served.text);
    const yaml = await ctx.app.request('/docs/yaml');
    expect(yaml.status).toBe(200);
    // Repeated schemas are written out, not referred to by YAML aliases: a parser's default
    // guard against alias bombs (the yaml package's: 100) reads it as it is.
    expect(yaml.headers.get('content-type')).toMatch(/^application\/x-yaml/);
    expect(yaml.text).not.toMatch(/^\s*[^#\n]*\*[A-Za-z0-9_]+\s*$/m);
    expect(parse(yaml.text)).toEqual(served.body);
    // The page loads /docs/json (the browser test below sees the request), and only it.
    const initializer = await ctx.app.request('/docs/static/swagger-initializer.js');
    expect(initializer.text).toContain("url: resolveUrl('./json')");
    expect(initializer.text).not.toContain('urls');
  });

  it('keeps its own routes out of the document', async () => {
    const { paths } = (await ctx.app.request('/api/v1/openapi.json')).body;
    expect(Object.keys(paths).filter((path) => path.startsWith('/docs'))).toEqual([]);
  });

  it('answers a file it does not have with the NOT_FOUND envelope', async () => {
    const missing = await ctx.app.request('/docs/static/nothing-here.js');
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({
      success: false,
      error: 'Route not found: GET /docs/static/nothing-here.js',
      code: 'NOT_FOUND',
    });
  });

  it('renders the operations in Chromium, loading nothing from elsewhere and breaking no CSP rule', async () => {
    const browser = await launchChromium();
    try {
      const page = await browser.newPage();
      const requested: string[] = [];
      const problems: string[] = [];
      page.on('request', (request) => {
        requested.push(request.url());
      });
      page.on('pageerror', (error) => {
        problems.push(`page error: ${error.message}`);
      });
      page.on('console', (message) => {
        if (message.type() === 'error') {
          problems.push(`console: ${message.text()}`);
        }
      });
      await page.goto(`${ctx.app.url}/docs`);
      const createScan = page.locator('#operations-scans-createScan');
      // Seconds of Chromium's time, most of it Swagger UI reading the 450 KB document: 10 to
      // 20 s measured while other test files shared this machine's two cores.
      await createScan.waitFor({ timeout: 45_000 });
      expect(await createScan.locator('.opblock-summary-method').textContent()).toBe('POST');
      expect(await createScan.locator('.opblock-summary-path').textContent()).toBe('/api/v1/scans');
      expect(await page.locator('.info .title').textContent()).toContain(
        'Rampart security scanning API',
      );
      expect(problems).toEqual([]);
      expect(requested.filter((url) => !url.startsWith(`${ctx.app.url}/`))).toEqual([]);
      expect(requested).toContain(`${ctx.app.url}/docs/json`);
      // On a phone the page is laid out at the phone's width, not at a desktop's 980 px.
      const phone = await browser.newPage({ viewport: PHONE, isMobile: true });
      await phone.goto(`${ctx.app.url}/docs`);
      expect(await phone.evaluate('document.documentElement.clientWidth')).toBe(PHONE.width);
    } finally {
      await browser.close();
    }
  }, 60_000);
});
