// The system mail (domain/mailer: magic links, team invitations) sent to a fake SMTP server, for the
// session tests: start the server and point the mailer at it, then switch the mailer off and stop it.
import { useSmtpUrl } from "../../domain/system-mail/mailer";
import { start as startSmtp, type FakeSmtp } from "./fake-smtp";

/** The SMTP_URL that reaches a fake server. */
export function smtpUrlOf(smtp: FakeSmtp): string {
  return `smtp://127.0.0.1:${smtp.port}`;
}

/** Starts a fake SMTP server and sends the system mail to it (beforeAll). */
export async function startMailerSmtp(): Promise<FakeSmtp> {
  const smtp = await startSmtp();
  useSmtpUrl(smtpUrlOf(smtp));
  return smtp;
}

/** Leaves the mailer without SMTP (mail is logged, not sent) and stops the server (afterAll). */
export async function stopMailerSmtp(smtp: FakeSmtp): Promise<void> {
  useSmtpUrl(undefined);
  await smtp.stop();
}
