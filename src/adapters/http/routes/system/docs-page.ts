/**
 * GET /docs: a self-contained page that renders the OpenAPI document (no CDN, no bundled UI: the
 * service must work offline, and Swagger UI's current packages need Node 22).
 */
export const DOCS_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Rampart API</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
body{font:15px/1.45 system-ui,sans-serif;margin:0 auto;max-width:960px;padding:1rem 1.5rem;color:#1d232a}
h1{margin-bottom:.2rem}code,pre{font:13px ui-monospace,monospace;background:#f3f4f6;border-radius:4px}
pre{padding:.6rem;overflow:auto}details{border:1px solid #d9dde3;border-radius:6px;margin:.4rem 0;padding:.3rem .6rem}
summary{cursor:pointer}.m{display:inline-block;min-width:4.2rem;font-weight:600}
.GET{color:#0b6bcb}.POST{color:#16794c}.DELETE{color:#b42318}.PATCH,.PUT{color:#9a6700}
</style></head><body>
<h1>Rampart API</h1><p id="info">Loading <a href="/api/v1/openapi.json">/api/v1/openapi.json</a>…</p>
<div id="paths"></div>
<script>
const esc = (s) => String(s).replace(/[&<>"]/g, (c) => ({'&':'&amp;','<':'&lt;','>':'&gt;','"':'&quot;'}[c]));
fetch('/api/v1/openapi.json').then((r) => r.json()).then((doc) => {
  document.getElementById('info').innerHTML = esc(doc.info.description || '') +
    ' <a href="/api/v1/openapi.json">OpenAPI ' + esc(doc.openapi) + ' document</a>, version ' + esc(doc.info.version);
  const out = [];
  const sections = [...Object.entries(doc.paths), ...Object.entries(doc.webhooks || {}).map(([name, ops]) => ['webhook ' + name, ops])];
  for (const [path, ops] of sections) {
    for (const [method, op] of Object.entries(ops)) {
      const m = method.toUpperCase();
      const responses = Object.entries(op.responses || {}).map(([code, r]) =>
        '<li><code>' + esc(code) + '</code> ' + esc(r.description || '') + '</li>').join('');
      const body = op.requestBody ? '<p>Body</p><pre>' +
        esc(JSON.stringify(op.requestBody.content['application/json'].schema, null, 2)) + '</pre>' : '';
      const sec = (op.security || []).map((s) => Object.keys(s).join('+')).join(' or ') || 'none';
      out.push('<details><summary><span class="m ' + m + '">' + m + '</span><code>' + esc(path) +
        '</code> ' + esc(op.summary || '') + '</summary><p>Authentication: ' + esc(sec) + '</p>' + body +
        '<p>Responses</p><ul>' + responses + '</ul></details>');
    }
  }
  document.getElementById('paths').innerHTML = out.join('');
});
</script></body></html>`;
