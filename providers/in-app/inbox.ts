// The `inbox` provider: in-app delivery is storing the item in the subscriber's inbox
// (DESIGN.md 6), done by deps.inbox so providers/ never touches the database itself.
import { validateSharedSettingsOnly } from "../config-checks";
import { failure } from "../outcome";
import type { OutboundMessage, Provider, ProviderDefinition, ProviderDeps, SendResult } from "../types";

export class InboxProvider implements Provider {
  readonly name = "inbox";

  constructor(private readonly deps: ProviderDeps) {}

  async send(msg: OutboundMessage, signal?: AbortSignal): Promise<SendResult> {
    const inbox = this.deps.inbox;
    if (!inbox) return failure(false, "inbox_unavailable", "in-app delivery is not wired (deps.inbox missing)");
    if (signal?.aborted) return failure(true, "aborted", "send was cancelled");
    try {
      const { itemId } = await inbox.deliver(msg);
      return { ok: true, providerMessageId: itemId, finalStatus: "delivered", response: { item_id: itemId } };
    } catch (err) {
      const e = err as { permanent?: boolean; code?: unknown; message?: string };
      const permanent = e?.permanent === true;
      const code = typeof e?.code === "string" ? e.code : permanent ? "inbox_rejected" : "inbox_error";
      return failure(!permanent, code, e?.message ?? String(err));
    }
  }
}

export const inboxDefinition: ProviderDefinition = {
  name: "inbox",
  channels: ["in_app"],
  defaultRateLimitPerSecond: 1_000,
  credentialFields: [],
  settingFields: [],
  validate: validateSharedSettingsOnly,
  create(_config, deps = {}) {
    return new InboxProvider(deps);
  },
};
