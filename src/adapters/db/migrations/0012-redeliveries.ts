import type { Migration } from './index.js';

/**
 * Redelivery (issue 22): a delivery sent again on request is a new delivery row, with its own
 * `del-<uuid>` and attempts 1..4, that remembers where it came from.
 *
 * - `redelivery_of`: the delivery it sends again (null for a delivery made from an event).
 * - `message_id`: the Standard Webhooks `webhook-id` it carries: the first delivery of the chain
 *   (null: its own id), so a receiver that dedupes on `webhook-id` sees one message however often
 *   it is sent. Recovery takes only the newest delivery of each message, found through
 *   `webhook_deliveries_by_message`.
 * - `webhook_deliveries_by_webhook_created`: recovery reads one webhook's deliveries since a time.
 */
export const migration0012: Migration = {
  version: 12,
  name: 'redeliveries',
  statements: [
    `alter table webhook_deliveries add column redelivery_of uuid`,
    `alter table webhook_deliveries add column message_id uuid`,
    `create index webhook_deliveries_by_message on webhook_deliveries (message_id)
      where message_id is not null`,
    `create index webhook_deliveries_by_webhook_created on webhook_deliveries
      (webhook_id, created_at) where kind = 'webhook'`,
  ],
};
