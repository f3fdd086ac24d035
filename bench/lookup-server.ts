/**
 * The floor: a bare Fastify route doing one indexed PostgreSQL lookup per request (by a header
 * value, through a pg pool with a named prepared statement), answering a small JSON body.
 * Usage: lookup-server.ts <port> <database-url> <schema>
 */
import Fastify from 'fastify';
import pg from 'pg';

const [port = '0', url = '', schema = 'public'] = process.argv.slice(2);
const pool = new pg.Pool({ connectionString: url, max: 10, options: `-c search_path=${schema}` });
const app = Fastify({ logger: false });
app.get('/lookup', async (request) => {
  const hash = String(request.headers['x-api-key'] ?? '');
  const result = await pool.query({
    name: 'lookup',
    text: 'select id, tenant_id, scopes from api_keys where key_hash = $1',
    values: [hash],
  });
  return { found: result.rowCount };
});
await app.listen({ host: '127.0.0.1', port: Number(port) });
process.stdout.write('ready\n');
