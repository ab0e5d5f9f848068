// Field rules for subscriber input shared by POST, PUT and bulk import: email syntax and the
// disposable-domain blocklist, E.164 phone, BCP 47 locale, IANA timezone, custom_properties.
import { parsePhoneNumberFromString } from "libphonenumber-js";
import { isEmailAddress } from "../../schemas/email";
import { isBlockedEmail } from "../../store/blocked-domains";
import type { SubscriberFields } from "../../store/subscribers";
import { fieldErrors, type ErrorDetails } from "../../basics/errors";

export const SUBSCRIBER_FIELDS = ["external_id", "email", "phone", "name", "locale", "timezone", "custom_properties"] as const;
const MAX_CUSTOM_PROPERTIES_BYTES = 64 * 1024;

const LOCALE_RE = /^[A-Za-z]{2,3}(?:[_-][A-Za-z0-9]{1,8})*$/;
const TIMEZONE_RE = /^[A-Za-z][A-Za-z0-9_+\-]*(?:\/[A-Za-z0-9_+\-]+)*$/;

const zoneCache = new Map<string, string | null>();
/** The canonical IANA name (America/Sao_Paulo for america/sao_paulo), or null if unknown. */
export function canonicalTimezone(tz: string): string | null {
  if (zoneCache.has(tz)) return zoneCache.get(tz)!;
  let out: string | null = null;
  // UTC offsets such as "+03:00" are accepted by Intl but are not IANA zone names
  if (TIMEZONE_RE.test(tz)) {
    try {
      out = new Intl.DateTimeFormat("en-US", { timeZone: tz }).resolvedOptions().timeZone;
    } catch {
      out = null;
    }
  }
  if (zoneCache.size < 10_000) zoneCache.set(tz, out);
  return out;
}

/** BCP 47 tags, also in the pt_BR underscore style the templates use. */
export function isValidLocale(locale: string): boolean {
  if (!LOCALE_RE.test(locale) || locale.length > 35) return false;
  try {
    return Intl.getCanonicalLocales(locale.replace(/_/g, "-")).length === 1;
  } catch {
    return false;
  }
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/**
 * Checks one subscriber object. `mode`: "upsert" (POST and import: external_id required,
 * null means "not given"), "update" (PUT: every field optional, null clears). Returns the
 * normalized fields (email lower-cased, phone as E.164, timezone canonical) and the
 * errors keyed `<prefix><field>`.
 */
export async function validateSubscriberInput(
  input: unknown,
  mode: "upsert" | "update",
  prefix = "",
): Promise<{ fields: SubscriberFields; errors: ErrorDetails }> {
  const errors = fieldErrors();
  // Unknown keys are caller-chosen ("constructor", "__proto__"): the map has no prototype (fieldErrors).
  const fail = (field: string, msg: string) => void (errors[prefix + field] ??= []).push(msg);
  const fields: SubscriberFields = {};
  if (!isPlainObject(input)) {
    errors[prefix ? prefix.replace(/\.$/, "") : "body"] = ["must be an object"];
    return { fields, errors };
  }
  for (const key of Object.keys(input)) {
    if (!(SUBSCRIBER_FIELDS as readonly string[]).includes(key)) fail(key, "is not a subscriber field");
  }

  const ext = input.external_id;
  if (ext === undefined || ext === null) {
    if (mode === "upsert") fail("external_id", "is required");
  } else if (typeof ext !== "string") fail("external_id", "must be a string");
  else if (ext.trim() === "" || ext.length > 255) fail("external_id", "must be 1 to 255 characters");
  else if (/[\u0000-\u001f\u007f]/.test(ext)) fail("external_id", "must not contain control characters");
  else if (ext.startsWith("erased:")) fail("external_id", "must not start with the reserved prefix \"erased:\"");
  else fields.external_id = ext;

  // email, phone, name, locale, timezone: null clears, absent leaves as is, anything else must be a
  // string that `check` turns into the stored value or refuses with a message
  const stringField = async (
    field: "email" | "phone" | "name" | "locale" | "timezone",
    value: unknown,
    check: (v: string) => string | { error: string } | Promise<string | { error: string }>,
  ) => {
    if (value === null) fields[field] = null;
    else if (value === undefined) return;
    else if (typeof value !== "string") fail(field, "must be a string");
    else {
      const out = await check(value);
      if (typeof out === "string") fields[field] = out;
      else fail(field, out.error);
    }
  };
  await stringField("email", input.email, async (v) => {
    const value = v.trim().toLowerCase();
    if (!isEmailAddress(value)) return { error: "must be a valid email address" };
    if (await isBlockedEmail(value)) return { error: "uses a blocked (disposable) email domain" };
    return value;
  });
  await stringField("phone", input.phone, (v) => {
    const trimmed = v.trim();
    const parsed = /^\+[1-9]\d{6,14}$/.test(trimmed) ? parsePhoneNumberFromString(trimmed) : undefined;
    if (!parsed || !parsed.isValid()) return { error: "must be a valid E.164 phone number (e.g. +5511912345678)" };
    return parsed.number;
  });
  await stringField("name", input.name, (v) => (v.length > 255 ? { error: "must be at most 255 characters" } : v));
  await stringField("locale", input.locale, (v) =>
    isValidLocale(v) ? v : { error: "must be a BCP 47 language tag such as pt-BR or pt_BR" },
  );
  await stringField("timezone", input.timezone, (v) => canonicalTimezone(v) || { error: "must be an IANA time zone such as America/Sao_Paulo" });

  const props = input.custom_properties;
  if (props === null) fields.custom_properties = null;
  else if (props !== undefined) {
    if (!isPlainObject(props)) fail("custom_properties", "must be an object");
    else if (JSON.stringify(props).length > MAX_CUSTOM_PROPERTIES_BYTES) {
      fail("custom_properties", `must be at most ${MAX_CUSTOM_PROPERTIES_BYTES} bytes as JSON`);
    } else fields.custom_properties = props;
  }

  return { fields, errors };
}
