// /webhooks/whatsapp (DESIGN.md 7): Meta's verification challenge (GET) and signed status callbacks
// (POST) applied by the one receipt path (domain/receipts/apply-receipt.ts). No API key: the signature is the auth.
import { Elysia, t } from "elysia";
import { whatsappStatusWebhook } from "../../domain/receipts/provider-callbacks";
import { WhatsappWebhookBody, WhatsappWebhookResponse } from "../../schemas/provider-callbacks";
import { sql } from "../../store/db";
import { AppError } from "../../basics/errors";
import { errors } from "../route-docs";
import { accessPlugin } from "../plugins/access";

const VerifyQuery = t.Object({
  "hub.mode": t.Optional(t.String({ description: "subscribe" })),
  "hub.verify_token": t.Optional(t.String({ description: "the channel's settings.verify_token" })),
  "hub.challenge": t.Optional(t.String({ description: "echoed back when the token matches" })),
});

export const whatsappWebhookRoutes = new Elysia({ name: "routes.whatsapp-webhook" }).use(accessPlugin)
  .get(
    "/webhooks/whatsapp",
    async ({ query, set }) => {
      const token = query["hub.verify_token"];
      const challenge = query["hub.challenge"];
      if (query["hub.mode"] === "subscribe" && token && challenge !== undefined) {
        const [match] = await sql`select 1 from channels
          where channel = 'whatsapp' and provider = 'whatsapp_cloud' and settings ->> 'verify_token' = ${token} limit 1`;
        if (match) {
          set.headers["content-type"] = "text/plain; charset=utf-8";
          return String(challenge);
        }
      }
      throw new AppError("invalid_verify_token", "hub.verify_token does not match any WhatsApp channel");
    },
    {
      access: "public",
      query: VerifyQuery,
      response: {
        200: t.String({ description: "hub.challenge, as text/plain", examples: ["1158201444"] }),
        ...errors(403, 422),
      },
      detail: { summary: "WhatsApp Cloud API webhook verification (echoes hub.challenge)", description: "Meta calls it once when you register the callback URL: hub.verify_token must equal the configured token (403 otherwise).", tags: ["provider-callbacks"] },
    },
  )
  .post(
    "/webhooks/whatsapp",
    async ({ request, body, headers }) => {
      const { updated } = await whatsappStatusWebhook({
        rawBody: (request as { __rawBody?: string }).__rawBody ?? "",
        body,
        signature: headers["x-hub-signature-256"] ?? null,
      });
      return { received: true, updated };
    },
    {
      access: "public",
      parse: ["application/json"], // for the OpenAPI document; the global JSON parser keeps the raw body
      body: WhatsappWebhookBody,
      response: { 200: WhatsappWebhookResponse, ...errors(400, 401, 413, 422) },
      detail: { summary: "WhatsApp Cloud API status callbacks (X-Hub-Signature-256)", description: "Meta POSTs message status changes here; the body's signature is checked with the app secret and each status moves its notification (sent, delivered, read, failed).", tags: ["provider-callbacks"] },
    },
  );
