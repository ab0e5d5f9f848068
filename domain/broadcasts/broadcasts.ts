// Broadcasts (issue 22): a trigger to a topic. The request stores the broadcast and enqueues its
// fan-out; the broadcast actor pages the members, each page's runs and cursor in one transaction.
import { config } from "../../config";
import { logger } from "../../basics/log";
import { AppError, fieldErrors, notFound, validationFailed } from "../../basics/errors";
import { activeWorkflow } from "../../store/audiences";
import { insertKeyedRuns } from "../../store/audiences";
import {
  advanceBroadcast,
  audiencePage,
  cancelBroadcastRow,
  completeBroadcast,
  countAudience,
  getBroadcast,
  insertBroadcast,
  lockBroadcast,
  staleFanOuts,
  touchBroadcasts,
  type BroadcastRow,
} from "../../store/broadcasts";
import { sql, type Scope } from "../../store/db";
import { newId } from "../../store/ids";
import { getRuntime } from "../../store/runtime-handle";
import { findTopic } from "../../store/topics";
import { newRunRow, type RunRow } from "../../store/workflow-runs";
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

/**
 * One page: the broadcast locked, the members after its cursor read, their runs inserted (keyed:
 * none twice) with their workflow.triggered events, the cursor and count moved, in one transaction;
 * the runs' jobs enqueued after the commit (a lost one is restarted by the reconciler). An empty
 * page completes the broadcast with its broadcast.completed event. Returns whether more may follow.
 */
export async function fanOutPage(broadcastId: string, pageSize = config.broadcastPageSize): Promise<{ more: boolean; runs: number }> {
  const out = (await sql.begin(async (tx) => {
    const b = await lockBroadcast(tx, broadcastId);
    if (!b || b.status !== "fanning_out") return { more: false, started: [] as string[] };
    const members = await audiencePage(tx, b, pageSize);
    if (members.length === 0) {
      const done = await completeBroadcast(tx, b.id);
      await prepareEvents(tx, [{ tenantId: b.tenant_id, environment: b.environment, type: "broadcast.completed", data: { broadcast: serializeBroadcast(done) } }]).insert;
      return { more: false, started: [] as string[] };
    }
    const recipients = b.recipients === null ? await countAudience(tx, b) : null;
    const runs = members.map((m) => ({
      ...newRunRow({
        id: newId(),
        tenantId: b.tenant_id,
        environment: b.environment,
        workflowId: b.workflow_id,
        workflowVersion: b.workflow_version,
        workflowSlug: b.workflow_slug,
        recipient: m.external_id,
        subscriberId: m.id,
        data: b.data,
        locale: b.locale,
      }),
      idempotency_key: broadcastRunKey(b.id, m.id),
    }));
    const started = await insertKeyedRuns(tx, runs, (inserted: RunRow[]) => prepareEvents(tx, inserted.map((r) => workflowEvent(r, "workflow.triggered"))).insert);
    await advanceBroadcast(tx, b.id, { cursor: members[members.length - 1]!.id, runsAdded: started.length, recipients });
    return { more: true, started };
  })) as { more: boolean; started: string[] };
  if (out.started.length) {
    await getRuntime()
      .sendMany(workflowRunAddress, out.started.map((runId) => ({ v: 1 as const, type: "run" as const, runId })))
      .catch((err) => logger.error({ err, broadcastId, count: out.started.length }, "broadcast runs stored but not enqueued; the reconciler will start them"));
  }
  return { more: out.more, runs: out.started.length };
}

/** The broadcast actor's handler: pages for up to SLICE_MS, then the rest as a new message to itself. */
export async function fanOut(msg: BroadcastMessage): Promise<void> {
  if (msg.type !== "fan_out") return;
  const until = Date.now() + SLICE_MS;
  for (;;) {
    const { more } = await fanOutPage(msg.broadcastId);
    if (!more) return;
    if (Date.now() >= until) {
      await getRuntime().send(broadcastAddress, fanOutMessage(msg.broadcastId));
      return;
    }
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
