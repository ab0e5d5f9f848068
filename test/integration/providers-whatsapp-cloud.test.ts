// The whatsapp_cloud provider against a local server answering as Meta's Cloud API: text and
// template sends, messages[0].id as id, Graph error shapes, rate-limit codes retryable, timeouts.
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { createProvider } from "../../providers/registry";
import type { OutboundMessage } from "../../providers/types";
import { verifyWhatsappSignature } from "../../providers/whatsapp/whatsapp-cloud";
import * as fakeWhatsapp from "../support/fake-whatsapp-cloud";

const TOKEN = "EAAG-test-access-token";
let wa: fakeWhatsapp.FakeWhatsappCloud;

function message(overrides: Partial<OutboundMessage> = {}): OutboundMessage {
  return {
    notificationId: "0190f5c2-7a1b-7c3d-8e4f-0000000000c1",
    tenantId: "t1",
    environment: "production",
    channel: "whatsapp",
    to: "+5511988887777",
    content: "Seu pedido saiu para entrega",
    ...overrides,
  };
}

function provider(opts: { token?: string; timeoutMs?: number } = {}) {
  return createProvider(
    "whatsapp_cloud",
    {
      credentials: { access_token: opts.token ?? TOKEN, app_secret: "app-secret" },
      settings: { phone_number_id: "106540352242922", verify_token: "vt", base_url: wa.url, template_language: "pt_BR" },
    },
    { timeoutMs: opts.timeoutMs ?? 3000 },
  );
}

beforeAll(async () => {
  wa = await fakeWhatsapp.start({ accessToken: TOKEN });
});
afterAll(() => wa.stop());
beforeEach(() => wa.reset());

describe("whatsapp_cloud provider (POST {base_url}/v20.0/{phone_number_id}/messages)", () => {
  test("text success: Bearer token, messaging_product whatsapp; messages[0].id is the message id", async () => {
    const result = await provider().send(message());
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.providerMessageId).toMatch(/^wamid\./);
    expect(result.providerMessageId).toBe(wa.messages[0]!.id);
    const req = wa.requests[0]!;
    expect(req.path).toBe("/v20.0/106540352242922/messages");
    expect(req.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(req.json).toEqual({
      messaging_product: "whatsapp",
      recipient_type: "individual",
      to: "5511988887777",
      biz_opaque_callback_data: "0190f5c2-7a1b-7c3d-8e4f-0000000000c1",
      type: "text",
      text: { preview_url: false, body: "Seu pedido saiu para entrega" },
    });
    expect(JSON.stringify(result)).not.toContain(TOKEN);
  });

  test("providerTemplateId sends a template in settings.template_language with data.components", async () => {
    const components = [{ type: "body", parameters: [{ type: "text", text: "Ana" }] }];
    const result = await provider().send(message({ content: undefined, providerTemplateId: "order_shipped", data: { components } }));
    expect(result.ok).toBe(true);
    expect(wa.requests[0]!.json).toMatchObject({
      type: "template",
      template: { name: "order_shipped", language: { code: "pt_BR" }, components },
    });
  });

  test("429 (#130429 rate limit) is retryable with Retry-After", async () => {
    wa.script({ kind: "rate_limit", retryAfter: 2 });
    const result = await provider().send(message());
    expect(result).toMatchObject({ ok: false, retryable: true, retryAfterMs: 2000, error: { code: "whatsapp_130429" } });
    if (!result.ok) expect(result.response).toMatchObject({ status: 429, body: { error: { code: 130429, type: "OAuthException" } } });
  });

  test("a throughput code on a 400 is still retryable (Graph code wins)", async () => {
    wa.script({ kind: "error", status: 400, code: 131056, message: "(#131056) Pair rate limit hit" });
    const result = await provider().send(message());
    expect(result).toMatchObject({ ok: false, retryable: true, error: { code: "whatsapp_131056" } });
  });

  test("5xx is retryable; the retry succeeds (2 attempts)", async () => {
    wa.script({ kind: "server_error", status: 500 });
    const p = provider();
    expect(await p.send(message())).toMatchObject({ ok: false, retryable: true });
    expect((await p.send(message())).ok).toBe(true);
  });

  test("400 #131026 undeliverable is permanent, message carries error_data.details", async () => {
    wa.script({ kind: "error", status: 400 });
    const result = await provider().send(message());
    expect(result).toMatchObject({
      ok: false,
      retryable: false,
      error: { code: "whatsapp_131026", message: "(#131026) Message undeliverable: Message Undeliverable." },
    });
  });

  test("an invalid access token gets Graph's 401 code 190: permanent", async () => {
    const result = await provider({ token: "bad" }).send(message());
    expect(result).toMatchObject({ ok: false, retryable: false, error: { code: "whatsapp_190" } });
  });

  test("deadline passes without an answer: retryable timeout", async () => {
    wa.script({ kind: "hang" });
    const result = await provider({ timeoutMs: 300 }).send(message());
    expect(result).toMatchObject({ ok: false, retryable: true, error: { code: "timeout" } });
  });

  test("signed status webhook from the fake verifies with verifyWhatsappSignature, tampered body does not", () => {
    const body = fakeWhatsapp.statusWebhookBody({ phoneNumberId: "106540352242922", messageId: "wamid.X", status: "delivered", recipient: "5511988887777" });
    const sig = fakeWhatsapp.signWebhook(body, "app-secret");
    expect(verifyWhatsappSignature(body, sig, "app-secret")).toBe(true);
    expect(verifyWhatsappSignature(body.replace("delivered", "read"), sig, "app-secret")).toBe(false);
  });
});
