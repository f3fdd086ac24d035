import { Redis } from 'ioredis';
import type { RateLimitDecision, WindowSpec } from '../../domain/rate-limits/windows.js';
import { type RateLimitStore, RateLimitStoreUnavailableError } from './rate-limit-store.js';

/**
 * One script, run atomically by Redis: it reads the time from Redis (one clock for every API
 * node), reads every window's counter, and only when all have room increments all of them. A
 * denied request increments nothing. ARGV: mode ("consume"|"peek"), then (seconds, limit) pairs.
 * Returns {allowed, nowMs, used1, resetAt1, used2, resetAt2, ...}.
 */
const SCRIPT = `
local t = redis.call('TIME')
local nowMs = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local consume = ARGV[1] == 'consume'
local n = (#ARGV - 1) / 2
local keys, used, resets = {}, {}, {}
local allowed = 1
for i = 1, n do
  local seconds = tonumber(ARGV[2 * i])
  local limit = tonumber(ARGV[2 * i + 1])
  local start = math.floor(nowMs / 1000 / seconds) * seconds
  keys[i] = KEYS[1] .. ':' .. seconds .. ':' .. start
  used[i] = tonumber(redis.call('GET', keys[i]) or '0')
  resets[i] = start + seconds
  if used[i] >= limit then allowed = 0 end
end
if consume and allowed == 1 then
  for i = 1, n do
    used[i] = redis.call('INCR', keys[i])
    redis.call('EXPIREAT', keys[i], resets[i] + 5)
  end
end
local out = {allowed, nowMs}
for i = 1, n do
  out[#out + 1] = used[i]
  out[#out + 1] = resets[i]
end
return out
`;

type RateLimitRedis = Redis & {
  rampartRateLimit(bucket: string, ...args: (string | number)[]): Promise<number[]>;
};

/**
 * Counters in Redis, shared by every API node (REDIS_URL). When Redis cannot be reached the store
 * fails fast with RateLimitStoreUnavailableError and the API answers 503: it never lets traffic
 * through unlimited.
 */
export function createRedisRateLimitStore(
  redisUrl: string,
  options: { keyPrefix?: string; connectTimeoutMs?: number; commandTimeoutMs?: number } = {},
): RateLimitStore {
  const redis = new Redis(redisUrl, {
    // Commands wait for the first connection, but never longer than commandTimeout: with Redis
    // down a request fails within a second instead of hanging.
    enableOfflineQueue: true,
    maxRetriesPerRequest: 1,
    commandTimeout: options.commandTimeoutMs ?? 1000,
    connectTimeout: options.connectTimeoutMs ?? 2000,
    retryStrategy: (times) => Math.min(times * 200, 2000),
  }) as RateLimitRedis;
  redis.on('error', () => {
    // Connection errors surface through the failing commands; the client keeps reconnecting.
  });
  redis.defineCommand('rampartRateLimit', { numberOfKeys: 1, lua: SCRIPT });
  const prefix = options.keyPrefix ?? 'rampart:rl:';

  async function run(mode: 'consume' | 'peek', bucket: string, windows: readonly WindowSpec[]) {
    let reply: number[];
    try {
      reply = await redis.rampartRateLimit(
        `${prefix}${bucket}`,
        mode,
        ...windows.flatMap((w) => [w.seconds, w.limit]),
      );
    } catch (error) {
      throw new RateLimitStoreUnavailableError('Redis rate-limit store is unavailable', {
        cause: error,
      });
    }
    const decision: RateLimitDecision = {
      allowed: reply[0] === 1,
      nowMs: Number(reply[1]),
      windows: windows.map((w, i) => ({
        name: w.name,
        seconds: w.seconds,
        limit: w.limit,
        used: Number(reply[2 + 2 * i]),
        resetAt: Number(reply[3 + 2 * i]),
      })),
    };
    return decision;
  }

  return {
    consume: (bucket, windows) => run('consume', bucket, windows),
    peek: (bucket, windows) => run('peek', bucket, windows),
    async close() {
      try {
        await redis.quit();
      } catch {
        redis.disconnect();
      }
    },
  };
}
