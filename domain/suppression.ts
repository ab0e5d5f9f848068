// Why a notification must not be sent, checked by the channel sender right before each send:
// erasure, preferences and unsubscribe (domain/erasure.ts) plus the email domain blocklist.
import { isBlockedEmail } from "../store/blocked-domains";
import { findSubscribersByAddress } from "../store/subscribers";
import { suppressionFor } from "./erasure";

export const ERASED_RECIPIENT = "[erased]";

export type SendSuppression = "erased" | "preference_disabled" | "unsubscribed" | "blocked_domain";

export async function suppressionReason(n: {
  tenant_id: string;
  environment: string;
  channel: string;
  recipient: string | null;
  subscriber_id: string | null;
  category: string | null;
}): Promise<SendSuppression | null> {
  // Erasure redacts the recipient of the subscriber's stored notifications in place.
  if (n.recipient === ERASED_RECIPIENT) return "erased";
  if (n.channel === "email" && n.recipient && (await isBlockedEmail(n.recipient))) return "blocked_domain";
  return await suppressionFor({
    tenantId: n.tenant_id,
    environment: n.environment,
    channel: n.channel,
    recipient: n.recipient,
    subscriberId: n.subscriber_id,
    category: n.category,
  });
}

/** The subscriber an email address belongs to (for its List-Unsubscribe link), if exactly known. */
export async function subscriberIdForAddress(tenantId: string, environment: string, address: string): Promise<string | null> {
  const rows = await findSubscribersByAddress({ tenantId, environment }, address);
  return rows[0]?.id ?? null;
}
