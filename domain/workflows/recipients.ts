// Recipients across channels (issue 10, docs/workflows.md): a run's recipient is a subscriber (id or
// external_id) or a literal address; each step takes the address its channel needs, or fails clearly.
import type { Channel } from "../../schemas/channels";
import type { Scope } from "../../store/db";
import { findSubscriber, type SubscriberRow } from "../../store/subscribers";
import { triggerLookup } from "../../store/workflow-runs";
import { identifierHash } from "../subscribers/erasure";
import { checkRecipient } from "../notifications/recipients";

/** At trigger: the workflow active now and the subscriber the recipient names (see triggerLookup). */
export async function lookUpTrigger(scope: Scope, slug: string, recipient: string) {
  return await triggerLookup(scope, slug, recipient, identifierHash(scope.tenantId, scope.environment, recipient));
}

export type StepAddress =
  | { ok: true; recipient: string; subscriber: { id: string; external_id: string; locale: string | null } | null }
  | { ok: false; error: { code: string; message: string } };

const fail = (code: string, message: string): StepAddress => ({ ok: false, error: { code, message } });

/** `custom_properties.push_token`: an FCM registration token, or a Web Push subscription (object or JSON text). */
function pushTokenOf(s: SubscriberRow): string | null {
  const t = (s.custom_properties ?? {}).push_token;
  if (typeof t === "string" && t.trim() !== "") return t;
  if (t && typeof t === "object") return JSON.stringify(t);
  return null;
}

function subscriberAddress(s: SubscriberRow, channel: Channel): string | null {
  switch (channel) {
    case "email":
      return s.email;
    case "sms":
    case "whatsapp":
      return s.phone;
    case "in_app":
      return s.id;
    case "push":
      return pushTokenOf(s);
  }
}

/**
 * The address of one step's notification. A subscriber gives the address of the step's channel
 * (read now, so an update since the trigger counts), and its preferences and erasure then apply at
 * send time like for any notification linked to it. A literal address is used as given.
 * Failures: `subscriber_erased`, `address_missing` (the subscriber has none for this channel),
 * `recipient_not_addressable` (a literal address this channel cannot take).
 */
export async function stepAddress(
  run: { tenant_id: string; environment: string; recipient: string; subscriber_id: string | null },
  channel: Channel,
): Promise<StepAddress> {
  const scope = { tenantId: run.tenant_id, environment: run.environment };
  if (run.subscriber_id) {
    const s = await findSubscriber(scope, run.subscriber_id, undefined, { includeDeleted: true });
    if (!s || s.deleted_at) return fail("subscriber_erased", "The subscriber was erased; nothing is sent to it");
    const address = subscriberAddress(s, channel);
    if (!address) {
      const what = channel === "email" ? "an email" : channel === "push" ? "a push_token custom property" : "a phone";
      return fail("address_missing", `Subscriber ${s.external_id} has no ${what} for the ${channel} channel`);
    }
    // its locale picks the template's translation (domain/templates/locale.ts)
    return { ok: true, recipient: address, subscriber: { id: s.id, external_id: s.external_id, locale: s.locale } };
  }
  if (channel === "in_app") {
    return fail("recipient_not_addressable", "in_app needs a subscriber (id or external_id); the recipient is not one");
  }
  const check = checkRecipient(channel, run.recipient);
  if (!check.ok) return fail("recipient_not_addressable", `The recipient cannot receive ${channel}: it ${check.message}`);
  return { ok: true, recipient: run.recipient, subscriber: null };
}
