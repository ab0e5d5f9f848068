// /webhooks/whatsapp (DESIGN.md 7): Meta's verification challenge (GET) and signed status callbacks
// (POST) applied by the one receipt path (domain/receipts.ts). No API key: the signature is the auth.
import { Elysia, t } from "elysia";
import { whatsappStatusWebhook } from "../../domain/provider-callbacks";
import { ErrorBody } from "../../schemas/errors";
import { WhatsappWebhookBody, WhatsappWebhookResponse } from "../../schemas/provider-callbacks";
import { sql } from "../../store/db";
import { AppError } from "../../basics/errors";

export const whatsappWebhookRoutes = new Elysia({ name: "routes.whatsapp-webhook" })
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
      query: t.Record(t.String(), t.String()),
      response: { 200: t.String({ description: "hub.challenge, echoed" }), 403: ErrorBody },
      detail: { summary: "WhatsApp Cloud API webhook verification (echoes hub.challenge)", tags: ["public"], security: [] },
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
      parse: ["application/json"], // for the OpenAPI document; the global JSON parser keeps the raw body
      body: WhatsappWebhookBody,
      response: { 200: WhatsappWebhookResponse, 400: ErrorBody, 401: ErrorBody, 413: ErrorBody, 422: ErrorBody },
      detail: { summary: "WhatsApp Cloud API status callbacks (X-Hub-Signature-256)", tags: ["public"], security: [] },
    },
  );
