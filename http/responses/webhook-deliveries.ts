// API response shape of the webhook delivery record (one attempt of one event to one webhook): store rows as the routes answer them
// (the TypeBox schemas in schemas/ describe the same shapes for validation and the OpenAPI document).
import { iso } from "../../store/time";
import type { DeliveryRow } from "../../store/webhook-deliveries";

export function serializeDelivery(r: DeliveryRow) {
  return {
    id: r.id,
    webhook_id: r.webhook_id,
    event_id: r.event_id,
    event_type: r.event_type,
    attempt: r.attempt,
    status: r.status,
    response_status: r.response_status,
    response_body: r.response_body,
    duration_ms: r.duration_ms,
    error: r.error,
    next_retry_at: iso(r.next_retry_at),
    created_at: iso(r.created_at)!,
  };
}
