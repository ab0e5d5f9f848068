// The rule for a dashboard user's address (sign-in, invitation, a tenant's owner): a valid email
// on a domain that is not blocked, stored trimmed and lower-case.
import { isEmailAddress } from "../../schemas/email";
import { isBlockedEmail } from "../../store/blocked-domains";
import { AppError, validationFailed } from "../../basics/errors";

/**
 * A dashboard address as stored (trimmed, lower-case), or 422: validation_failed for a malformed
 * one, email_domain_blocked for a disposable or blocked domain.
 */
export async function acceptableEmail(raw: unknown, field = "email"): Promise<string> {
  const email = typeof raw === "string" ? raw.trim().toLowerCase() : "";
  if (!isEmailAddress(email)) {
    throw validationFailed({ [field]: ["must be a valid email address"] });
  }
  if (await isBlockedEmail(email)) {
    throw new AppError("email_domain_blocked", "Email addresses on this domain are not accepted", {
      [field]: ["uses a blocked (disposable) email domain"],
    });
  }
  return email;
}
