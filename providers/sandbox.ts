// The built-in `sandbox` provider (DESIGN.md 6): any channel, no network. Recipients starting
// "fail" fail permanently, "bounce" bounce, everything else is delivered at once.
import { randomUUID } from "node:crypto";
import { validateSharedSettingsOnly } from "./config-checks";
import { failure } from "./outcome";
import type { OutboundMessage, Provider, ProviderDefinition, SendResult } from "./types";
import { CHANNELS } from "../schemas/channels";

export class SandboxProvider implements Provider {
  readonly name = "sandbox";

  async send(msg: OutboundMessage, signal?: AbortSignal): Promise<SendResult> {
    if (signal?.aborted) return failure(true, "aborted", "send was cancelled");
    const recipient = msg.to.trim().toLowerCase();
    if (recipient.startsWith("fail")) {
      return failure(false, "sandbox_rejected", "sandbox provider rejects recipients starting with 'fail'", {
        response: { sandbox: true, outcome: "failed" },
      });
    }
    const providerMessageId = `sandbox_${randomUUID()}`;
    const bounced = recipient.startsWith("bounce");
    return {
      ok: true,
      providerMessageId,
      finalStatus: bounced ? "bounced" : "delivered",
      response: { sandbox: true, outcome: bounced ? "bounced" : "delivered", message_id: providerMessageId },
    };
  }
}

export const sandboxDefinition: ProviderDefinition = {
  name: "sandbox",
  channels: [...CHANNELS],
  // no network: the limit only exists so the sender's limiter has a number to use
  defaultRateLimitPerSecond: 10_000,
  credentialFields: [],
  settingFields: [],
  validate: validateSharedSettingsOnly,
  create() {
    return new SandboxProvider();
  },
};
