// API response shape of the webhook endpoint record (the signing secret only in the creation response): store rows as the routes answer them
// (the TypeBox schemas in schemas/ describe the same shapes for validation and the OpenAPI document).
import { iso } from "../../store/time";
import type { WebhookRow } from "../../store/webhooks";

/** The API shape: never the secret. */
export function serializeWebhook(r: WebhookRow) {
  return {
    id: r.id,
    url: r.url,
    events: r.events,
    active: r.active,
    description: r.description,
    disabled_reason: r.disabled_reason,
    disabled_at: iso(r.disabled_at),
    created_at: iso(r.created_at)!,
    updated_at: iso(r.updated_at)!,
  };
}
