// Subscriber-scoped routes open to publishable keys (access rules subscriber-read / -write): the in-app
// inbox (list, read, read-all, unread count, Server-Sent Events stream) and the subscriber's preferences.
import { Elysia } from "elysia";
import { sql, type Scope } from "../../store/db";
import { findSubscriber, type SubscriberRow } from "../../store/subscribers";
import { listInboxItems, unreadCount } from "../../store/inbox";
import { serializeInboxItem } from "../../domain/inbox/item";
import { listPreferences, upsertPreferences } from "../../store/preferences";
import { assertRequiredStayOn, effectivePreferences } from "../../domain/preferences/categories";
import { recordPreferenceChange } from "../../domain/preferences/center";
import { inboxEventsSince, readAllInboxItems, readInboxItem, subscribeInbox } from "../../domain/inbox/inbox";
import type { EventRecord } from "../../domain/events/outbox";
import { forbidden, validationFailed } from "../../basics/errors";
import { logger } from "../../basics/log";
import { accessPlugin } from "../plugins/access";
import { scopeOf, type AuthContext } from "../plugins/auth";
import { offsetPage, subscriberNotFound } from "./subscribers";
import { BODY_ERRORS, errors, KEY_ERRORS } from "../route-docs";
import {
  InboxItemParams,
  InboxStream,
  InboxItemResponse,
  InboxListQuery,
  InboxListResponse,
  InboxParams,
  PreferencesBody,
  EffectivePreferencesResponse,
  type CategoryStateRecord,
  type PreferenceRecord,
  PreferencesResponse,
  ReadAllResponse,
  UnreadCountResponse,
} from "../../schemas/inbox";

const TAG = { tags: ["inbox"] };

/** Heartbeat period of the stream; tests shorten it. */
export const inboxStreamSettings = { heartbeatMs: 15_000, retryMs: 3_000 };

// Open streams of this process, so a graceful stop can end them (clients reconnect to another
// process with Last-Event-ID); otherwise the server would wait for them forever.
const openStreams = new Set<() => void>();

/** Ends every open inbox stream of this process; returns how many were open. */
export function closeInboxStreams(): number {
  const all = [...openStreams];
  for (const close of all) close();
  return all.length;
}


/**
 * The live subscriber named by :id (id or external_id). A publishable key reaches only the
 * subscriber of its X-Subscriber-Id (403 otherwise), whatever the path names.
 */
async function subscriberFor(auth: AuthContext, idOrExternalId: string): Promise<SubscriberRow> {
  const sub = await findSubscriber(scopeOf(auth), idOrExternalId);
  if (auth.keyType === "publishable") {
    if (!auth.subscriberExternalId || (sub && sub.external_id !== auth.subscriberExternalId)) {
      throw forbidden("insufficient_permissions", "A publishable key may only reach the subscriber named by X-Subscriber-Id");
    }
    if (!sub && idOrExternalId !== auth.subscriberExternalId) {
      throw forbidden("insufficient_permissions", "A publishable key may only reach the subscriber named by X-Subscriber-Id");
    }
  }
  if (!sub) throw subscriberNotFound();
  return sub;
}

function parseBool(v: string | undefined, field: string): boolean {
  if (v === undefined || v === "" || v === "false" || v === "0") return false;
  if (v === "true" || v === "1") return true;
  throw validationFailed({ [field]: ["must be true or false"] });
}

function sseFrame(e: EventRecord): string {
  return `id: ${e.id}\nevent: ${e.type}\ndata: ${JSON.stringify({ id: e.id, type: e.type, created_at: e.created_at, data: e.data })}\n\n`;
}

/**
 * text/event-stream of this subscriber's inbox.* events from every API process (Redis
 * pub/sub), a comment heartbeat every 15 s, and Last-Event-ID resume: the live subscription
 * is opened first and buffered while the events after Last-Event-ID are replayed from the
 * events table, so nothing falls between replay and live.
 */
function openStream(request: Request, scope: Scope, sub: SubscriberRow): Response {
  const lastEventId = request.headers.get("last-event-id") ?? new URL(request.url).searchParams.get("last_event_id");
  const encoder = new TextEncoder();
  let cleanup = () => {};
  const stream = new ReadableStream<Uint8Array>({
    async start(controller) {
      let closed = false;
      const sent = new Set<string>();
      let buffer: EventRecord[] | null = [];
      const write = (text: string) => {
        if (closed) return;
        try {
          controller.enqueue(encoder.encode(text));
        } catch {
          cleanup();
        }
      };
      const deliver = (e: EventRecord) => {
        if (sent.has(e.id)) return;
        sent.add(e.id);
        if (sent.size > 10_000) sent.clear(); // only the replay/live overlap needs remembering
        write(sseFrame(e));
      };
      const unsubscribe = await subscribeInbox(scope, sub.id, (e) => (buffer ? buffer.push(e) : deliver(e)));
      const heartbeat = setInterval(() => write(`: heartbeat ${new Date().toISOString()}\n\n`), inboxStreamSettings.heartbeatMs);
      cleanup = () => {
        if (closed) return;
        closed = true;
        openStreams.delete(cleanup);
        clearInterval(heartbeat);
        unsubscribe();
        try {
          controller.close();
        } catch {
          /* already closed by the client */
        }
      };
      openStreams.add(cleanup);
      request.signal?.addEventListener("abort", () => cleanup());
      if (request.signal?.aborted) return cleanup(); // gone while we subscribed
      write(`retry: ${inboxStreamSettings.retryMs}\n: connected\n\n`);
      if (lastEventId) {
        try {
          for (const e of await inboxEventsSince(scope, sub.id, lastEventId)) deliver(e);
        } catch (err) {
          logger.warn({ err }, "inbox stream replay failed");
        }
      }
      const pending = buffer;
      buffer = null;
      for (const e of pending) deliver(e);
    },
    cancel() {
      cleanup();
    },
  });
  return new Response(stream, {
    status: 200,
    headers: {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache, no-transform",
      connection: "keep-alive",
      "x-accel-buffering": "no",
    },
  });
}

export const inboxRoutes = new Elysia({ name: "routes.inbox" })
  .use(accessPlugin)
  .get(
    "/v1/subscribers/:id/notifications",
    async ({ auth, params, query }) => {
      const sub = await subscriberFor(auth, params.id);
      const { limit, offset } = offsetPage(query);
      const unreadOnly = parseBool(query.unread_only, "unread_only");
      const { rows, total, unreadCount: unread } = await listInboxItems(scopeOf(auth), sub.id, { limit, offset, unreadOnly });
      return { data: rows.map(serializeInboxItem), meta: { total, limit, offset, unread_count: unread } };
    },
    {
      access: "subscriber-read",
      params: InboxParams,
      query: InboxListQuery,
      response: { 200: InboxListResponse, ...errors(KEY_ERRORS, 404, 422) },
      detail: { ...TAG, summary: "List the subscriber's in-app notifications, newest first", description: "The subscriber's inbox items with their read state. A publishable key may read only the subscriber its X-Subscriber-Id and X-Subscriber-Hash name." },
    },
  )
  .get(
    "/v1/subscribers/:id/notifications/unread-count",
    async ({ auth, params }) => {
      const sub = await subscriberFor(auth, params.id);
      return { data: { count: await unreadCount(scopeOf(auth), sub.id) } };
    },
    { access: "subscriber-read", params: InboxParams, response: { 200: UnreadCountResponse, ...errors(KEY_ERRORS, 404) }, detail: { ...TAG, summary: "Unread in-app count", description: "The number of the subscriber's inbox items not yet read, for a badge." } },
  )
  .get(
    "/v1/subscribers/:id/notifications/stream",
    async ({ auth, params, request }) => {
      const sub = await subscriberFor(auth, params.id);
      return openStream(request, scopeOf(auth), sub);
    },
    {
      access: "subscriber-read",
      params: InboxParams,
      response: { 200: InboxStream, ...errors(KEY_ERRORS, 404) },
      detail: {
        ...TAG,
        summary: "Server-Sent Events: inbox.notification.received and inbox.notification.read, live",
        description:
          "Each frame carries `id` (event id), `event` (type) and `data` (JSON {id, type, created_at, data}). A comment line every 15 s keeps the connection open. Send Last-Event-ID (or ?last_event_id=) to replay what was missed.",
      },
    },
  )
  .post(
    "/v1/subscribers/:id/notifications/read-all",
    async ({ auth, params }) => {
      const sub = await subscriberFor(auth, params.id);
      return { data: { updated: await readAllInboxItems(scopeOf(auth), sub) } };
    },
    {
      access: "subscriber-write",
      params: InboxParams,
      response: { 200: ReadAllResponse, ...errors(KEY_ERRORS, 404) },
      detail: { ...TAG, summary: "Mark all in-app notifications read", description: "Every unread item of the subscriber becomes read; live inbox streams receive inbox.notification.read." },
    },
  )
  .post(
    "/v1/subscribers/:id/notifications/:notif_id/read",
    async ({ auth, params }) => {
      const sub = await subscriberFor(auth, params.id);
      return { data: await readInboxItem(scopeOf(auth), sub, params.notif_id) };
    },
    {
      access: "subscriber-write",
      params: InboxItemParams,
      response: { 200: InboxItemResponse, ...errors(KEY_ERRORS, 404) },
      detail: { ...TAG, summary: "Mark one in-app notification read (item id or notification id)", description: "Live inbox streams of the subscriber receive inbox.notification.read." },
    },
  )
  .get(
    "/v1/subscribers/:id/preferences",
    async ({ auth, params }) => {
      const sub = await subscriberFor(auth, params.id);
      return { data: (await listPreferences(scopeOf(auth), sub.id)) as PreferenceRecord[] };
    },
    {
      access: "subscriber-read",
      params: InboxParams,
      response: { 200: PreferencesResponse, ...errors(KEY_ERRORS, 404) },
      detail: { tags: ["subscribers"], summary: "Get preferences", description: "The subscriber's opt-outs by category and channel. A notification to a channel the subscriber turned off for its category is not sent." },
    },
  )
  .get(
    "/v1/subscribers/:id/preferences/effective",
    async ({ auth, params }) => {
      const sub = await subscriberFor(auth, params.id);
      return { data: (await effectivePreferences(scopeOf(auth), sub.id)) as CategoryStateRecord[] };
    },
    {
      access: "subscriber-read",
      params: InboxParams,
      response: { 200: EffectivePreferencesResponse, ...errors(KEY_ERRORS, 404) },
      detail: {
        tags: ["subscribers"],
        summary: "The tenant's preference categories with this subscriber's effective switch per channel",
        description: "What <nms-preferences> and the hosted preference center show: required ones locked, else the subscriber's choice, else the category's default (docs/preferences.md).",
      },
    },
  )
  .put(
    "/v1/subscribers/:id/preferences",
    async ({ auth, params, body }) => {
      const scope = scopeOf(auth);
      const sub = await subscriberFor(auth, params.id);
      const data = await sql.begin(async (tx) => {
        await assertRequiredStayOn(scope, body.preferences, tx);
        await upsertPreferences(tx, scope, sub.id, body.preferences, "api");
        if (body.preferences.length) {
          await recordPreferenceChange(tx, scope, sub, body.preferences, "api", { actorType: auth.actorType, actorId: auth.actorId, ip: auth.ip, userAgent: auth.userAgent });
        }
        return (await listPreferences(scope, sub.id, tx)) as PreferenceRecord[];
      });
      return { data };
    },
    {
      access: "subscriber-write",
      params: InboxParams,
      body: PreferencesBody,
      response: { 200: PreferencesResponse, ...errors(KEY_ERRORS, BODY_ERRORS, 404) },
      detail: {
        tags: ["subscribers"],
        summary: "Upsert preferences by (category, channel)",
        description:
          'category "all" switches a channel off for every category. Returns every stored preference. ' +
          "A required preference category (/v1/preference-categories) cannot be turned off (422).",
      },
    },
  );
