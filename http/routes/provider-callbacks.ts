// Public provider callbacks per channel configuration: POST /webhooks/twilio/:channel_id (status
// callbacks), /webhooks/sendgrid|mailgun|.../:channel_id (webhooks). No API key: the provider's signature is the auth.
import { Elysia } from "elysia";
import { mailgunWebhook, postmarkWebhook, resendWebhook, sendgridEventWebhook, twilioStatusCallback, vonageStatusWebhook } from "../../domain/receipts/provider-callbacks";
import { signedUrlOf } from "../../domain/delivery/receipt-links";
import { ErrorBody } from "../../schemas/errors";
import {
  CallbackChannelParams,
  CallbackOutcomeBody,
  MailgunWebhookBody,
  PostmarkWebhookBody,
  ResendWebhookBody,
  VonageStatusBody,
  SendgridEventBatch,
  TwilioStatusCallbackBody,
} from "../../schemas/provider-callbacks";
import { accessPlugin } from "../plugins/access";

const errors = {
  400: ErrorBody,
  401: ErrorBody,
  404: ErrorBody,
  413: ErrorBody,
  422: ErrorBody,
};

// The signature covers the exact parameters Twilio sent: they are read again from the raw form
// text the global body parser keeps (a repeated name keeps every value), beside the parsed body the schema checks.
const rawFormOf = (request: Request) => new URLSearchParams((request as { __rawBody?: string }).__rawBody ?? "");

export const providerCallbackRoutes = new Elysia({ name: "routes.provider-callbacks" }).use(accessPlugin)
  .post(
    "/webhooks/twilio/:channel_id",
    async ({ params, body: _body, request, headers }) => {
      const outcome = await twilioStatusCallback({
        channelId: params.channel_id,
        signedUrl: signedUrlOf(request.url),
        form: rawFormOf(request),
        signature: headers["x-twilio-signature"] ?? null,
      });
      return { data: outcome };
    },
    {
      access: "public",
      // the global body parser (plugins/errors.ts) reads the form; this names it for the OpenAPI document
      parse: ["application/x-www-form-urlencoded"],
      params: CallbackChannelParams,
      body: TwilioStatusCallbackBody,
      response: { 200: CallbackOutcomeBody, ...errors },
      detail: {
        summary: "Twilio status callback (X-Twilio-Signature); set as StatusCallback on every message NMS sends", description: "Twilio POSTs an SMS or WhatsApp message's status changes here; the signature is checked with the channel's auth token and the status moves its notification.",
        tags: ["provider-callbacks"],
      },
    },
  )
  .post(
    "/webhooks/sendgrid/:channel_id",
    async ({ params, body, request, headers }) => {
      const outcome = await sendgridEventWebhook({
        channelId: params.channel_id,
        rawBody: (request as { __rawBody?: string }).__rawBody ?? "",
        body,
        signature: headers["x-twilio-email-event-webhook-signature"] ?? null,
        timestamp: headers["x-twilio-email-event-webhook-timestamp"] ?? null,
      });
      return { data: outcome };
    },
    {
      access: "public",
      // the global JSON parser (plugins/errors.ts) reads it and keeps the raw body; this names the
      // type for the OpenAPI document, which lists no content type for a function parser alone
      parse: ["application/json"],
      params: CallbackChannelParams,
      body: SendgridEventBatch,
      response: { 200: CallbackOutcomeBody, ...errors },
      detail: {
        summary: "SendGrid signed Event Webhook (ECDSA, X-Twilio-Email-Event-Webhook-Signature and -Timestamp)", description: "SendGrid POSTs batches of email events (delivered, bounce, open, click ...); the signature is checked with the channel's verification key and each event moves its notification.",
        tags: ["provider-callbacks"],
      },
    },
  )
  .post(
    "/webhooks/mailgun/:channel_id",
    // the event is read from the raw body: the schema names the fields the route needs, and Elysia
    // would drop the rest (reason, ip, delivery-status ...) from the parsed one
    async ({ params, request }) => ({ data: await mailgunWebhook({ channelId: params.channel_id, rawBody: (request as { __rawBody?: string }).__rawBody ?? "" }) }),
    {
      access: "public",
      parse: ["application/json"],
      params: CallbackChannelParams,
      body: MailgunWebhookBody,
      response: { 200: CallbackOutcomeBody, ...errors },
      detail: {
        summary: "Mailgun webhook (HMAC-SHA256 of signature.timestamp + signature.token under the webhook signing key)", description: "Mailgun POSTs an email's events here (delivered, failed, opened, clicked ...); each event with a valid signature moves its notification.",
        tags: ["provider-callbacks"],
      },
    },
  )
  .post(
    "/webhooks/postmark/:channel_id",
    async ({ params, request, headers }) => ({
      data: await postmarkWebhook({
        channelId: params.channel_id,
        rawBody: (request as { __rawBody?: string }).__rawBody ?? "",
        authorization: headers.authorization ?? null,
      }),
    }),
    {
      access: "public",
      parse: ["application/json"],
      params: CallbackChannelParams,
      body: PostmarkWebhookBody,
      response: { 200: CallbackOutcomeBody, ...errors },
      detail: {
        summary: "Postmark webhook (basic auth: the webhook URL carries the channel's webhook_username and webhook_password)", description: "Postmark POSTs an email's delivery, bounce, open and click events here; each moves its notification.",
        tags: ["provider-callbacks"],
      },
    },
  )
  .post(
    "/webhooks/resend/:channel_id",
    async ({ params, request, headers }) => ({
      data: await resendWebhook({
        channelId: params.channel_id,
        rawBody: (request as { __rawBody?: string }).__rawBody ?? "",
        id: headers["svix-id"] ?? null,
        timestamp: headers["svix-timestamp"] ?? null,
        signature: headers["svix-signature"] ?? null,
      }),
    }),
    {
      access: "public",
      parse: ["application/json"],
      params: CallbackChannelParams,
      body: ResendWebhookBody,
      response: { 200: CallbackOutcomeBody, ...errors },
      detail: {
        summary: "Resend webhook (Svix signature: svix-id, svix-timestamp, svix-signature under the channel's webhook_secret)", description: "Resend POSTs an email's events here; each event with a valid signature moves its notification.",
        tags: ["provider-callbacks"],
      },
    },
  )
  .post(
    "/webhooks/vonage/:channel_id",
    async ({ params, request, headers }) => ({
      data: await vonageStatusWebhook({
        channelId: params.channel_id,
        rawBody: (request as { __rawBody?: string }).__rawBody ?? "",
        authorization: headers.authorization ?? null,
      }),
    }),
    {
      access: "public",
      parse: ["application/json"],
      params: CallbackChannelParams,
      body: VonageStatusBody,
      response: { 200: CallbackOutcomeBody, ...errors },
      detail: {
        summary: "Vonage Messages API status webhook (Bearer JWT, HS256 under the signature secret, payload_hash of the body); set as webhook_url on every message NMS sends", description: "Vonage POSTs a message's status changes here; a request with a valid token moves its notification.",
        tags: ["provider-callbacks"],
      },
    },
  );
