import { describe, expect, it } from 'vitest';
import {
  createWebhookBody,
  EMPTY_WEBHOOK_FORM,
  webhookFormOf,
  webhookFormProblem,
} from './webhook-form.js';

const filled = { ...EMPTY_WEBHOOK_FORM, name: ' ops ', url: ' https://hooks.example/a ' };

describe('the webhook form', () => {
  it('starts with the events a webhook gets by default', () => {
    expect(EMPTY_WEBHOOK_FORM.events).toEqual(['scan.completed', 'scan.failed']);
  });

  it('becomes a body with trimmed text, the events, and null filters when off', () => {
    expect(createWebhookBody(filled)).toEqual({
      name: 'ops',
      url: 'https://hooks.example/a',
      events: ['scan.completed', 'scan.failed'],
      filters: null,
    });
    expect(
      createWebhookBody({ ...filled, filtered: true, minSeverity: 'high', onlyNew: false }).filters,
    ).toEqual({ minSeverity: 'high', onlyNew: false });
  });

  it.each([
    [{ name: '  ' }, 'Give the webhook a name.'],
    [{ url: 'hooks.example' }, 'The URL must be an absolute https:// address.'],
    [{ url: 'http://hooks.example/' }, 'must start with https://'],
    [{ url: `https://hooks.example/${'a'.repeat(2048)}` }, 'longer than 2048'],
    [{ events: [] }, 'Choose at least one event.'],
  ])('refuses %j before sending', (change, problem) => {
    expect(webhookFormProblem({ ...filled, ...change })).toContain(problem);
  });

  it('accepts a filled form', () => {
    expect(webhookFormProblem(filled)).toBeNull();
  });

  it('fills the form from a webhook to edit it', () => {
    const values = webhookFormOf({
      id: 'wh-1',
      name: 'ops',
      url: 'https://hooks.example/',
      events: ['scan.failed', 'scan.started'],
      isActive: true,
      isHealthy: true,
      consecutiveFailures: 0,
      lastTriggeredAt: null,
      lastStatusCode: null,
      createdAt: '2026-01-01T00:00:00.000Z',
      filters: { minSeverity: 'medium', onlyNew: false },
    });
    expect(values).toEqual({
      name: 'ops',
      url: 'https://hooks.example/',
      events: ['scan.failed', 'scan.started'],
      filtered: true,
      minSeverity: 'medium',
      onlyNew: false,
    });
  });
});
