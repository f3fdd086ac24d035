import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { runsAsChildScans } from '../../../../engines/registry.js';
import type { RunnableEngine } from '../../../../use-cases/ports/scans.js';
import type { AppDeps } from '../../app-deps.js';
import {
  API_KEY_AUTH_CODES,
  errorResponses,
  RATE_LIMIT_HEADERS,
  success,
} from '../../schemas/envelope.js';

const Engine = Type.Object(
  {
    name: Type.String(),
    description: Type.String(),
    available: Type.Boolean({
      description: 'Whether a live worker can run it now (scans of other engines answer 503)',
    }),
    unavailableReason: Type.Union([Type.String(), Type.Null()], {
      description:
        'Rampart extension: why it is not available (no live worker at all, or none that runs it), null when it is',
    }),
    version: Type.Union([Type.String(), Type.Null()]),
    sandboxed: Type.Boolean({
      description:
        'Rampart extension: every live worker that runs it runs it in the scanner sandbox (own unprivileged user, namespaces, resource limits)',
    }),
    targetTypes: Type.Array(Type.String()),
    optionsSchema: Type.Unknown({ description: 'JSON Schema of the engine options' }),
    configSchema: Type.Optional(
      Type.Unknown({
        description:
          'Rampart extension: JSON Schema of the scan `config` for the engines that take one (sqlmap, wapiti, zap and sentinel: headers, cookies, auth, exclude, userAgent; nuclei: the same without exclude; nikto: cookies, basic auth and userAgent)',
      }),
    ),
  },
  { additionalProperties: false },
);

/** Why an engine cannot run now, for the people who choose one; null when it can. */
export function unavailableReason(
  engine: string,
  members: number,
  runnableEngines: number,
): string | null {
  if (members > 0) {
    return null;
  }
  if (runnableEngines === 0) {
    return 'no live worker: no worker process is running, or none reaches the database';
  }
  return runsAsChildScans(engine)
    ? 'no live worker runs any of the engines it combines'
    : 'no live worker runs it: its scanner is not installed where the workers run, or their WORKER_ENGINES leave it out';
}

/**
 * GET /api/v1/engines: any valid key (no scope). `available` is whether a live worker registered
 * the engine (the worker directory answers from a one-second cache); versions were probed once
 * at start on this node.
 */
export function registerListEngines(app: FastifyInstance, deps: AppDeps): void {
  // The ~8 KB answer is serialized and encoded once per distinct set of runnable engines, not per
  // request (serializing was about a tenth of the route's CPU time in the benchmark profile; sent
  // as a string, Node measured and encoded its UTF-8 again on every request, 3 % of the CPU).
  let cached: { runnable: ReadonlyMap<string, RunnableEngine>; body: Buffer } | null = null;
  const bodyFor = (runnable: ReadonlyMap<string, RunnableEngine>): Buffer => {
    if (cached?.runnable !== runnable) {
      // The same test as the 503 check of POST /api/v1/scans: a live worker registered it (an
      // engine that runs others as child scans: a live worker registered one of those).
      const engines = deps.engines.map(({ targetTypes, optionsSchema, ...engine }) => {
        // An engine that runs others is as sandboxed as the tools it would run now.
        const members = runsAsChildScans(engine.name)
          ? [...runnable].filter(([name]) => !runsAsChildScans(name)).map(([, member]) => member)
          : [runnable.get(engine.name)].filter((member) => member !== undefined);
        return {
          ...engine,
          available: members.length > 0,
          unavailableReason: unavailableReason(engine.name, members.length, runnable.size),
          sandboxed: members.length > 0 && members.every((member) => member.sandboxed),
          targetTypes,
          optionsSchema,
        };
      });
      cached = {
        runnable,
        body: Buffer.from(JSON.stringify({ success: true, data: { engines } })),
      };
    }
    return cached.body;
  };
  app.get(
    '/api/v1/engines',
    {
      schema: {
        operationId: 'listEngines',
        summary: 'The ten scan engines, their target types, options and availability',
        tags: ['engines'],
        security: [{ apiKey: [] }, { bearerAuth: [] }],
        response: {
          200: {
            ...success(Type.Object({ engines: Type.Array(Engine) })),
            headers: RATE_LIMIT_HEADERS,
          },
          ...errorResponses(...API_KEY_AUTH_CODES),
        },
      },
    },
    async (_request, reply) =>
      reply
        .type('application/json; charset=utf-8')
        .send(bodyFor(await deps.workers.runnableEngines())),
  );
}
