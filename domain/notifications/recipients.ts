// Recipient rules per channel (SPEC "Notification"): email address, E.164 phone for sms and
// whatsapp, a subscriber (id or external_id) for in_app, an FCM token or PushSubscription JSON for push.
import { parsePhoneNumberFromString } from "libphonenumber-js";
import { isEmailAddress } from "../../schemas/email";
import { parseSubscription } from "../../providers/push/webpush";
import type { Channel } from "../../schemas/channels";

const PHONE_MESSAGE = "must be an E.164 phone number (e.g. +5511912345678)";
// Parsing with libphonenumber's metadata is the costliest step of accepting an SMS; senders
// repeat the same numbers, so answers are remembered (bounded).
const phoneAnswers = new Map<string, RecipientCheck>();

function checkPhone(value: string): RecipientCheck {
  const known = phoneAnswers.get(value);
  if (known) return known;
  let answer: RecipientCheck;
  if (!/^\+[1-9]\d{6,14}$/.test(value)) answer = { ok: false, message: PHONE_MESSAGE };
  else {
    const phone = parsePhoneNumberFromString(value);
    answer = phone && phone.isPossible() ? { ok: true, recipient: phone.number } : { ok: false, message: PHONE_MESSAGE };
  }
  if (phoneAnswers.size >= 50_000) phoneAnswers.clear();
  phoneAnswers.set(value, answer);
  return answer;
}

export type RecipientCheck = { ok: true; recipient: string } | { ok: false; message: string };

/** Pure syntax check; in_app recipients are looked up separately (resolveInAppSubscriber). */
export function checkRecipient(channel: Channel, raw: string): RecipientCheck {
  const value = raw.trim();
  if (value === "") return { ok: false, message: "must not be empty" };
  switch (channel) {
    case "email":
      // Addresses are compared case-insensitively by every mailbox provider we speak to.
      return isEmailAddress(value) ? { ok: true, recipient: value.toLowerCase() } : { ok: false, message: "must be a valid email address" };
    case "sms":
    case "whatsapp":
      return checkPhone(value);
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

