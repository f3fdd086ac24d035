import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { stringify } from 'yaml';

/**
 * Everything the page loads comes from this service: the bundled swagger-ui-dist files under
 * /docs/static, the document from /docs/json, "Try it out" calls to the API itself. Swagger UI
 * needs no inline script or style element (the plugin's page has none), and no image but its own
 * and data: URIs (its stylesheet's icons).
 */
export const DOCS_CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "base-uri 'self'",
  "connect-src 'self'",
  "font-src 'self' data:",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "img-src 'self' data:",
  "object-src 'none'",
  "script-src 'self'",
  "script-src-attr 'none'",
  "style-src 'self'",
].join('; ');

/**
 * GET /docs: Swagger UI rendering the OpenAPI document, served by @fastify/swagger-ui from its
 * bundled swagger-ui-dist (nothing from a CDN: the service works offline). The plugin also
 * serves GET /docs/json (what the UI loads) and GET /docs/yaml: both are `app.swagger()`, the
 * document GET /api/v1/openapi.json sends, so there is one document. Its routes are hidden from
 * that document, and they alone carry DOCS_CONTENT_SECURITY_POLICY. The page has no top bar: its
 * "Explore" box would load any other document into this origin's page. A viewport meta element is
 * added to the plugin's page, so that a phone shows it at its own width, and /docs/yaml is
 * written without YAML aliases (documentYaml).
 */
export async function registerDocsPage(app: FastifyInstance): Promise<void> {
  let yamlDocument: string | null = null;
  await app.register((docs, _opts, done) => {
    docs.addHook('onSend', async (request, reply, payload) => {
      if (request.routeOptions.url === '/docs/yaml' && reply.statusCode === 200) {
        // The document does not change once the app is ready: written once.
        yamlDocument ??= documentYaml(app.swagger());
        return yamlDocument;
      }
      return typeof payload === 'string' && isHtml(reply.getHeader('content-type'))
        ? withViewport(payload)
        : payload;
    });
    void docs.register(swaggerUi, {
      routePrefix: '/docs',
      staticCSP: DOCS_CONTENT_SECURITY_POLICY,
      theme: { title: 'Rampart API' },
      uiConfig: { layout: 'BaseLayout', deepLinking: true },
    });
    done();
  });
}

/** The width a phone lays the page out at: its own, not the 980 px a page without one gets. */
export const DOCS_VIEWPORT = '<meta name="viewport" content="width=device-width, initial-scale=1">';

function isHtml(contentType: unknown): boolean {
  return typeof contentType === 'string' && contentType.startsWith('text/html');
}

/** The plugin's page has no viewport meta element (and no option for one): it goes first in <head>. */
function withViewport(html: string): string {
  return html.includes('name="viewport"')
    ? html
    : html.replace('<head>', `<head>\n${DOCS_VIEWPORT}`);
}

/**
 * The document as YAML with every repeated schema written out. The plugin's YAML writes an object
 * that appears twice once and refers to it (anchors and aliases): hundreds of them here, more than
 * YAML parsers resolve by default (the yaml package stops at 100, a guard against alias bombs), so
 * a plain `parse` of /docs/yaml failed. Aliases are a YAML matter, not part of the document.
 */
export function documentYaml(document: unknown): string {
  return stringify(document, { aliasDuplicateObjects: false });
}
