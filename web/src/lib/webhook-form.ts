/**
 * The webhook form's values and the bodies they become: the same form creates a webhook (POST)
 * and edits one (PATCH). Events are the ones the API accepts (the service's own list); filters
 * (an extension) gate scan.completed deliveries on what the scan found.
 */
import type { operations } from '../../../src/client/index.js';
import { SEVERITIES, type Severity } from '../../../src/domain/findings/finding.js';
import {
  DEFAULT_WEBHOOK_EVENTS,
  WEBHOOK_EVENTS,
  type WebhookEvent,
} from '../../../src/domain/webhooks/webhook-events.js';
import type { Schema } from './api.js';

export { SEVERITIES, WEBHOOK_EVENTS };

export type CreateWebhookBody =
  operations['createWebhook']['requestBody']['content']['application/json'];
export type PatchWebhookBody =
  operations['updateWebhook']['requestBody']['content']['application/json'];

export interface WebhookFormValues {
  readonly name: string;
  readonly url: string;
  readonly events: readonly WebhookEvent[];
  /** Whether scan.completed deliveries are filtered at all. */
  readonly filtered: boolean;
  readonly minSeverity: Severity;
  readonly onlyNew: boolean;
}

/** The API's limit on subscribed events (schemas/webhook.ts). */
const MAX_EVENTS = 4;
const MAX_URL = 2048;

export const EMPTY_WEBHOOK_FORM: WebhookFormValues = {
  name: '',
  url: '',
  events: DEFAULT_WEBHOOK_EVENTS,
  filtered: false,
  minSeverity: 'info',
  onlyNew: true,
};

/** The form filled in with a webhook's current settings, to edit it. */
export function webhookFormOf(webhook: Schema<'Webhook'>): WebhookFormValues {
  return {
    name: webhook.name,
    url: webhook.url,
    events: WEBHOOK_EVENTS.filter((event) => webhook.events.includes(event)),
    filtered: webhook.filters !== null,
    minSeverity: webhook.filters?.minSeverity ?? 'info',
    onlyNew: webhook.filters?.onlyNew ?? true,
  };
}

/** What is wrong with the values before they are sent, or null; the service checks the rest. */
export function webhookFormProblem(values: WebhookFormValues): string | null {
  if (values.name.trim() === '') {
    return 'Give the webhook a name.';
  }
  let url: URL;
  try {
    url = new URL(values.url.trim());
  } catch {
    return 'The URL must be an absolute https:// address.';
  }
  if (url.protocol !== 'https:') {
    return 'Webhooks are delivered over HTTPS only: the URL must start with https://.';
  }
  if (values.url.trim().length > MAX_URL) {
    return `The URL is longer than ${MAX_URL} characters.`;
  }
  if (values.events.length === 0 || values.events.length > MAX_EVENTS) {
    return 'Choose at least one event.';
  }
  return null;
}

/** The body that creates a webhook with these values. */
export function createWebhookBody(values: WebhookFormValues): CreateWebhookBody {
  return {
    name: values.name.trim(),
    url: values.url.trim(),
    events: [...values.events],
    filters: values.filtered ? { minSeverity: values.minSeverity, onlyNew: values.onlyNew } : null,
  };
}

/** The body that changes a webhook to these values (null filters removes them). */
export function patchWebhookBody(values: WebhookFormValues): PatchWebhookBody {
  return createWebhookBody(values);
}
