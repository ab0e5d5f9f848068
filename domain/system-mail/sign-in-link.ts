// The dashboard sign-in link: its URL on PUBLIC_URL and the mail that carries it (sign-in, an
// invitation, or the owner of a tenant created by an operator).
import { config } from "../../config";
import { sendSystemMail } from "./mailer";

export function signInLinkUrl(token: string): string {
  return `${config.publicUrl.replace(/\/$/, "")}/auth/magic-link/verify?token=${encodeURIComponent(token)}`;
}

/** `invitedBy`: who asked for it (a team member's email, or a phrase such as "An operator"). */
export async function sendLoginLink(email: string, token: string, invitedBy?: string, tenantName?: string): Promise<boolean> {
  const link = signInLinkUrl(token);
  const subject = invitedBy ? "You have been invited to NMS" : "Your NMS sign-in link";
  const team = tenantName ? `the NMS account ${tenantName}` : "their NMS team";
  const intro = invitedBy ? `${invitedBy} invited you to ${team}.` : "Use this link to sign in to NMS.";
  return sendSystemMail({
    to: email,
    subject,
    text: `${intro}\n\n${link}\n\nThe link works once and expires in 15 minutes.\n`,
    html: `<p>${intro}</p><p><a href="${link}">Sign in</a></p><p>The link works once and expires in 15 minutes.</p>`,
  });
}
