// /v1/notifications (SPEC "Notifications"): create (202 before delivery), cursor-paged list,
// detail with attempts, and the attempts list. Another tenant's or environment's id is 404.
import { Elysia } from "elysia";
import { acceptNotification } from "../../domain/notifications/accept";
import {
  AcceptedNotificationResponse,
  AttemptListResponse,
  CreateNotificationBody,
  ListNotificationsQuery,
  NotificationDetailResponse,
  NotificationIdParams,
  NotificationListResponse,
} from "../../schemas/notifications";
import { isUuid } from "../../store/ids";
import { getNotification, listAttempts } from "../../store/notifications";
import { LOCALE_MESSAGE, normalizeLocale } from "../../domain/templates/locale";
import { readFeed } from "../../domain/notifications/feed";
import { toAttempt, toDetail, toListItem } from "../responses/notifications";
import { notFound, validationFailed } from "../../basics/errors";
import { decodeCursor, pageOf } from "../../store/cursor";
import { parseLimit } from "../pagination";
import { readOnReplica } from "../plugins/read-routing";
import { accessPlugin } from "../plugins/access";
import { BODY_ERRORS, errors, KEY_ERRORS } from "../route-docs";

const notificationNotFound = () => notFound("notification_not_found", "Notification not found");

export const notificationRoutes = new Elysia({ name: "routes.notifications" })
  .use(accessPlugin)
  .post(
    "/v1/notifications",
    async ({ auth, body, set }) => {
      const recipientField = body.to !== undefined ? "to" : "recipient";
      const recipient = body.to ?? body.recipient;
      if (recipient === undefined) throw validationFailed({ to: ["is required (or recipient)"] });
      const templateField = body.template !== undefined ? "template" : "template_id";
      const data = body.data ?? body.payload;
      const locale = body.locale === undefined ? null : normalizeLocale(body.locale);
      if (body.locale !== undefined && !locale) throw validationFailed({ locale: [LOCALE_MESSAGE] });
      const n = await acceptNotification({
        tenantId: auth.tenantId,
        environment: auth.environment,
        channel: body.channel,
        recipient,
        recipientField,
        template: body.template ?? body.template_id ?? null,
        templateField,
        data: data ?? {},
        metadata: body.metadata ?? {},
        category: body.category ?? null,
        critical: body.critical === true,
        priority: body.priority ?? "normal",
        locale,
      });
      set.status = 202;
      return { data: { id: n.id, channel: n.channel, recipient: n.recipient, status: n.status, created_at: n.created_at } };
    },
    {
      access: "secret-write",
      body: CreateNotificationBody,
      response: { 202: AcceptedNotificationResponse, ...errors(KEY_ERRORS, BODY_ERRORS, 404, 409) },
      detail: { summary: "Send a notification (queued; 202 before delivery)", description: "Validates the recipient for the channel, the template and the channel's configuration, stores the notification as pending and queues it; delivery happens afterwards, with retries. Follow it with GET /v1/notifications/{id} or the notification.* webhooks.", tags: ["notifications"] },
    },
  )
  .get(
    "/v1/notifications",
    async ({ auth, query }) => {
      const limit = parseLimit(query.limit);
      const cursor = decodeCursor(query.cursor);
      if (cursor && !isUuid(cursor.id)) throw validationFailed({ cursor: ["is not a valid cursor"] });
      const rows = await readOnReplica(auth, () => readFeed({ tenantId: auth.tenantId, environment: auth.environment }, query, { limit, cursor }));
      const { page, meta } = pageOf(rows, limit, (r) => ({ t: r.created_at.toISOString(), id: r.id }));
      return { data: page.map(toListItem), meta };
    },
    {
      access: "secret-read",
      query: ListNotificationsQuery,
      response: { 200: NotificationListResponse, ...errors(KEY_ERRORS, 422) },
      detail: {
        summary: "List and search notifications (the activity feed), newest first",
        description:
          "Filters combine: recipient (an address), subscriber (external_id or id: all their notifications on every channel), template, " +
          "workflow (slug), status, channel, created_after and created_before (ISO 8601). Cursor-paged: pass meta.cursor back as cursor " +
          "with the same filters. Each filter is served by an index (docs/notifications.md shows the plans).",
        tags: ["notifications"],
      },
    },
  )
  .get(
    "/v1/notifications/:id",
    async ({ auth, params }) => {
      if (!isUuid(params.id)) throw notificationNotFound();
      // the replica when it is current enough for this caller (http/plugins/read-routing.ts)
      const found = await readOnReplica(auth, async () => {
        const n = await getNotification(auth.tenantId, auth.environment, params.id);
        return n && { n, attempts: await listAttempts(n.id) };
      });
      if (!found) throw notificationNotFound();
      return { data: toDetail(found.n, found.attempts) };
    },
    {
      access: "secret-read",
      params: NotificationIdParams,
      response: { 200: NotificationDetailResponse, ...errors(KEY_ERRORS, 404) },
      detail: { summary: "A notification with its delivery attempts and the content it sent", description: "The status (pending, sent, delivered, failed ...), the provider's message id, the rendered content and every attempt with the provider's answer.", tags: ["notifications"] },
    },
  )
  .get(
    // SPEC writes :notification_id; the router needs one parameter name per position, so it is :id here.
    "/v1/notifications/:id/attempts",
    async ({ auth, params }) => {
      if (!isUuid(params.id)) throw notificationNotFound();
      const attempts = await readOnReplica(auth, async () => {
        const n = await getNotification(auth.tenantId, auth.environment, params.id);
        return n && (await listAttempts(n.id));
      });
      if (!attempts) throw notificationNotFound();
      return { data: attempts.map(toAttempt) };
    },
    {
      access: "secret-read",
      params: NotificationIdParams,
      response: { 200: AttemptListResponse, ...errors(KEY_ERRORS, 404) },
      detail: { summary: "Delivery attempts, ordered by attempt_number", description: "One entry per call to the provider: its outcome, the provider's answer and timing. A retryable failure is followed by another attempt (up to 5, backing off).", tags: ["notifications"] },
    },
  );
