// /v1/webhooks (SPEC "Webhooks", DESIGN.md 6): endpoints, their deliveries, the test attempt, and
// retry and replay. Secret keys only; the signing secret leaves the service in the creation answer only.
import { Elysia, t } from "elysia";
import { validationFailed } from "../../basics/errors";
import {
  CreateWebhookBody,
  DeliveryListResponse,
  DeliveryParams,
  DeliveryResponse,
  ListDeliveriesQuery,
  ReplayResultResponse,
  ReplayWebhookBody,
  TestResultResponse,
  TestWebhookBody,
  UpdateWebhookBody,
  WebhookCreatedResponse,
  WebhookListResponse,
  WebhookParams,
  WebhookResponse,
} from "../../schemas/webhooks";
import { decodeCursor, pageOf } from "../../store/cursor";
import { isUuid } from "../../store/ids";
import { listDeliveries } from "../../store/webhook-deliveries";
import { serializeDelivery } from "../responses/webhook-deliveries";
import { serializeWebhook } from "../responses/webhooks";
import { listWebhooks } from "../../store/webhooks";
import {
  createWebhook,
  deleteWebhook,
  findScopedWebhook,
  replayWebhook,
  retryDelivery,
  testWebhook,
  updateWebhook,
  type Caller,
} from "../../domain/webhooks/endpoints";
import { parseLimit } from "../pagination";
import { accessPlugin } from "../plugins/access";
import type { AuthContext } from "../plugins/auth";
import { BODY_ERRORS, errors, KEY_ERRORS, NoContent } from "../route-docs";

const TAGS = ["webhooks"];

function callerOf(auth: AuthContext): Caller {
  return { tenantId: auth.tenantId, environment: auth.environment, actorType: auth.actorType, actorId: auth.actorId, ip: auth.ip, userAgent: auth.userAgent };
}

export const webhookRoutes = new Elysia({ name: "routes.webhooks" })
  .use(accessPlugin)
  .post(
    "/v1/webhooks",
    async ({ auth, body, set }) => {
      const { row, secret } = await createWebhook(callerOf(auth), body);
      set.status = 201;
      return { data: { ...serializeWebhook(row), signing_secret: secret } };
    },
    {
      access: "secret-write",
      body: CreateWebhookBody,
      response: { 201: WebhookCreatedResponse, ...errors(KEY_ERRORS, BODY_ERRORS, 409) },
      detail: {
        summary: "Create a webhook (the signing secret is shown in this answer only; an 11th webhook of a tenant is refused with 422 webhook_limit_reached)", description: "The URL must not resolve to a loopback, private or link-local address unless the service runs with WEBHOOK_ALLOW_PRIVATE=true (for local receivers in development). Every event of the listed types is POSTed to it, signed (see the document's webhooks section).",
        tags: TAGS,
      },
    },
  )
  .get(
    "/v1/webhooks",
    async ({ auth }) => {
      const c = callerOf(auth);
      return { data: (await listWebhooks(c)).map(serializeWebhook) };
    },
    { access: "secret-read", response: { 200: WebhookListResponse, ...errors(KEY_ERRORS) }, detail: { summary: "List webhooks", description: "The tenant's webhooks with their events and whether they are active; signing secrets are not shown.", tags: TAGS } },
  )
  .get(
    "/v1/webhooks/:id",
    async ({ auth, params }) => ({ data: serializeWebhook(await findScopedWebhook(callerOf(auth), params.id)) }),
    {
      access: "secret-read",
      params: WebhookParams,
      response: { 200: WebhookResponse, ...errors(KEY_ERRORS, 404) },
      detail: { summary: "Get a webhook (disabled_reason says why the service deactivated it)", description: "A webhook whose deliveries kept failing is deactivated by the service; PUT active: true resumes it.", tags: TAGS },
    },
  )
  .put(
    "/v1/webhooks/:id",
    async ({ auth, params, body }) => ({ data: serializeWebhook(await updateWebhook(callerOf(auth), params.id, body)) }),
    {
      access: "secret-write",
      params: WebhookParams,
      body: UpdateWebhookBody,
      response: { 200: WebhookResponse, ...errors(KEY_ERRORS, BODY_ERRORS, 404) },
      detail: { summary: "Update any of url, events, active, description (active false stops deliveries, scheduled retries too)", description: "A new URL follows the same rules as at creation; the signing secret stays.", tags: TAGS },
    },
  )
  .delete(
    "/v1/webhooks/:id",
    async ({ auth, params, set }) => {
      await deleteWebhook(callerOf(auth), params.id);
      set.status = 204;
    },
    {
      access: "secret-write",
      params: WebhookParams,
      response: { 204: NoContent, ...errors(KEY_ERRORS, 404) },
      detail: { summary: "Delete a webhook, its delivery records and its queued deliveries (204)", description: "Nothing more is sent to it, retries included.", tags: TAGS },
    },
  )
  .post(
    "/v1/webhooks/:id/test",
    async ({ auth, params, body }) => {
      const result = await testWebhook(callerOf(auth), params.id, { event: body?.event, overrideUrl: body?.override_url });
      return { data: result };
    },
    {
      access: "secret-write",
      params: WebhookParams,
      body: t.Optional(TestWebhookBody),
      response: { 200: TestResultResponse, ...errors(KEY_ERRORS, BODY_ERRORS, 404) },
      detail: {
        summary: "Send one signed notification.test event now and answer with the outcome (a failing receiver is success: false, not an error)", description: "Use it to check a receiver's URL and its signature check. override_url sends this one test elsewhere.",
        tags: TAGS,
      },
    },
  )
  .get(
    "/v1/webhooks/:id/deliveries",
    async ({ auth, params, query }) => {
      const w = await findScopedWebhook(callerOf(auth), params.id);
      const limit = parseLimit(query.limit);
      const cursor = decodeCursor(query.cursor);
      if (query.event_id !== undefined && !isUuid(query.event_id)) throw validationFailed({ event_id: ["must be an event id (UUID)"] });
      const rows = await listDeliveries(w.id, { limit, cursor, status: query.status, eventId: query.event_id });
      const { page, meta } = pageOf(rows, limit, (r) => ({ t: r.created_at.toISOString(), id: r.id }));
      return { data: page.map(serializeDelivery), meta };
    },
    {
      access: "secret-read",
      params: WebhookParams,
      query: ListDeliveriesQuery,
      response: { 200: DeliveryListResponse, ...errors(KEY_ERRORS, 404, 422) },
      detail: { summary: "Delivery attempts, newest first (limit default 20, max 100; cursor paged)", description: "Each attempt with the event, the receiver's status, body excerpt and duration.", tags: TAGS },
    },
  )
  .post(
    "/v1/webhooks/:id/deliveries/:delivery_id/retry",
    async ({ auth, params, set }) => {
      const row = await retryDelivery(callerOf(auth), params.id, params.delivery_id);
      set.status = 202;
      return { data: serializeDelivery(row) };
    },
    {
      access: "secret-write",
      params: DeliveryParams,
      response: { 202: DeliveryResponse, ...errors(KEY_ERRORS, 404, 409) },
      detail: {
        summary: "Send this delivery's event once more, now (answers the pending delivery; it replaces the event's remaining automatic retries)", description: "A delivery that cannot be retried is 409 delivery_not_retryable.",
        tags: TAGS,
      },
    },
  )
  .post(
    "/v1/webhooks/:id/replay",
    async ({ auth, params, body, set }) => {
      const result = await replayWebhook(callerOf(auth), params.id, body);
      set.status = 202;
      return { data: result };
    },
    {
      access: "secret-write",
      params: WebhookParams,
      body: ReplayWebhookBody,
      response: { 202: ReplayResultResponse, ...errors(KEY_ERRORS, BODY_ERRORS, 404, 409) },
      detail: { summary: "Send once more every event of a window this webhook has not acknowledged (at most 10,000 per call)", description: "For a receiver that was down: events it never answered 2xx for are queued again.", tags: TAGS },
    },
  );

