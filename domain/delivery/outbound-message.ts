// What a provider is given for one notification: its stored (rendered) content, and for an email to
// a known subscriber the RFC 8058 one-click unsubscribe headers.
import type { OutboundMessage } from "../../providers/types";
import type { Channel } from "../../schemas/channels";
import type { NotificationRow } from "../../store/notifications";
import type { StoredContent } from "./target";
import { createUnsubscribeToken, unsubscribeUrl } from "../subscribers/unsubscribe-token";

/** The message for notification `n`; subscriberId is the recipient's subscriber (from the suppression check), if any. */
export function outboundMessageOf(n: NotificationRow, subscriberId: string | null): OutboundMessage {
  const c = (n.content ?? {}) as StoredContent;
  const msg: OutboundMessage = {
    notificationId: n.id,
    tenantId: n.tenant_id,
    environment: n.environment,
    channel: n.channel as Channel,
    to: n.recipient ?? "",
    data: n.data ?? {},
  };
  if (c.subject !== undefined) msg.subject = c.subject;
  if (c.html !== undefined) msg.html = c.html;
  if (c.text !== undefined) msg.text = c.text;
  if (c.content !== undefined) msg.content = c.content;
  if (c.title !== undefined) msg.title = c.title;
  if (c.body !== undefined) msg.body = c.body;
  if (c.providerTemplateId) msg.providerTemplateId = c.providerTemplateId;
  const unsubscribe = n.channel === "email" ? unsubscribeLinkFor(n, subscriberId) : null;
  if (unsubscribe) {
    // RFC 8058 one-click: mailbox providers POST "List-Unsubscribe=One-Click" to the https URL.
    msg.headers = { "List-Unsubscribe": `<${unsubscribe}>`, "List-Unsubscribe-Post": "List-Unsubscribe=One-Click" };
  }
  return msg;
}

/** An address with no subscriber has no preference to switch off: no link. */
function unsubscribeLinkFor(n: NotificationRow, subscriberId: string | null): string | null {
  if (!subscriberId) return null;
  return unsubscribeUrl(
    createUnsubscribeToken({ tenantId: n.tenant_id, environment: n.environment, subscriberId, channel: "email", category: n.category }),
  );
}
