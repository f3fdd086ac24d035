/**
 * The floor of POST /api/v1/scans: a bare Fastify route that validates a JSON body against a
 * schema and does one 15-column INSERT through a pg pool (named prepared statement), answering 201
 * with a small JSON body. Usage: insert-server.ts <port> <database-url> <schema>
 */
import { randomUUID } from 'node:crypto';
import Fastify from 'fastify';
import pg from 'pg';

const [port = '0', url = '', schema = 'public'] = process.argv.slice(2);
const pool = new pg.Pool({ connectionString: url, max: 10, options: `-c search_path=${schema}` });
await pool.query(`create table if not exists insert_floor (
  id uuid primary key, tenant_id uuid, scan_type text, name text, target text, target_type text,
  priority text, priority_rank smallint, status text, progress integer, tags text[],
  options jsonb, config jsonb, timeout_seconds integer, created_at timestamptz default now())`);
const tenant = randomUUID();
const app = Fastify({ logger: false });
app.post(
  '/scans',
  {
    schema: {
      body: {
        type: 'object',
        required: ['target', 'scanType'],
        properties: {
          target: { type: 'string', maxLength: 2048 },
          scanType: { type: 'string', enum: ['nmap'] },
          priority: { type: 'string', enum: ['critical', 'high', 'normal', 'low'] },
        },
      },
    },
  },
  async (request, reply) => {
    const body = request.body as { target: string; scanType: string };
    const id = randomUUID();
    await pool.query({
      name: 'insert',
      text: `insert into insert_floor (id, tenant_id, scan_type, name, target, target_type, priority,
        priority_rank, status, progress, tags, options, config, timeout_seconds)
        values ($1, $2, $3, $4, $5, 'ip', 'normal', 2, 'queued', 0, '{}', '{}', '{}', 3600)`,
      values: [id, tenant, body.scanType, body.target, body.target],
    });
    return reply.code(201).send({ success: true, data: { id, status: 'queued' } });
  },
);
await app.listen({ host: '127.0.0.1', port: Number(port) });
process.stdout.write('ready\n');
