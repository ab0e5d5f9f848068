// API response shape of the subscriber record: store rows as the routes answer them
// (the TypeBox schemas in schemas/ describe the same shapes for validation and the OpenAPI document).
import { iso } from "../../store/time";
import type { SubscriberRow } from "../../store/subscribers";

/** DESIGN.md 6: the subscriber record as the API returns it. */
export function serializeSubscriber(r: SubscriberRow) {
  return {
    id: r.id,
    external_id: r.external_id,
    email: r.email,
    phone: r.phone,
    name: r.name,
    locale: r.locale,
    timezone: r.timezone,
    custom_properties: r.custom_properties ?? {},
    consent: r.consent
      ? { given_at: r.consent.given_at ?? null, ip: r.consent.ip ?? null, method: r.consent.method ?? null }
      : null,
    created_at: iso(r.created_at)!,
    updated_at: iso(r.updated_at)!,
  };
}
