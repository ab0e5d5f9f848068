// Recipient rules per channel (SPEC "Notification"): email address, E.164 phone for sms and
// whatsapp, a subscriber (id or external_id) for in_app, an FCM token or PushSubscription JSON for push.
import { parsePhoneNumberFromString } from "libphonenumber-js";
import { isEmail } from "../providers/config-checks";
import { parseSubscription } from "../providers/push/webpush";
import type { Channel } from "../providers/types";

export type RecipientCheck = { ok: true; recipient: string } | { ok: false; message: string };

/** Pure syntax check; in_app recipients are looked up separately (resolveInAppSubscriber). */
export function checkRecipient(channel: Channel, raw: string): RecipientCheck {
  const value = raw.trim();
  if (value === "") return { ok: false, message: "must not be empty" };
  switch (channel) {
    case "email":
      // Addresses are compared case-insensitively by every mailbox provider we speak to.
      return isEmail(value) ? { ok: true, recipient: value.toLowerCase() } : { ok: false, message: "must be a valid email address" };
    case "sms":
    case "whatsapp": {
      if (!/^\+[1-9]\d{6,14}$/.test(value)) return { ok: false, message: "must be an E.164 phone number (e.g. +5511912345678)" };
      const phone = parsePhoneNumberFromString(value);
      if (!phone || !phone.isPossible()) return { ok: false, message: "must be an E.164 phone number (e.g. +5511912345678)" };
      return { ok: true, recipient: phone.number };
    }
    case "in_app":
      return value.length <= 255 ? { ok: true, recipient: value } : { ok: false, message: "must be a subscriber id or external_id" };
    case "push": {
      if (value.startsWith("{")) {
        const sub = parseSubscription(value);
        return typeof sub === "string" ? { ok: false, message: sub } : { ok: true, recipient: value };
      }
      // FCM registration tokens are long opaque strings of URL-safe characters and ':'.
      if (value.length >= 20 && value.length <= 4096 && /^[A-Za-z0-9_:\-.]+$/.test(value)) return { ok: true, recipient: value };
      return { ok: false, message: "must be an FCM registration token or a Web Push subscription as JSON text" };
    }
  }
}

