import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { deliveryHeaders } from './delivery-headers.js';

const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const BODY = '{"event":"webhook.test","timestamp":"2026-11-26T10:00:00.000Z"}';
const DELIVERY = '0b8c5d0e-5f43-4d0f-9a43-6a3d2b7f1c11';
const FIRST = '7d2f4c8e-1a2b-4c3d-8e9f-0a1b2c3d4e5f';

const headersAt = (attemptedAt: Date, messageId = DELIVERY) =>
  deliveryHeaders({
    deliveryId: DELIVERY,
    messageId,
    event: 'webhook.test',
    eventTimestamp: '2026-11-26T10:00:00.000Z',
    body: BODY,
    secret: SECRET,
    attemptedAt,
  });

describe('deliveryHeaders', () => {
  it("keeps the contract's headers and adds the Standard Webhooks ones", () => {
    const headers = headersAt(new Date('2026-11-26T10:00:00.900Z'));
    expect(headers).toEqual({
      'content-type': 'application/json',
      'user-agent': 'Rampart-Webhooks/1.0',
      'x-webhook-signature': expect.stringMatching(/^sha256=[0-9a-f]{64}$/),
      'x-webhook-event': 'webhook.test',
      'x-webhook-delivery': `del-${DELIVERY}`,
      'x-webhook-timestamp': '2026-11-26T10:00:00.000Z',
      'webhook-id': `del-${DELIVERY}`,
      'webhook-timestamp': String(Date.parse('2026-11-26T10:00:00Z') / 1000),
      'webhook-signature': new Webhook(SECRET).sign(
        `del-${DELIVERY}`,
        new Date('2026-11-26T10:00:00Z'),
        BODY,
      ),
    });
  });

  it("a later attempt: the contract's headers unchanged, the attempt's time newly signed", () => {
    const first = headersAt(new Date('2026-11-26T10:00:00Z'));
    const fourth = headersAt(new Date('2026-11-26T10:07:00Z'));
    for (const name of ['x-webhook-signature', 'x-webhook-delivery', 'x-webhook-timestamp']) {
      expect(fourth[name]).toBe(first[name]);
    }
    expect(fourth['webhook-id']).toBe(first['webhook-id']);
    expect(Number(fourth['webhook-timestamp']) - Number(first['webhook-timestamp'])).toBe(420);
    expect(fourth['webhook-signature']).not.toBe(first['webhook-signature']);
  });

  it('a redelivery: its own X-Webhook-Delivery, the first delivery as webhook-id', () => {
    const headers = headersAt(new Date('2026-11-27T10:00:00Z'), FIRST);
    expect(headers['x-webhook-delivery']).toBe(`del-${DELIVERY}`);
    expect(headers['webhook-id']).toBe(`del-${FIRST}`);
    expect(headers['webhook-signature']).toBe(
      new Webhook(SECRET).sign(`del-${FIRST}`, new Date('2026-11-27T10:00:00Z'), BODY),
    );
  });
});
