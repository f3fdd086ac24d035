/** Webhook ids are `wh-<uuid>` and delivery ids `del-<uuid>` (specification); stored as UUIDs. */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const toWebhookId = (uuid: string): string => `wh-${uuid}`;
export const toDeliveryId = (uuid: string): string => `del-${uuid}`;

/** The UUID of `wh-<uuid>`, or null for anything else (answered with WEBHOOK_NOT_FOUND). */
export function parseWebhookId(id: string): string | null {
  const uuid = id.startsWith('wh-') ? id.slice(3) : '';
  return UUID.test(uuid) ? uuid.toLowerCase() : null;
}

/** The UUID of `del-<uuid>`, or null for anything else (answered with DELIVERY_NOT_FOUND). */
export function parseDeliveryId(id: string): string | null {
  const uuid = id.startsWith('del-') ? id.slice(4) : '';
  return UUID.test(uuid) ? uuid.toLowerCase() : null;
}
