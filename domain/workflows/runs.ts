// Workflow runs as the API starts and stops them: trigger (a run pinned to the active version, its
// event and the job for step 0) and cancel (terminal runs are 409 run_not_cancellable).
import { fieldErrors, AppError, notFound, validationFailed } from "../../basics/errors";
import { logger } from "../../basics/log";
import { workflowRunAddress, workflowRunTimerId } from "./workflow-run-mail";
import { sql, type Scope } from "../../store/db";
import { newId } from "../../store/ids";
import { getRuntime } from "../../store/runtime-handle";
import { MicroBatcher } from "../../store/micro-batcher";
import { closeDigestOfCancelledLeader } from "../../store/workflow-digests";
import { cancelRunRow, getRun, newRunRow, type RunRow } from "../../store/workflow-runs";
import { writeTriggeredRuns } from "./trigger-digest";
import { prepareEvents } from "../events/outbox";
import { workflowEvent } from "./engine";
import { workflowNotFound } from "./definitions";
import { lookUpTrigger } from "./recipients";
import { LOCALE_MESSAGE, normalizeLocale } from "../templates/locale";

const RECIPIENT_MAX = 8192;

export interface TriggerInput {
  recipient: string;
  data: Record<string, unknown>;
  /** the trigger's `locale` in its stored spelling (pt-BR -> pt_BR), null when absent */
  locale: string | null;
}

/** The trigger body's aliases (`recipient`/`to`, `data`/`payload`) and `locale`, checked with field-named errors. */
export function triggerInput(body: Record<string, unknown>, prefix = ""): TriggerInput {
  const details = triggerInputProblems(body, prefix);
  if (Object.keys(details).length) throw validationFailed(details);
  return { recipient: (body.recipient ?? body.to) as string, data: (body.data ?? body.payload ?? {}) as Record<string, unknown>, locale: triggerLocale(body) };
}

/**
 * The optional `locale` of a trigger body, checked as a notification's is: every send step of the
 * run renders in it when the recipient subscriber has no locale (docs/localization.md). Adds its
 * problem to `details` under `<prefix>locale`.
 */
export function triggerLocaleProblem(body: Record<string, unknown>, prefix: string, details: Record<string, string[]>): void {
  if (body.locale === undefined) return;
  if (typeof body.locale !== "string" || body.locale.length > 35 || !normalizeLocale(body.locale)) details[`${prefix}locale`] = [LOCALE_MESSAGE];
}

/** The stored spelling of a checked body's `locale` (null when absent). */
export function triggerLocale(body: Record<string, unknown>): string | null {
  return body.locale === undefined ? null : normalizeLocale(body.locale as string);
}

/** Problems of one trigger body, keyed `<prefix><field>` (the bulk trigger's prefix is `events[i].`). */
export function triggerInputProblems(body: Record<string, unknown>, prefix = ""): Record<string, string[]> {
  const recipientField = body.recipient !== undefined ? "recipient" : "to";
  const recipient = body.recipient ?? body.to;
  const dataField = body.data !== undefined ? "data" : "payload";
  const data = body.data ?? body.payload ?? {};
  const details: Record<string, string[]> = fieldErrors();
  if (recipient === undefined || recipient === null) details[`${prefix}recipient`] = ["is required (or to)"];
  else if (typeof recipient !== "string") details[prefix + recipientField] = ["must be a string"];
  else if (recipient.trim() === "") details[prefix + recipientField] = ["must not be empty"];
  else if (recipient.length > RECIPIENT_MAX) details[prefix + recipientField] = [`must be at most ${RECIPIENT_MAX} characters`];
  if (data === null || typeof data !== "object" || Array.isArray(data)) details[prefix + dataField] = ["must be an object"];
  triggerLocaleProblem(body, prefix, details);
  return details;
}

/**
 * Concurrent triggers of one process share a batch: one transaction writes the runs and their events
 * (a digest's members placed in it, trigger-digest.ts), then one pipeline enqueues the jobs. Answered
 * once committed; a job lost between COMMIT and XADD (crash, Redis down) is re-enqueued by the reconciler.
 */
const triggerBatcher = new MicroBatcher<RunRow, true | Error>(
  async (rows) => {
    let out: (true | Error)[];
    let jobs: string[];
    try {
      jobs = await writeTriggeredRuns(rows);
      out = rows.map(() => true as const);
    } catch (err) {
      if (rows.length === 1) throw err;
      // one bad row must not fail its neighbours: each alone, failing only the culprit
      const each = await Promise.allSettled(rows.map((r) => writeTriggeredRuns([r])));
      out = each.map((e) => (e.status === "fulfilled" ? (true as const) : e.reason instanceof Error ? e.reason : new Error(String(e.reason))));
      jobs = each.flatMap((e) => (e.status === "fulfilled" ? e.value : []));
    }
    if (jobs.length) enqueueRuns(jobs);
    return out;
  },
  { maxSize: 200, maxWaitMs: 2, maxConcurrent: 2 },
);

/**
 * The first jobs of runs just written (and wake-ups of leaders whose digest they filled), in one
 * pipeline; a job lost between COMMIT and XADD (crash, Redis down) is re-enqueued by the reconciler.
 */
export function enqueueRuns(ids: string[]): Promise<void> {
  return getRuntime()
    .sendMany(workflowRunAddress, [...new Set(ids)].map((runId) => ({ v: 1, type: "run" as const, runId })))
    .then(() => undefined)
    .catch((err) => logger.error({ err, count: ids.length }, "workflow runs stored but not enqueued; the reconciler will start them"));
}

/**
 * POST /v1/workflows/:slug/trigger: the run (status running, current_step 0, no results) of the
 * version active now, its workflow.triggered event in the same transaction, then the job for step 0;
 * answered as created, also when the run joined a digest at trigger (already completed, merged).
 */
export async function triggerWorkflow(scope: Scope, slug: string, body: Record<string, unknown>): Promise<RunRow> {
  const input = triggerInput(body);
  const { workflow, subscriberId } = await lookUpTrigger(scope, slug, input.recipient);
  if (!workflow) throw workflowNotFound();
  const run = newRunRow({
    id: newId(),
    tenantId: scope.tenantId,
    environment: scope.environment,
    workflowId: workflow.id,
    workflowVersion: workflow.version,
    workflowSlug: workflow.slug,
    recipient: input.recipient,
    subscriberId,
    data: input.data,
    locale: input.locale,
  });
  await triggerBatcher.submit(run);
  return run;
}

/**
 * POST /v1/workflow-runs/:id/cancel: only future steps are prevented; notifications already created
 * are not reverted. A digest's leader cancels its digest: the runs that joined it stay merged, nothing
 * is sent for them (docs/workflows.md). A timer or wake-up that still arrives finds the run cancelled and does nothing.
 */
export async function cancelRun(scope: Scope, id: string): Promise<RunRow> {
  const row = await cancelRunRow(scope, id, (r) => prepareEvents(sql, [workflowEvent(r, "workflow.completed")]).insert);
  if (!row) {
    const existing = await getRun(scope, id);
    if (!existing) throw notFound("workflow_run_not_found", "Workflow run not found");
    throw new AppError("run_not_cancellable", `The run is already ${existing.status}`);
  }
  // a leader's open digest is cancelled with it: its events are not sent, later runs open a new one
  await closeDigestOfCancelledLeader(id);
  // tidy only: the timer would find the run cancelled anyway
  await getRuntime().cancel(workflowRunAddress, workflowRunTimerId(id)).catch(() => {});
  return row;
}
