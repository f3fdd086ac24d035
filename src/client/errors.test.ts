import { describe, expect, it } from 'vitest';
import { apiErrorFrom, parseRetryAfter, RampartApiError, UNEXPECTED_RESPONSE } from './errors.js';

describe('parseRetryAfter', () => {
  it('reads seconds and HTTP dates, and nothing else', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(parseRetryAfter('7', now)).toBe(7);
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:00:30 GMT', now)).toBe(30);
    expect(parseRetryAfter('Wed, 31 Dec 2025 23:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter(null, now)).toBeNull();
    expect(parseRetryAfter('soon', now)).toBeNull();
  });
});

describe('apiErrorFrom', () => {
  it('takes code and message from the error envelope', async () => {
    const response = new Response(
      JSON.stringify({ success: false, error: 'Service unavailable', code: 'SERVICE_UNAVAILABLE' }),
      { status: 503, headers: { 'content-type': 'application/json', 'retry-after': '5' } },
    );
    const error = await apiErrorFrom(response);
    expect(error).toBeInstanceOf(RampartApiError);
    expect(error).toMatchObject({
      code: 'SERVICE_UNAVAILABLE',
      message: 'Service unavailable',
      status: 503,
      retryAfter: 5,
    });
  });

  it('names an answer without the envelope by its status, not its body', async () => {
    const response = new Response('<html>Bad gateway\n at proxy</html>', {
      status: 502,
      statusText: 'Bad Gateway',
    });
    const error = await apiErrorFrom(response);
    expect(error).toMatchObject({
      code: UNEXPECTED_RESPONSE,
      message: 'Unexpected answer: HTTP 502 Bad Gateway',
      status: 502,
      retryAfter: null,
    });
  });
});
