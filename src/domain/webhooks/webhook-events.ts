/** The event types a webhook may subscribe to (specification, Events). */
export const WEBHOOK_EVENTS = [
  'scan.completed',
  'scan.failed',
  'scan.started',
  'scan.cancelled',
] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

/** A webhook created without `events` subscribes to these. */
export const DEFAULT_WEBHOOK_EVENTS: readonly WebhookEvent[] = ['scan.completed', 'scan.failed'];

/** The events a scan's `callbackUrl` receives: its completion, whichever way it ended. */
export const CALLBACK_EVENTS: readonly string[] = [
  'scan.completed',
  'scan.failed',
  'scan.cancelled',
];

export const TEST_EVENT = 'webhook.test';

/** The events a webhook's delivery log can hold (its `event` filter): the scan events and the test. */
export const DELIVERY_LOG_EVENTS = [...WEBHOOK_EVENTS, TEST_EVENT] as const;
