// The inbound half of open and click tracking: the public /track routes' use cases, which check the
// token and record the open or click as a receipt (the outbound half is domain/delivery/tracking-links.ts).
import { AppError } from "../../basics/errors";
import { isUuid } from "../../store/ids";
import { findNotificationContent } from "../../store/notifications";
import { trackedLinks } from "../delivery/tracking-links";
import { applyReceipt } from "./apply-receipt";
import { verifyTrackingToken } from "./tracking-token";

const invalidToken = () => new AppError("invalid_token", "The tracking link is invalid or has been tampered with");

interface Visitor {
  ip: string | null;
  userAgent: string | null;
}

/** GET /track/open/:token: records the first open. A valid token answers the pixel even when nothing is recorded. */
export async function recordOpen(token: string, who: Visitor): Promise<void> {
  const claims = verifyTrackingToken(token, "open");
  if (!claims) throw invalidToken();
  await applyReceipt(
    { kind: "notification", notificationId: claims.notificationId },
    { kind: "opened", at: new Date(), providerStatus: "open", source: "tracking", ip: who.ip, userAgent: who.userAgent },
  );
}

/**
 * GET /track/click/:token: the original URL of link `index` of the message as stored at acceptance,
 * after recording the click. The URL only ever comes from the message: a token cannot name another.
 */
export async function recordClick(token: string, who: Visitor): Promise<string> {
  const claims = verifyTrackingToken(token, "click");
  if (!claims || !isUuid(claims.notificationId)) throw invalidToken();
  const n = await findNotificationContent(claims.notificationId);
  const html = typeof n?.content?.html === "string" ? n.content.html : null;
  const url = html ? trackedLinks(html)[claims.linkIndex] : undefined;
  // gone with an erasure, or an index the message never had
  if (!url) throw new AppError("link_not_found", "This link is no longer available");
  await applyReceipt(
    { kind: "notification", notificationId: claims.notificationId },
    {
      kind: "clicked",
      at: new Date(),
      providerStatus: "click",
      source: "tracking",
      url,
      linkIndex: claims.linkIndex,
      ip: who.ip,
      userAgent: who.userAgent,
    },
  );
  return url;
}
