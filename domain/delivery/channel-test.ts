// The channel test (POST /v1/channels/:channel/test) asks the provider itself: without a recipient it
// connects and authenticates without sending where the provider can (SMTP), with one it sends a test
// notification and waits, bounded, for the provider's answer to its first attempt.
import { config } from "../../config";
import { createProvider } from "../../providers/registry";
import type { OutboundMessage } from "../../providers/types";
import type { Channel } from "../../schemas/channels";
import { getNotification, listAttempts } from "../../store/notifications";
import { acceptNotification } from "../notifications/accept";
import { newId } from "../../store/ids";

const VERIFY_DEADLINE_MS = 10_000;

export interface ChannelTestOutcome {
  success: boolean;
  message: string;
  /** what was checked: `connection` (reached and authenticated, nothing sent), `delivery` (a test was sent), `configuration` (fields only) */
  checked: "connection" | "delivery" | "configuration";
  notification_id?: string;
  provider_response?: Record<string, unknown>;
}

const TEST_TEXT = "Test notification: this channel's configuration works.";

function testPayload(channel: Channel): Record<string, unknown> {
  switch (channel) {
    case "email":
      return { subject: "Test notification", content: TEST_TEXT };
    case "sms":
    case "whatsapp":
      return { content: TEST_TEXT };
    case "in_app":
    case "push":
      return { title: "Test notification", body: TEST_TEXT };
  }
}

/** Connects and authenticates without sending when the provider can; otherwise says only the fields were checked. */
export async function verifyChannel(provider: string, credentials: Record<string, unknown>, settings: Record<string, unknown>): Promise<ChannelTestOutcome> {
  const p = createProvider(provider, { credentials, settings }, { timeoutMs: VERIFY_DEADLINE_MS });
  if (!p.verify) {
    return {
      success: true,
      checked: "configuration",
      message: `The ${provider} configuration is complete. ${provider} cannot be asked without sending: give a test address ("to", or settings.test_recipient) to send a test and see its answer`,
    };
  }
  const r = await p.verify();
  if (r.ok) return { success: true, checked: "connection", message: `${provider}: ${r.message}`, provider_response: r.response };
  return { success: false, checked: "connection", message: `${provider} could not be used: ${r.error.message} (${r.error.code})`, provider_response: r.response ?? {} };
}

/** Sends a test notification to `to` and reports the provider's answer to its first attempt (bounded by `waitMs`). */
export async function sendChannelTest(
  scope: { tenantId: string; environment: string },
  channel: Channel,
  provider: string,
  to: string,
  recipientField: string,
  waitMs = config.channelTestWaitMs,
): Promise<ChannelTestOutcome> {
  // client mistakes (a bad recipient: 422) pass through as they are
  const n = await acceptNotification({ ...scope, channel, recipient: to, recipientField, data: testPayload(channel), metadata: { test: true } });
  const deadline = Date.now() + waitMs;
  for (;;) {
    // the row first, then its attempts: a status past pending is committed with its attempt, so the
    // attempt is visible to the later read (read side by side, a loaded machine saw `sent` and no attempt)
    const row = await getNotification(scope.tenantId, scope.environment, n.id);
    const attempts = await listAttempts(n.id);
    const first = attempts[0];
    if (first) {
      const response = first.provider_response ?? {};
      if (first.status === "success") {
        return { success: true, checked: "delivery", notification_id: n.id, provider_response: response, message: `Sent to ${n.recipient} through ${first.provider ?? provider}; it accepted the message` };
      }
      const error = first.error ?? { code: "failed", message: "the provider refused the message" };
      return {
        success: false,
        checked: "delivery",
        notification_id: n.id,
        provider_response: response,
        message: `${first.provider ?? provider} refused the test to ${n.recipient}: ${error.message} (${error.code})`,
      };
    }
    if (row && row.status !== "pending") {
      const why = row.error?.message ?? row.suppressed_reason ?? row.status;
      return { success: false, checked: "delivery", notification_id: n.id, message: `The test to ${n.recipient} was not sent: ${why}` };
    }
    if (Date.now() >= deadline) {
      return {
        success: false,
        checked: "delivery",
        notification_id: n.id,
        message: `Queued, but no answer from ${provider} within ${Math.round(waitMs / 1000)} s (is a channel-sender process running?); follow notification ${n.id}`,
      };
    }
    await Bun.sleep(100);
  }
}

/**
 * A backup provider's test with a recipient: the test message goes straight through that provider's
 * adapter (no notification is created: a notification is routed, so it would reach the primary).
 */
export async function sendDirectTest(
  scope: { tenantId: string; environment: string },
  channel: Channel,
  provider: string,
  credentials: Record<string, unknown>,
  settings: Record<string, unknown>,
  to: string,
): Promise<ChannelTestOutcome> {
  const p = createProvider(provider, { credentials, settings }, { timeoutMs: VERIFY_DEADLINE_MS, allowHttpEndpoints: config.allowHttpProviderEndpoints });
  const payload = testPayload(channel);
  const msg: OutboundMessage = {
    notificationId: newId(),
    tenantId: scope.tenantId,
    environment: scope.environment,
    channel,
    to,
    subject: payload.subject as string | undefined,
    text: channel === "email" ? TEST_TEXT : undefined,
    content: payload.content as string | undefined,
    title: payload.title as string | undefined,
    body: payload.body as string | undefined,
  };
  const r = await p.send(msg, AbortSignal.timeout(VERIFY_DEADLINE_MS));
  if (r.ok) return { success: true, checked: "delivery", provider_response: r.response, message: `Sent to ${to} through ${provider}; it accepted the message` };
  return { success: false, checked: "delivery", provider_response: r.response ?? {}, message: `${provider} refused the test to ${to}: ${r.error.message} (${r.error.code})` };
}
