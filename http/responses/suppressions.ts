// API response shape of the suppression list entry: store rows as the routes answer them
// (the TypeBox schemas in schemas/ describe the same shapes for validation and the OpenAPI document).
import { iso } from "../../store/time";
import type { SuppressionRow } from "../../store/suppressions";

/** The API shape of GET /v1/suppressions entries. */
export function toSuppression(r: SuppressionRow) {
  return { address: r.address, channel: r.channel, reason: r.reason, notification_id: r.notification_id, created_at: iso(r.created_at)! };
}
