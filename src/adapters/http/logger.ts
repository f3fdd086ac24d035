import type { FastifyRequest } from 'fastify';
import { type DestinationStream, type Logger, pino } from 'pino';
import { SECRET_OPTION_KEYS } from '../../domain/secrets/secret-options.js';

/** Paths pino blanks out wherever they appear in a log line: keys, tokens and secrets. */
export const REDACT_PATHS = [
  'req.headers["x-api-key"]',
  'req.headers.authorization',
  'req.headers.cookie',
  'headers["x-api-key"]',
  'headers.authorization',
  'rawKey',
  '*.rawKey',
  'secret',
  '*.secret',
  'token',
  '*.token',
  'jwtSecret',
  '*.jwtSecret',
  'callbackSecret',
  '*.callbackSecret',
  // Credentials of engine options (domain/secrets/secret-options.ts), should options ever be
  // logged: they never are today, and are stored sealed. A trailing wildcard only: intermediate
  // ones make pino walk the objects of every log line.
  ...[...SECRET_OPTION_KEYS].flatMap((key) => [key, `*.${key}`]),
];

const SENSITIVE_QUERY = /^(api[-_]?key|x-api-key|key|token|access_token|secret)$/i;

/** The request URL with sensitive query values blanked (a key pasted into a URL stays out of logs). */
export function redactUrl(url: string): string {
  const question = url.indexOf('?');
  if (question === -1) {
    return url;
  }
  const params = new URLSearchParams(url.slice(question + 1));
  for (const name of [...params.keys()]) {
    if (SENSITIVE_QUERY.test(name)) {
      params.set(name, '[Redacted]');
    }
  }
  return `${url.slice(0, question)}?${params.toString()}`;
}

/** The service logger; `destination` lets tests read what was logged. */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      redact: { paths: REDACT_PATHS, censor: '[Redacted]' },
      serializers: {
        req: (request: FastifyRequest) => ({
          method: request.method,
          url: redactUrl(request.url),
          remoteAddress: request.ip,
          requestId: request.id,
        }),
      },
    },
    destination,
  );
}
