/** The baseline: a bare Fastify hello-world on the same machine (no auth, no database). */
import Fastify from 'fastify';

const port = Number(process.argv[2] ?? 0);
const app = Fastify({ logger: false });
app.get('/hello', async () => ({ hello: 'world' }));
await app.listen({ host: '127.0.0.1', port });
process.stdout.write('ready\n');
