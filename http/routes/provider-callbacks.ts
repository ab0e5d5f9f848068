// Public provider callbacks per channel configuration: POST /webhooks/twilio/:channel_id (status
// callbacks), /webhooks/sendgrid|mailgun|.../:channel_id (webhooks). No API key: the provider's signature is the auth.
import { Elysia, type TSchema } from "elysia";
import { mailgunWebhook, postmarkWebhook, resendWebhook, sendgridEventWebhook, sesSnsWebhook, twilioStatusCallback, vonageStatusWebhook } from "../../domain/receipts/provider-callbacks";
import { signedUrlOf } from "../../domain/delivery/receipt-links";
import { ErrorBody } from "../../schemas/errors";
import {
  CallbackChannelParams,
  CallbackOutcomeBody,
  MailgunWebhookBody,
  PostmarkWebhookBody,
  ResendWebhookBody,
  SnsMessageBody,
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

/** The body exactly as the provider sent it (the global body parser keeps it): signatures cover these bytes. */
const rawBodyOf = (request: Request): string => (request as { __rawBody?: string }).__rawBody ?? "";

// The signature covers the exact parameters Twilio sent: they are read again from the raw form
// text (a repeated name keeps every value), beside the parsed body the schema checks.
const rawFormOf = (request: Request) => new URLSearchParams(rawBodyOf(request));

/** The options every JSON webhook of a provider shares: public (its signature is the auth), one channel, the outcome. */
function jsonWebhook<B extends TSchema>(body: B, summary: string, description: string) {
  return {
    access: "public" as const,
    parse: ["application/json"] as ["application/json"],
    params: CallbackChannelParams,
    body,
    response: { 200: CallbackOutcomeBody, ...errors },
    detail: { summary, description, tags: ["provider-callbacks"] },
  };
}

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
        rawBody: rawBodyOf(request),
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
      parse: ["application/json"] as ["application/json"],
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
    async ({ params, request }) => ({ data: await mailgunWebhook({ channelId: params.channel_id, rawBody: rawBodyOf(request) }) }),
    jsonWebhook(
      MailgunWebhookBody,
      "Mailgun webhook (HMAC-SHA256 of signature.timestamp + signature.token under the webhook signing key)",
      "Mailgun POSTs an email's events here (delivered, failed, opened, clicked ...); each event with a valid signature moves its notification.",
    ),
  )
  .post(
    "/webhooks/postmark/:channel_id",
    async ({ params, request, headers }) => ({
      data: await postmarkWebhook({
        channelId: params.channel_id,
        rawBody: rawBodyOf(request),
        authorization: headers.authorization ?? null,
      }),
    }),
    jsonWebhook(
      PostmarkWebhookBody,
      "Postmark webhook (basic auth: the webhook URL carries the channel's webhook_username and webhook_password)",
      "Postmark POSTs an email's delivery, bounce, open and click events here; each moves its notification.",
    ),
  )
  .post(
    "/webhooks/resend/:channel_id",
    async ({ params, request, headers }) => ({
      data: await resendWebhook({
        channelId: params.channel_id,
        rawBody: rawBodyOf(request),
        id: headers["svix-id"] ?? null,
        timestamp: headers["svix-timestamp"] ?? null,
        signature: headers["svix-signature"] ?? null,
      }),
    }),
    jsonWebhook(
      ResendWebhookBody,
      "Resend webhook (Svix signature: svix-id, svix-timestamp, svix-signature under the channel's webhook_secret)",
      "Resend POSTs an email's events here; each event with a valid signature moves its notification.",
    ),
  )
  .post(
    "/webhooks/vonage/:channel_id",
    async ({ params, request, headers }) => ({
      data: await vonageStatusWebhook({
        channelId: params.channel_id,
        rawBody: rawBodyOf(request),
        authorization: headers.authorization ?? null,
      }),
    }),
    jsonWebhook(
      VonageStatusBody,
      "Vonage Messages API status webhook (Bearer JWT, HS256 under the signature secret, payload_hash of the body); set as webhook_url on every message NMS sends",
      "Vonage POSTs a message's status changes here; a request with a valid token moves its notification.",
    ),
  )
  .post(
    "/webhooks/ses/:channel_id",
    // SNS posts its JSON as text/plain: the parser hands the text over as it is
    async ({ params, body, request }) => ({
      data: await sesSnsWebhook({ channelId: params.channel_id, rawBody: typeof body === "string" ? body : rawBodyOf(request) }),
    }),
    {
      access: "public",
      parse: ["text/plain"],
      params: CallbackChannelParams,
      body: SnsMessageBody,
      response: { 200: CallbackOutcomeBody, 502: ErrorBody, ...errors },
      detail: {
        summary: "SES events through an Amazon SNS HTTPS subscription (the SNS message signature, verified under SNS's signing certificate)",
        description: "Amazon SNS POSTs the SES configuration set's events here (Delivery, Bounce, Complaint, Open, Click ...); a SubscriptionConfirmation is confirmed by the service itself, and each signed Notification moves its notification. 502 when the signing certificate cannot be fetched, so SNS retries.",
        tags: ["provider-callbacks"],
      },
    },
  );
