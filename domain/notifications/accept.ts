// Accepting a notification (SPEC "Notifications", DESIGN.md 6): validation, insert and enqueue,
// shared by POST /v1/notifications, the channel test route and workflows. Inserts are micro-batched.
import { recordNotificationStatus } from "../../basics/metrics";
import { config } from "../../config";
import { AppError, validationFailed } from "../../basics/errors";
import { logger } from "../../basics/log";
import { byLane, senderMessage } from "../delivery/channel-sender-mail";
import { CHANNELS, type Channel } from "../../schemas/channels";
import { counterCtes, type CounterDelta } from "../../store/analytics";
import { isBlockedEmail } from "../../store/blocked-domains";
import { sql, type Tx } from "../../store/db";
import { newId } from "../../store/ids";
import { getRuntime } from "../../store/runtime-handle";
import { MicroBatcher } from "../../store/micro-batcher";
import {
  findByIdempotencyKey,
  notificationsInsert,
  type NewNotification,
  type NotificationRow,
} from "../../store/notifications";
import { eventNotification } from "../events/notification-object";
import { findSubscriber, findSubscriberOwningBatched } from "../../store/subscribers";
import { assertTemplateUsable, findTemplateForSend } from "../../store/templates";
import { iso } from "../../store/time";
import { prepareEvents } from "../events/outbox";
import { resolveDelivery, type StoredContent } from "../delivery/target";
import { checkRecipient } from "./recipients";
import { renderTemplate } from "../templates/render";
import { chooseLocale, type LocalizedSource } from "../templates/locale";
import { preferenceLink, TEMPLATE_LINK_TTL_S } from "../preferences/link-token";
import { withinQuota } from "../billing/quota";

export interface AcceptInput {
  tenantId: string;
  environment: string;
  channel: string;
  recipient: string;
  /** which request field carried the recipient (`to` or `recipient`), for error details */
  recipientField?: string;
  template?: string | null;
  templateField?: string;
  data?: Record<string, unknown> | null;
  metadata?: Record<string, unknown> | null;
  category?: string | null;
  /** the notification's or trigger's locale: used when the subscriber has none (domain/templates/locale.ts) */
  locale?: string | null;
  /** a deterministic key (e.g. wfrun:<run>:step:<i>): a second accept returns the first notification */
  idempotencyKey?: string | null;
  /** workflow steps: the run waiting on its outcome (its status moves wake the run) */
  workflowRunId?: string | null;
  /** workflow steps: the subscriber the address was taken from, so that subscriber's preferences and erasure apply */
  subscriber?: { id: string; external_id: string; locale?: string | null } | null;
  /** quiet hours and frequency caps do not apply (domain/delivery-policy/) */
  critical?: boolean;
  /** workflow fallback steps: one template serves every channel of the list, rendered by that channel's conventions */
  templateForAnyChannel?: boolean;
  /** the sender's lane (docs/routing.md); normal when absent */
  priority?: "high" | "normal" | "low" | null;
}

export interface AcceptedNotification {
  id: string;
  channel: string;
  recipient: string;
  status: string;
  created_at: string;
  /** false when idempotencyKey matched an earlier notification */
  created: boolean;
}

// ---------------------------------------------------------------------------------------------

function str(v: unknown): string | undefined {
  return typeof v === "string" && v !== "" ? v : undefined;
}

/** Raw content without a template: `content` (sms, whatsapp), `title`/`body` (in_app, push), `subject`/`html_body`/`content` (email). */
function rawContent(channel: Channel, data: Record<string, unknown>, dataField: string): StoredContent {
  const missing = (fields: string[], msg: string) => {
    throw validationFailed(Object.fromEntries(fields.map((f) => [`${dataField}.${f}`, [msg]])), "A template or raw content is required");
  };
  switch (channel) {
    case "sms":
    case "whatsapp": {
      const content = str(data.content);
      if (!content) missing(["content"], "is required without a template");
      return { content };
    }
    case "in_app":
    case "push": {
      const title = str(data.title);
      const body = str(data.body);
      if (!title && !body) missing(["title", "body"], "title or body is required without a template");
      return { title, body };
    }
    case "email": {
      const subject = str(data.subject);
      const html = str(data.html_body) ?? str(data.html);
      const text = str(data.content) ?? str(data.text) ?? str(data.body);
      if (!subject) missing(["subject"], "is required without a template");
      if (!html && !text) missing(["html_body", "content"], "html_body or content is required without a template");
      return { subject, html, text };
    }
  }
}

function templateContent(channel: Channel, tpl: { name: string; channel: string; provider_template_id: string | null }, text: LocalizedSource, data: Record<string, unknown>, field: string): StoredContent {
  const r = renderTemplate({ content: text.content, variants: text.variants, channel: tpl.channel }, data);
  if (!r.valid) throw new AppError("template_render_failed", "The template could not be rendered", { [field]: r.errors });
  const p = r.rendered;
  const out: StoredContent = {};
  if (tpl.provider_template_id) out.providerTemplateId = tpl.provider_template_id;
  switch (channel) {
    case "email":
      out.subject = p.subject ?? tpl.name;
      out.text = p.text ?? p.body;
      if (p.html_body) out.html = p.html_body;
      break;
    case "sms":
    case "whatsapp":
      out.content = p.body;
      break;
    case "in_app":
    case "push":
      out.title = p.title ?? p.subject ?? tpl.name;
      out.body = p.body;
      break;
  }
  return out;
}

/**
 * `{{ preferences_url }}`: the subscriber's signed preference-center link (docs/preferences.md), in
 * the render scope only (never stored in data), made only when the text uses it and a payload did not give one.
 */
function withPreferencesUrl(
  text: LocalizedSource,
  data: Record<string, unknown>,
  scope: { tenantId: string; environment: string },
  subscriber: { id: string } | null,
): Record<string, unknown> {
  if (!subscriber || data.preferences_url !== undefined) return data;
  const uses = text.content.includes("preferences_url") || Object.values(text.variants ?? {}).some((v) => v.includes("preferences_url"));
  if (!uses) return data;
  const link = preferenceLink({ ...scope, subscriberId: subscriber.id }, TEMPLATE_LINK_TTL_S);
  return { ...data, preferences_url: link.url };
}

/**
 * Validates and stores one notification, then enqueues its delivery. Throws AppError (422/404)
 * for client mistakes. Resolves once the row is committed (and the send enqueued): 202 is honest.
 */
export async function acceptNotification(input: AcceptInput): Promise<AcceptedNotification> {
  const recipientField = input.recipientField ?? "to";
  const templateField = input.templateField ?? "template";
  if (!(CHANNELS as readonly string[]).includes(input.channel)) {
    throw validationFailed({ channel: [`must be one of ${CHANNELS.join(", ")}`] });
  }
  const channel = input.channel as Channel;
  const data = input.data ?? {};
  const metadata = input.metadata ?? {};
  const scope = { tenantId: input.tenantId, environment: input.environment };
  // The channel first: the provider it delivers through decides what a recipient may be, so a
  // channel without one answers channel_not_configured whatever the recipient looks like.
  const target = await resolveDelivery(input.tenantId, input.environment, channel);
  if (!target) {
    throw new AppError("channel_not_configured", `The ${channel} channel is not configured in production`);
  }
  const check = checkRecipient(channel, String(input.recipient ?? ""));
  if (!check.ok) throw validationFailed({ [recipientField]: [check.message] });
  const recipient = check.recipient;

  // Independent look-ups run together: they are most of this request's latency. The subscriber is
  // the one named (in_app) or the one who owns the address, so preferences and erasure apply to
  // an email or SMS sent to a subscriber's own address as to one sent by id.
  const [blocked, subscriber, template] = await Promise.all([
    channel === "email" ? isBlockedEmail(recipient) : Promise.resolve(false),
    channel === "in_app" ? findSubscriber(scope, recipient) : findSubscriberOwningBatched(scope, recipient),
    input.template ? findTemplateForSend(input.tenantId, input.environment, input.template) : Promise.resolve(null),
  ]);
  if (blocked) throw new AppError("email_domain_blocked", "The recipient's email domain is blocked", { [recipientField]: ["email domain is blocked"] });
  if (channel === "in_app" && !subscriber) {
    throw validationFailed({ [recipientField]: ["must be an existing subscriber id or external_id"] });
  }
  let content: StoredContent;
  let locale: string | null = null;
  if (template) {
    assertTemplateUsable(template, input.environment);
    if (template.channel !== channel && !input.templateForAnyChannel) {
      throw validationFailed({ [templateField]: [`is a ${template.channel} template, not ${channel}`] });
    }
    // the recipient's language: the subscriber's, else the request's, else the template's own
    const text = chooseLocale(template, template.translations, [subscriber ? subscriber.locale : input.subscriber?.locale, input.locale]);
    locale = text.locale;
    content = templateContent(channel, template, text, withPreferencesUrl(text, data, scope, subscriber ?? input.subscriber ?? null), templateField);
  } else {
    content = rawContent(channel, data, "data");
  }

  // A deterministic key is looked up only when its insert conflicts (below): workflow steps, its
  // callers, create it once per step, and a look-up first cost every step a round trip.
  const named = subscriber ?? input.subscriber ?? null;
  const linked = named ? { id: named.id, external_id: named.external_id } : null;
  const row: NewNotification = {
    id: newId(),
    tenantId: input.tenantId,
    environment: input.environment,
    channel,
    recipient,
    subscriberId: linked?.id ?? null,
    templateSlug: template?.slug ?? null,
    category: input.category ?? null,
    locale,
    data,
    metadata,
    critical: input.critical === true,
    content: content as Record<string, unknown>,
    idempotencyKey: input.idempotencyKey ?? null,
    createdAt: new Date(),
    workflowRunId: input.workflowRunId ?? null,
    priority: input.priority ?? "normal",
  };
  const created = await withinQuota(row, () => acceptBatcher.submit({ row, subscriber: linked }));
  if (created) recordNotificationStatus(channel, "pending");
  if (!created && input.idempotencyKey) {
    const existing = await findByIdempotencyKey(input.tenantId, input.environment, input.idempotencyKey);
    if (existing) return accepted(existing, false);
  }
  return {
    id: row.id,
    channel,
    recipient,
    status: "pending",
    created_at: row.createdAt.toISOString(),
    created: true,
  };
}

function accepted(r: NotificationRow, created: boolean): AcceptedNotification {
  return { id: r.id, channel: r.channel, recipient: r.recipient ?? "", status: r.status, created_at: iso(r.created_at)!, created };
}

// ---------------------------------------------------------------------------------------------
// The batched write: one transaction inserts every row of the batch, writes their
// notification.created events and bumps the rollups; then one pipeline XADDs their sends.
// A crash between COMMIT and XADD is repaired by the reconciler (pending with no message).

interface AcceptItem {
  row: NewNotification;
  subscriber: { id: string; external_id: string } | null;
}

function createdEvent(i: AcceptItem) {
  return {
    tenantId: i.row.tenantId,
    environment: i.row.environment,
    type: "notification.created",
    data: {
      notification: eventNotification(
        { id: i.row.id, status: "pending", channel: i.row.channel, recipient: i.row.recipient, template_slug: i.row.templateSlug, content: i.row.content },
        i.subscriber?.external_id,
      ),
      subscriber: i.subscriber,
    },
  };
}

function totalDelta(i: AcceptItem): CounterDelta {
  return { tenantId: i.row.tenantId, environment: i.row.environment, createdAt: i.row.createdAt, channel: i.row.channel, template: i.row.templateSlug, counter: "total" };
}

/**
 * One statement for the whole batch: the rows, their notification.created events and their
 * rollup counts. Rows whose idempotency key already exists are skipped by the INSERT, and only the
 * rows it inserted get an event and a count (both are filtered on the INSERT's `ins` output), so a
 * batch with keys (workflow steps) costs one round trip like any other.
 */
async function writeBatch(items: AcceptItem[]): Promise<boolean[]> {
  const only = { onlyIfInserted: { ids: items.map((i) => i.row.id) } };
  const ev = prepareEvents(sql, items.map(createdEvent), { ...only, onlyIfListened: true });
  const counts = counterCtes(sql, items.map(totalDelta), only);
  const rows = await sql<{ id: string }[]>`
    with ${notificationsInsert(sql, items.map((i) => i.row))},
      ev as (${ev.insert})${counts ? sql`, ${counts}` : sql``}
    select id from ins`;
  const inserted = new Set(rows.map((r) => r.id));
  return items.map((i) => inserted.has(i.row.id));
}

async function flushAccepts(items: AcceptItem[]): Promise<boolean[]> {
  const created = await writeBatch(items);
  // Answered once committed; the XADD follows without holding the requests (a lost one is the
  // reconciler's case, exactly like a crash between COMMIT and XADD).
  void enqueue(items.filter((_, k) => created[k] === true));
  return created;
}

async function enqueue(items: AcceptItem[]): Promise<void> {
  if (items.length === 0) return;
  try {
    const msgs = items.map((i) => senderMessage(i.row, 1));
    await Promise.all(byLane(msgs, (m) => m).map((lane) => getRuntime().sendMany(lane.address, lane.items)));
  } catch (err) {
    // Committed rows are safe: the reconciler re-enqueues pending notifications without a message.
    logger.error({ err, count: items.length }, "enqueue after commit failed; the reconciler will re-enqueue");
  }
}

// Requests of one process share batches: a few ms of waiting buys one commit for many rows.
// One bad row must not fail its neighbours: a failed batch is retried row by row.
const acceptBatcher = new MicroBatcher<AcceptItem, boolean>(flushAccepts, {
  maxSize: config.acceptBatch.size,
  maxWaitMs: config.acceptBatch.waitMs,
  busyWaitMs: () => config.acceptBatch.busyWaitMs,
  maxConcurrent: config.acceptBatch.concurrency,
  retryEachAlone: true,
  name: "accept",
});
