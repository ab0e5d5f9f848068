// Broadcasts (issue 22): a trigger to a topic. The request stores the broadcast and enqueues its
// fan-out; the broadcast actor pages the members, each page's runs and cursor in one transaction.
import { config } from "../../config";
import { logger } from "../../basics/log";
import { AppError, fieldErrors, notFound, validationFailed } from "../../basics/errors";
import { activeWorkflow } from "../../store/audiences";
import {
  audiencePage,
  cancelBroadcastRow,
  completeBroadcast,
  countAudience,
  getBroadcast,
  insertBroadcast,
  insertPage,
  lockBroadcast,
  staleFanOuts,
  touchBroadcasts,
  type BroadcastRow,
} from "../../store/broadcasts";
import { sql, type Scope } from "../../store/db";
import { newId } from "../../store/ids";
import { getRuntime } from "../../store/runtime-handle";
import { findTopic } from "../../store/topics";
import { prepareEvents } from "../events/outbox";
import { topicNotFound } from "../topics/topics";
import { workflowNotFound } from "../workflows/definitions";
import { workflowEvent } from "../workflows/engine";
import { triggerLocale, triggerLocaleProblem } from "../workflows/runs";
import { workflowRunAddress } from "../workflows/workflow-run-mail";
import { broadcastAddress, fanOutMessage, type BroadcastMessage } from "./broadcast-mail";

/** One message fans out pages for this long, then sends itself the rest (other broadcasts get their turn). */
const SLICE_MS = 1_000;

export const broadcastNotFound = () => notFound("broadcast_not_found", "Broadcast not found");

/** `to` of a trigger body naming a topic (`{"to":{"topic":"<key>"}}`), or null for a single recipient. */
export function topicTarget(body: Record<string, unknown>): string | null {
  const to = body.to;
  if (to === null || typeof to !== "object" || Array.isArray(to)) return null;
  const topic = (to as Record<string, unknown>).topic;
  if (typeof topic !== "string" || topic === "") throw validationFailed({ "to.topic": ["must be the key of a topic"] });
  for (const k of Object.keys(to)) if (k !== "topic") throw validationFailed({ [`to.${k}`]: ["is not a known field"] });
  return topic;
}

/** The trigger to a topic: the broadcast (pinned to the active version) stored, its fan-out enqueued. */
export async function startBroadcast(scope: Scope, slug: string, topicKey: string, body: Record<string, unknown>): Promise<BroadcastRow> {
  const data = body.data ?? body.payload ?? {};
  if (data === null || typeof data !== "object" || Array.isArray(data)) throw validationFailed({ [body.data !== undefined ? "data" : "payload"]: ["must be an object"] });
  if (body.recipient !== undefined) throw validationFailed({ recipient: ["must be absent when to names a topic"] });
  const localeProblem = fieldErrors();
  triggerLocaleProblem(body, "", localeProblem);
  if (Object.keys(localeProblem).length) throw validationFailed(localeProblem);
  const [workflow, topic] = await Promise.all([activeWorkflow(scope, slug), findTopic(scope, topicKey)]);
  if (!workflow) throw workflowNotFound();
  if (!topic) throw topicNotFound();
  const row = await insertBroadcast(sql, {
    id: newId(),
    tenant_id: scope.tenantId,
    environment: scope.environment,
    topic_id: topic.id,
    topic_key: topic.key,
    workflow_id: workflow.id,
    workflow_version: workflow.version,
    workflow_slug: workflow.slug,
    data: data as Record<string, unknown>,
    locale: triggerLocale(body),
  });
  // lost between COMMIT and XADD: the repair scan finds the broadcast untouched and enqueues it
  await getRuntime()
    .send(broadcastAddress, fanOutMessage(row.id))
    .catch((err) => logger.error({ err, broadcastId: row.id }, "broadcast stored but its fan-out not enqueued; the repair scan will"));
  return row;
}

/** Idempotency key of a broadcast's run for one member: a page read twice creates no second run. */
export const broadcastRunKey = (broadcastId: string, subscriberId: string) => `bcast:${broadcastId}:${subscriberId}`;

/** Members read ahead: the page after `after` (the cursor they were read from), read while the previous page was written. */
interface ReadAhead {
  after: string;
  members: Promise<{ id: string; external_id: string }[] | null>;
}

/** The next page read now on a connection of its own (null on failure: the page is read again in the transaction). */
function readAhead(b: BroadcastRow, after: string, pageSize: number): ReadAhead {
  return { after, members: audiencePage(sql, { ...b, cursor: after }, pageSize).catch(() => null) };
}

/**
 * One page: the broadcast locked, the members after its cursor (read ahead during the previous page
 * when it started from this very cursor, else read now), their runs (keyed: none twice) with their
 * workflow.triggered events and the cursor and count moved in ONE statement, in one transaction.
 * An empty page completes the broadcast with its broadcast.completed event. Returns the runs
 * inserted (not yet enqueued) and, when more may follow, the next page already being read.
 */
async function writePage(broadcastId: string, pageSize: number, ahead: ReadAhead | null, readNext: boolean): Promise<{ more: boolean; started: string[]; next: ReadAhead | null }> {
  return (await sql.begin(async (tx) => {
    const b = await lockBroadcast(tx, broadcastId);
    if (!b || b.status !== "fanning_out") return { more: false, started: [], next: null };
    const early = ahead && b.cursor === ahead.after ? await ahead.members : null;
    const members = early ?? (await audiencePage(tx, b, pageSize));
    if (members.length === 0) {
      const done = await completeBroadcast(tx, b.id);
      await prepareEvents(tx, [{ tenantId: b.tenant_id, environment: b.environment, type: "broadcast.completed", data: { broadcast: serializeBroadcast(done) } }]).insert;
      return { more: false, started: [], next: null };
    }
    const last = members[members.length - 1]!.id;
    // the page after this one, read while this one is written (a short page is the last one)
    const next = readNext && members.length === pageSize ? readAhead(b, last, pageSize) : null;
    const recipients = b.recipients === null ? await countAudience(tx, b) : null;
    const startedAt = new Date();
    const runIds = members.map(() => newId());
    const events = prepareEvents(
      tx,
      members.map((m, i) => workflowEvent(broadcastRunFacts(b, runIds[i]!, m.external_id), "workflow.triggered")),
      // like the accept path's notification.* events: read by webhooks alone (their fan-out and replay,
      // which never reaches before a webhook's creation), so a tenant without one stores none; at a
      // million members that is a million rows and two million index entries the fan-out does not write
      { onlyIfInserted: { ids: runIds }, onlyIfListened: true },
    );
    const page = { runIds, subscriberIds: members.map((m) => m.id), recipients: members.map((m) => m.external_id), startedAt };
    const started = await insertPage(tx, b, page, events.insert, recipients);
    return { more: true, started, next };
  })) as { more: boolean; started: string[]; next: ReadAhead | null };
}

/** What a workflow.triggered event says of a broadcast's run. */
const broadcastRunFacts = (b: BroadcastRow, id: string, recipient: string) => ({
  id,
  tenant_id: b.tenant_id,
  environment: b.environment,
  workflow_id: b.workflow_id,
  workflow_slug: b.workflow_slug,
  workflow_version: b.workflow_version,
  recipient,
  status: "running" as const,
});

/** The runs' first jobs, after their commit (lost here, by a crash or Redis: the reconciler restarts the runs, domain/workflows/recovery.ts). */
async function enqueueRuns(broadcastId: string, runIds: string[]): Promise<void> {
  if (!runIds.length) return;
  await getRuntime()
    .sendMany(workflowRunAddress, runIds.map((runId) => ({ v: 1 as const, type: "run" as const, runId })))
    .catch((err) => logger.error({ err, broadcastId, count: runIds.length }, "broadcast runs stored but not enqueued; the reconciler will start them"));
}

/** One page written and its runs enqueued. Returns whether more may follow. */
export async function fanOutPage(broadcastId: string, pageSize = config.broadcastPageSize): Promise<{ more: boolean; runs: number }> {
  const out = await writePage(broadcastId, pageSize, null, false);
  await enqueueRuns(broadcastId, out.started);
  return { more: out.more, runs: out.started.length };
}

/**
 * The broadcast actor's handler: pages for up to SLICE_MS, then the rest as a new message to itself.
 * Pipelined: a page's runs are enqueued (XADD) while the next page is written, and the next page's
 * members are read while this one is written; every enqueue is awaited before the handler ends.
 */
export async function fanOut(msg: BroadcastMessage, pageSize = config.broadcastPageSize): Promise<void> {
  if (msg.type !== "fan_out") return;
  const until = Date.now() + SLICE_MS;
  let enqueued: Promise<void> = Promise.resolve();
  let ahead: ReadAhead | null = null;
  try {
    for (;;) {
      const { more, started, next } = await writePage(msg.broadcastId, pageSize, ahead, true);
      ahead = next;
      await enqueued;
      enqueued = enqueueRuns(msg.broadcastId, started);
      if (!more) return;
      if (Date.now() >= until) {
        await getRuntime().send(broadcastAddress, fanOutMessage(msg.broadcastId));
        return;
      }
    }
  } finally {
    await enqueued;
  }
}

export async function cancelBroadcast(scope: Scope, id: string): Promise<BroadcastRow> {
  const row = await cancelBroadcastRow(scope, id);
  if (row) return row;
  const existing = await getBroadcast(scope, id);
  if (!existing) throw broadcastNotFound();
  throw new AppError("broadcast_not_cancellable", `The broadcast is already ${existing.status}`);
}

/** The repair scan: fan-outs untouched for `staleMs` (their message lost with Redis) are enqueued again. */
export async function repairFanOuts(staleMs: number): Promise<number> {
  const stale = await staleFanOuts(staleMs);
  if (stale.length === 0) return 0;
  await touchBroadcasts(stale.map((s) => s.id));
  await getRuntime().sendMany(broadcastAddress, stale.map((s) => fanOutMessage(s.id)));
  return stale.length;
}

/** The broadcast record as the API (and the broadcast.completed event) shows it. */
export function serializeBroadcast(r: BroadcastRow) {
  return {
    id: r.id,
    topic: r.topic_key,
    workflow_slug: r.workflow_slug,
    workflow_version: r.workflow_version,
    status: r.status,
    recipients: r.recipients,
    runs_created: r.runs_created,
    created_at: new Date(r.created_at).toISOString(),
    completed_at: r.completed_at ? new Date(r.completed_at).toISOString() : null,
  };
}
