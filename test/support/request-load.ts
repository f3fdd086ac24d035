/**
 * A steady load of HTTP requests whose every answer is recorded: when it was sent and answered,
 * its status, its error code and `Retry-After`, whether the body was in the contract's envelope,
 * or why no answer came (a refused connection, or none within the give-up time). Fault tests run
 * it while they break things, then judge the records.
 *
 * Each stream sends one request every `everyMs` without waiting for the previous one (a slow
 * answer never slows the load down, as with real clients); `stop()` ends the streams and waits for
 * every request still in flight.
 */

export interface RequestSpec {
  /** What kind of request it is, for the test's judgement (`create`, `read`, …). */
  readonly label: string;
  /** Which process it went to. */
  readonly target: string;
  readonly url: string;
  readonly method?: 'GET' | 'POST';
  readonly headers?: Readonly<Record<string, string>>;
  readonly json?: unknown;
}

export type BodyShape = 'success' | 'error' | 'other';

export interface RecordedRequest {
  readonly label: string;
  readonly target: string;
  readonly method: string;
  readonly url: string;
  readonly sentAt: number;
  /** When the whole answer had arrived; null when none did. */
  readonly answeredAt: number | null;
  readonly status: number | null;
  /** `code` of an error envelope. */
  readonly code: string | null;
  readonly retryAfter: string | null;
  /** `success`: `{success:true,data}`; `error`: exactly `{success:false,error,code}`. */
  readonly shape: BodyShape | null;
  readonly body: unknown;
  /** Why no answer came: the connection failed, or none within the give-up time. */
  readonly failure: string | null;
}

export interface LoadStream {
  readonly everyMs: number;
  /** The request of tick `tick` (0, 1, …), or null to skip it. */
  next(tick: number): RequestSpec | null;
}

export interface Load {
  /** Every finished request so far, in the order they ended (grows in place). */
  readonly records: readonly RecordedRequest[];
  /** Requests sent and not ended yet. */
  inFlight(): number;
  stop(): Promise<void>;
}

function shapeOf(body: unknown): BodyShape {
  if (typeof body !== 'object' || body === null) {
    return 'other';
  }
  const fields = body as Record<string, unknown>;
  const keys = Object.keys(fields).sort().join(',');
  if (fields.success === true && keys === 'data,success') {
    return 'success';
  }
  if (
    fields.success === false &&
    keys === 'code,error,success' &&
    typeof fields.error === 'string' &&
    typeof fields.code === 'string'
  ) {
    return 'error';
  }
  return 'other';
}

/** Sends one request and records what came back; never throws. */
export async function recordedRequest(
  spec: RequestSpec,
  giveUpMs: number,
): Promise<RecordedRequest> {
  const method = spec.method ?? 'GET';
  const sentAt = Date.now();
  const headers: Record<string, string> = { ...spec.headers };
  if (spec.json !== undefined) {
    headers['content-type'] = 'application/json';
  }
  try {
    const response = await fetch(spec.url, {
      method,
      headers,
      ...(spec.json === undefined ? {} : { body: JSON.stringify(spec.json) }),
      signal: AbortSignal.timeout(giveUpMs),
    });
    const text = await response.text();
    let body: unknown = null;
    try {
      body = JSON.parse(text);
    } catch {
      body = text;
    }
    const shape = shapeOf(body);
    return {
      label: spec.label,
      target: spec.target,
      method,
      url: spec.url,
      sentAt,
      answeredAt: Date.now(),
      status: response.status,
      code: shape === 'error' ? String((body as { code: string }).code) : null,
      retryAfter: response.headers.get('retry-after'),
      shape,
      body,
      failure: null,
    };
  } catch (error) {
    const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
    return {
      label: spec.label,
      target: spec.target,
      method,
      url: spec.url,
      sentAt,
      answeredAt: null,
      status: null,
      code: null,
      retryAfter: null,
      shape: null,
      body: null,
      failure:
        error instanceof Error && error.name === 'TimeoutError'
          ? `no answer within ${giveUpMs} ms`
          : String((cause as { code?: unknown }).code ?? (cause as Error).message ?? cause),
    };
  }
}

/** Starts the streams at once; each request gives up after `giveUpMs`. */
export function startLoad(streams: readonly LoadStream[], giveUpMs: number): Load {
  const records: RecordedRequest[] = [];
  const pending = new Set<Promise<void>>();
  const timers = streams.map((stream) => {
    let tick = 0;
    const fire = () => {
      const spec = stream.next(tick);
      tick += 1;
      if (spec === null) {
        return;
      }
      const sent = recordedRequest(spec, giveUpMs).then((record) => {
        records.push(record);
        pending.delete(sent);
      });
      pending.add(sent);
    };
    fire();
    return setInterval(fire, stream.everyMs);
  });
  return {
    records,
    inFlight: () => pending.size,
    async stop() {
      for (const timer of timers) {
        clearInterval(timer);
      }
      await Promise.all([...pending]);
    },
  };
}

/** How long the answer took, or null when none came. */
export function latency(record: RecordedRequest): number | null {
  return record.answeredAt === null ? null : record.answeredAt - record.sentAt;
}

/** One line for a failure message: who, what, when (from `t0`), and what came back. */
export function describeRequest(record: RecordedRequest, t0: number): string {
  const { pathname } = new URL(record.url);
  const answer =
    record.status === null
      ? record.failure
      : `${record.status} ${record.code ?? record.shape} in ${latency(record)} ms`;
  return `${record.target} ${record.method} ${pathname} at +${record.sentAt - t0} ms: ${answer}`;
}
