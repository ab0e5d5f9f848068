// /webhooks/whatsapp (DESIGN.md 7): Meta's verification challenge (GET) and signed status
// callbacks (POST) that move notifications found by provider message id. No API key: the signature is the auth.
import { Elysia, t } from "elysia";
import { markFromProvider } from "../../domain/notifications";
import { verifyWhatsappSignature } from "../../providers/whatsapp/whatsapp-cloud";
import { loadChannelConfig } from "../../store/channels";
import { sql } from "../../store/db";
import { AppError } from "../../basics/errors";
import { errors } from "../route-docs";

const VerifyQuery = t.Object({
  "hub.mode": t.Optional(t.String({ description: "subscribe" })),
  "hub.verify_token": t.Optional(t.String({ description: "the channel's settings.verify_token" })),
  "hub.challenge": t.Optional(t.String({ description: "echoed back when the token matches" })),
});

/** Meta's notification envelope; only entry[].changes[].value.{metadata, statuses} is read. */
const StatusCallback = t.Object(
  { object: t.Optional(t.String()), entry: t.Optional(t.Array(t.Unknown())) },
  {
    additionalProperties: true,
    examples: [
      {
        object: "whatsapp_business_account",
        entry: [
          {
            id: "102290129340398",
            changes: [
              {
                field: "messages",
                value: {
                  messaging_product: "whatsapp",
                  metadata: { display_phone_number: "15550783881", phone_number_id: "106540352242922" },
                  statuses: [{ id: "wamid.HBgLMTU1NTA3ODM4ODEVAgARGBI5QTNDQTVCM0Q0Q0Q2RTY3RTcA", status: "delivered", timestamp: "1754049601", recipient_id: "5511912345678" }],
                },
              },
            ],
          },
        ],
      },
    ],
  },
);

interface WhatsappStatus {
  id?: string;
  status?: string;
  timestamp?: string;
  recipient_id?: string;
  errors?: { code?: number; title?: string; message?: string }[];
}

/** The (tenant, environment) pairs whose whatsapp_cloud channel uses this phone number id. */
async function channelsForPhone(phoneNumberId: string) {
  return await sql<{ tenant_id: string; environment: string }[]>`
    select tenant_id, environment from channels
    where channel = 'whatsapp' and provider = 'whatsapp_cloud' and settings ->> 'phone_number_id' = ${phoneNumberId}`;
}

function statusesOf(body: any): { phoneNumberId: string; statuses: WhatsappStatus[] }[] {
  const out: { phoneNumberId: string; statuses: WhatsappStatus[] }[] = [];
  for (const entry of Array.isArray(body?.entry) ? body.entry : []) {
    for (const change of Array.isArray(entry?.changes) ? entry.changes : []) {
      const value = change?.value;
      const phoneNumberId = value?.metadata?.phone_number_id;
      if (typeof phoneNumberId !== "string") continue;
      out.push({ phoneNumberId, statuses: Array.isArray(value?.statuses) ? value.statuses : [] });
    }
  }
  return out;
}

const invalidSignature = () => new AppError("invalid_signature", "X-Hub-Signature-256 does not match the body");

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
      query: VerifyQuery,
      response: {
        200: t.String({ description: "hub.challenge, as text/plain", examples: ["1158201444"] }),
        ...errors(403, 422),
      },
      detail: { summary: "WhatsApp Cloud API webhook verification (echoes hub.challenge)", tags: ["public"], security: [] },
    },
  )
  .post(
    "/webhooks/whatsapp",
    async ({ request, body, headers }) => {
      const raw: string = (request as any).__rawBody ?? "";
      const signature = headers["x-hub-signature-256"];
      if (!raw || !signature) throw invalidSignature();
      const groups = statusesOf(body);
      if (groups.length === 0) throw invalidSignature(); // nothing names a tenant whose secret could verify it
      // Every phone number named in the body must belong to a tenant whose app secret signed it.
      const verified = new Map<string, { tenant_id: string; environment: string }[]>();
      for (const phone of new Set(groups.map((g) => g.phoneNumberId))) {
        const owners = [];
        for (const ch of await channelsForPhone(phone)) {
          const cfg = await loadChannelConfig(ch.tenant_id, ch.environment as any, "whatsapp");
          const secret = cfg?.credentials?.app_secret;
          if (typeof secret === "string" && verifyWhatsappSignature(raw, signature, secret)) owners.push(ch);
        }
        if (owners.length === 0) throw invalidSignature();
        verified.set(phone, owners);
      }
      let moved = 0;
      for (const g of groups) {
        for (const s of g.statuses) {
          if (typeof s?.id !== "string" || typeof s.status !== "string") continue;
          const at = s.timestamp && /^\d+$/.test(s.timestamp) ? new Date(Number(s.timestamp) * 1000) : new Date();
          const err = s.errors?.[0];
          for (const owner of verified.get(g.phoneNumberId)!) {
            const done = await markFromProvider({
              tenantId: owner.tenant_id,
              environment: owner.environment,
              providerMessageId: s.id,
              status: s.status,
              at,
              error: err ? { code: `whatsapp_${err.code ?? "error"}`, message: err.message ?? err.title ?? "failed" } : null,
            });
            if (done) moved++;
          }
        }
      }
      return { received: true, updated: moved };
    },
    {
      body: StatusCallback,
      response: {
        200: t.Object(
          { received: t.Boolean(), updated: t.Integer({ description: "notifications whose status moved" }) },
          { examples: [{ received: true, updated: 1 }] },
        ),
        ...errors(400, 401, 413, 422),
      },
      detail: { summary: "WhatsApp Cloud API status callbacks (X-Hub-Signature-256)", tags: ["public"], security: [] },
    },
  );
