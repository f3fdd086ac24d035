/**
 * The dashboard's build: Vite with Preact's JSX, served by the service at /app (its assets under
 * /app/static with content hashes). `npm run build` (and so `npm start`) writes it to dist/app;
 * the service serves whatever is there (src/adapters/http/routes/system/dashboard.ts).
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { defineConfig, type Plugin } from 'vite';

export const DASHBOARD_OUT_DIR = fileURLToPath(new URL('../dist/app/', import.meta.url));
// Not Vite's default `assets`: /app/assets/<id> is a page of the app (an asset's detail), and the
// service tells files from pages by this prefix (DASHBOARD_FILES_DIR in dashboard.ts).
const FILES_DIR = 'static';

/**
 * Writes a .br and a .gz beside each built script and stylesheet, which the service sends to
 * browsers that accept them (@fastify/static `preCompressed`): a third of the bytes on the wire,
 * and no compression work per request.
 */
function precompress(outDir: string): Plugin {
  return {
    name: 'rampart-precompress',
    apply: 'build',
    closeBundle() {
      const dir = join(outDir, FILES_DIR);
      for (const file of readdirSync(dir).filter((name) => /\.(js|css)$/.test(name))) {
        const content = readFileSync(join(dir, file));
        writeFileSync(
          join(dir, `${file}.br`),
          brotliCompressSync(content, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }),
        );
        writeFileSync(join(dir, `${file}.gz`), gzipSync(content, { level: 9 }));
      }
    },
  };
}

export default defineConfig({
  plugins: [precompress(DASHBOARD_OUT_DIR)],
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/app/',
  logLevel: 'warn',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: DASHBOARD_OUT_DIR,
    emptyOutDir: true,
    assetsDir: FILES_DIR,
    target: 'es2022',
    // Served from the service itself: no inline scripts, so the page's Content-Security-Policy
    // can forbid them.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
  },
});
