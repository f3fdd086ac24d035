/**
 * Webhook endpoints: create (the secret shown once), list, get, patch, delete, and the delivery
 * log. Bodies arrive type-checked by the route schema (required fields, types, event names);
 * the URL is checked here, after the cheaper checks, because it may need DNS.
 */
import type { RandomBytes } from '../../domain/api-keys/raw-key.js';
import { ApiError } from '../../domain/errors.js';
import type { Severity } from '../../domain/findings/finding.js';
import { DEFAULT_WEBHOOK_EVENTS } from '../../domain/webhooks/webhook-events.js';
import { withDefaults } from '../../domain/webhooks/webhook-filters.js';
import { generateWebhookSecret } from '../../domain/webhooks/webhook-secret.js';
import type { IdSource, Page } from '../ports/common.js';
import type { AttemptFilter, WebhookStore, WebhookUrlChecker } from '../ports/webhooks.js';
import { pagination } from '../scans/scan-view.js';
import { toDeliveryView, toWebhookView } from './webhook-view.js';

export interface WebhookDeps {
  readonly webhooks: WebhookStore;
  readonly urls: WebhookUrlChecker;
  readonly ids: IdSource;
  readonly randomBytes: RandomBytes;
  /** TENANT_MAX_WEBHOOKS: webhooks one tenant may have, active or disabled. */
  readonly maxWebhooks: number;
}

/** Filters as a body gives them: both optional (webhook-filters.ts fills the defaults). */
export interface FiltersInput {
  minSeverity?: Severity;
  onlyNew?: boolean;
}

export interface CreateWebhookInput {
  name: string;
  url: string;
  events?: string[];
  filters?: FiltersInput | null;
}

export interface PatchWebhookInput {
  name?: string;
  url?: string;
  events?: string[];
  isActive?: boolean;
  /** null removes the filters. */
  filters?: FiltersInput | null;
}

const filtersOf = (input: FiltersInput | null | undefined) =>
  input === null || input === undefined ? null : withDefaults(input);

async function assertUrl(urls: WebhookUrlChecker, url: string): Promise<void> {
  const check = await urls.check(url);
  if (!check.ok) {
    throw new ApiError(check.code, { reason: check.reason });
  }
}

function assertName(name: string): void {
  if (name.trim().length === 0) {
    throw new ApiError('INVALID_FIELD_VALUE', { field: 'name', reason: 'must not be empty' });
  }
}

export async function createWebhook(
  deps: WebhookDeps,
  tenantId: string,
  input: CreateWebhookInput,
) {
  assertName(input.name);
  await assertUrl(deps.urls, input.url);
  const webhook = await deps.webhooks.insert(
    {
      id: deps.ids.uuid(),
      tenantId,
      name: input.name,
      url: input.url,
      secret: generateWebhookSecret(deps.randomBytes),
      events: [...new Set(input.events ?? DEFAULT_WEBHOOK_EVENTS)],
      filters: filtersOf(input.filters),
    },
    deps.maxWebhooks,
  );
  if (webhook === 'limit-reached') {
    throw new ApiError('TENANT_LIMIT_REACHED', { limit: deps.maxWebhooks, resource: 'webhooks' });
  }
  return { webhook: toWebhookView(webhook, true) };
}

export async function listWebhooks(webhooks: WebhookStore, tenantId: string, page: Page) {
  const found = await webhooks.list(tenantId, page);
  return {
    webhooks: found.webhooks.map((webhook) => toWebhookView(webhook)),
    pagination: pagination(page.page, page.limit, found.total),
  };
}

export async function getWebhook(webhooks: WebhookStore, tenantId: string, id: string | null) {
  const webhook = id === null ? null : await webhooks.get(tenantId, id);
  if (webhook === null) {
    throw new ApiError('WEBHOOK_NOT_FOUND');
  }
  return { webhook: toWebhookView(webhook) };
}

export async function patchWebhook(
  deps: WebhookDeps,
  tenantId: string,
  id: string | null,
  input: PatchWebhookInput,
) {
  if (id === null || (await deps.webhooks.get(tenantId, id)) === null) {
    throw new ApiError('WEBHOOK_NOT_FOUND');
  }
  if (input.name !== undefined) {
    assertName(input.name);
  }
  if (input.url !== undefined) {
    await assertUrl(deps.urls, input.url);
  }
  const webhook = await deps.webhooks.update(tenantId, id, {
    ...(input.name === undefined ? {} : { name: input.name }),
    ...(input.url === undefined ? {} : { url: input.url }),
    ...(input.events === undefined ? {} : { events: [...new Set(input.events)] }),
    ...(input.isActive === undefined ? {} : { isActive: input.isActive }),
    ...(input.filters === undefined ? {} : { filters: filtersOf(input.filters) }),
  });
  if (webhook === null) {
    throw new ApiError('WEBHOOK_NOT_FOUND');
  }
  return { webhook: toWebhookView(webhook) };
}

export async function deleteWebhook(webhooks: WebhookStore, tenantId: string, id: string | null) {
  if (id === null || !(await webhooks.delete(tenantId, id))) {
    throw new ApiError('WEBHOOK_NOT_FOUND');
  }
  return { id: `wh-${id}`, deleted: true as const };
}

export async function listDeliveries(
  webhooks: WebhookStore,
  tenantId: string,
  id: string | null,
  page: Page,
  filter: AttemptFilter = {},
) {
  if (id === null || (await webhooks.get(tenantId, id)) === null) {
    throw new ApiError('WEBHOOK_NOT_FOUND');
  }
  const found = await webhooks.listAttempts(tenantId, id, page, filter);
  return {
    deliveries: found.attempts.map(toDeliveryView),
    pagination: pagination(page.page, page.limit, found.total),
  };
}
