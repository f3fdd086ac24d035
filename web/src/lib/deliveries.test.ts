import { describe, expect, it } from 'vitest';
import {
  type DeliveryAttempt,
  deliveryFilterFrom,
  readDeliveryLog,
  recoverWindow,
  shortDeliveryId,
  toLocalInput,
} from './deliveries.js';

const attempt = (changes: Partial<DeliveryAttempt>): DeliveryAttempt => ({
  id: 'del-11111111-2222-3333-4444-555555555555',
  event: 'scan.completed',
  statusCode: 200,
  success: true,
  responseTime: 12,
  attempt: 1,
  deliveredAt: '2026-01-01T00:00:00.000Z',
  error: null,
  nextAttemptAt: null,
  ...changes,
});

describe('the delivery log', () => {
  it('names the state of each attempt: retrying only while its next attempt is to come', () => {
    const rows = readDeliveryLog([
      attempt({ id: 'del-b', attempt: 2, success: false, nextAttemptAt: '2026-01-01T00:02Z' }),
      attempt({ id: 'del-b', attempt: 1, success: false, nextAttemptAt: '2026-01-01T00:01Z' }),
      attempt({ id: 'del-a', attempt: 2, statusCode: 200 }),
      attempt({ id: 'del-a', attempt: 1, success: false, statusCode: 0, nextAttemptAt: 'x' }),
    ]);
    expect(rows.map((row) => [row.state, row.nextAttemptAt])).toEqual([
      ['retrying', '2026-01-01T00:02Z'],
      ['failed', null],
      ['delivered', null],
      ['failed', null],
    ]);
  });

  it('offers Redeliver on the newest attempt of each delivery that is over, not on tests', () => {
    const rows = readDeliveryLog([
      attempt({ id: 'del-a', attempt: 4, success: false, statusCode: 500 }),
      attempt({ id: 'del-a', attempt: 3, success: false, statusCode: 500 }),
      attempt({ id: 'del-b', attempt: 2, success: false, nextAttemptAt: '2026-01-01T00:01Z' }),
      attempt({ id: 'del-b', attempt: 1, success: false, nextAttemptAt: '2026-01-01T00:00Z' }),
      attempt({ id: 'del-c', event: 'webhook.test' }),
      attempt({ id: 'del-d' }),
    ]);
    expect(rows.map((row) => row.redeliverable)).toEqual([true, false, false, false, false, true]);
    expect(rows[0]?.state).toBe('failed');
  });

  it('filtered by outcome, takes a failed attempt as retrying only while its next one is due', () => {
    const now = Date.parse('2026-01-01T00:01:30Z');
    // Failed only: del-a's second attempt (a success) is left out; del-b still has one to come.
    const rows = readDeliveryLog(
      [
        attempt({ id: 'del-b', attempt: 1, success: false, nextAttemptAt: '2026-01-01T00:02Z' }),
        attempt({ id: 'del-a', attempt: 1, success: false, nextAttemptAt: '2026-01-01T00:01Z' }),
        attempt({ id: 'del-c', attempt: 4, success: false, statusCode: 500 }),
      ],
      { byOutcome: true, now },
    );
    expect(rows.map((row) => [row.state, row.nextAttemptAt, row.redeliverable])).toEqual([
      ['retrying', '2026-01-01T00:02Z', false],
      ['failed', null, false],
      ['failed', null, true],
    ]);
  });

  it('reads the filters from the address, dropping what the API would refuse', () => {
    const id = 'del-11111111-2222-3333-4444-555555555555';
    expect(
      deliveryFilterFrom(new URLSearchParams(`outcome=failed&event=webhook.test&delivery=${id}`)),
    ).toEqual({ success: false, event: 'webhook.test', deliveryId: id });
    expect(deliveryFilterFrom(new URLSearchParams('outcome=delivered'))).toEqual({
      success: true,
    });
    expect(
      deliveryFilterFrom(new URLSearchParams('outcome=yes&event=scan.queued&delivery=del-1')),
    ).toEqual({});
  });

  it('shortens a delivery id for a narrow column', () => {
    expect(shortDeliveryId('del-11111111-2222-3333-4444-555555555555')).toBe('11111111');
  });

  it('turns two datetime-local values into the recover window', () => {
    const since = new Date(2026, 0, 2, 3, 4);
    expect(toLocalInput(since)).toBe('2026-01-02T03:04');
    expect(recoverWindow('2026-01-02T03:04', '')).toEqual({
      ok: true,
      value: { since: since.toISOString() },
    });
    expect(recoverWindow('2026-01-02T03:04', '2026-01-02T05:00')).toEqual({
      ok: true,
      value: { since: since.toISOString(), until: new Date(2026, 0, 2, 5, 0).toISOString() },
    });
    expect(recoverWindow('', '')).toMatchObject({ ok: false });
    expect(recoverWindow('2026-01-02T03:04', '2026-01-02T03:04')).toMatchObject({
      ok: false,
      problem: 'The end of the window must come after its start.',
    });
  });
});
