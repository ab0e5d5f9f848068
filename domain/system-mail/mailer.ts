// The system mailer: mail the service itself sends to dashboard users (login and invite links),
// through SMTP_URL. Without SMTP_URL (local development) the message is logged instead.
import nodemailer, { type Transporter } from "nodemailer";
import { config } from "../../config";
import { logger } from "../../basics/log";

export interface SystemMail {
  to: string;
  subject: string;
  text: string;
  html?: string;
}

let smtpUrl: string | undefined = config.smtpUrl;
let transport: Transporter | null = null;

/** Points the mailer at another SMTP server (tests run a local one); undefined means "log only". */
export function useSmtpUrl(url: string | undefined): void {
  smtpUrl = url;
  transport?.close();
  transport = null;
}

/**
 * Sends one message. Failures are logged and reported as false, never thrown: callers such as
 * the magic-link route must answer the same way whether or not the mail went out.
 */
export async function sendSystemMail(mail: SystemMail): Promise<boolean> {
  if (!smtpUrl) {
    // development without SMTP: the login link is only useful if someone can read it
    logger.info({ to: mail.to, subject: mail.subject, text: mail.text }, "system mail (SMTP_URL unset, not sent)");
    return true;
  }
  try {
    transport ??= nodemailer.createTransport(smtpUrl);
    await transport.sendMail({ from: config.systemMailFrom, to: mail.to, subject: mail.subject, text: mail.text, html: mail.html });
    return true;
  } catch (err) {
    logger.error({ to: mail.to, err: (err as Error).message }, "system mail failed");
    return false;
  }
}
