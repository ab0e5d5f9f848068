// The one email address rule: subscriber emails, dashboard sign-ins, email recipients and provider
// From addresses all pass isEmailAddress; the domain normalisation the blocklist keys on lives here too.
import { domainToASCII } from "node:url";

const LABEL_RE = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

/** Lower-case ASCII (punycode) form without a trailing dot, or null when it is not a hostname. */
export function normalizeDomain(input: string): string | null {
  if (typeof input !== "string") return null;
  let d = input.trim().toLowerCase().replace(/\.$/, "");
  if (d === "" || d.length > 253) return null;
  if (/[^\x00-\x7f]/.test(d)) {
    d = domainToASCII(d);
    if (!d) return null;
  }
  const labels = d.split(".");
  if (labels.length < 2 || !labels.every((l) => LABEL_RE.test(l))) return null;
  if (/^\d+$/.test(labels[labels.length - 1]!)) return null; // an IP address, not a domain
  return d;
}

/** The domain part of an email address, normalized; null when the address has none. */
export function emailDomain(email: string): string | null {
  if (typeof email !== "string") return null;
  const at = email.lastIndexOf("@");
  if (at <= 0 || at === email.length - 1) return null;
  return normalizeDomain(email.slice(at + 1));
}

// No white space, quotes, brackets, commas, colons, semicolons, backslashes or angle brackets in
// either part (RFC 5322 quoted and bracketed forms are refused: no mailbox provider we speak to needs them).
const ADDRESS_RE = /^[^\s@<>()",;:\\[\]]{1,64}@[^\s@<>()",;:\\[\]]+$/;

/**
 * An address we accept: at most 254 characters, a local part of 1 to 64, and a domain that
 * normalizeDomain accepts (two labels or more, IDN allowed). Case is left to the caller, which
 * lower-cases what it stores.
 */
export function isEmailAddress(value: unknown): value is string {
  return typeof value === "string" && value.length <= 254 && ADDRESS_RE.test(value) && emailDomain(value) !== null;
}
