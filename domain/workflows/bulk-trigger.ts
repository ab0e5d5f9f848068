// POST /v1/workflows/:slug/trigger/bulk (issue 22): 1-1,000 trigger events validated all or nothing
// (details keyed `events[i].field`), then every run and its event in one statement, answered in order.
import { logger } from "../../basics/log";
import { fieldErrors, validationFailed, type ErrorDetails } from "../../basics/errors";
import { activeWorkflow, subscribersOfRecipients } from "../../store/audiences";
import { sql, type Scope } from "../../store/db";
import { newId } from "../../store/ids";
import { getRuntime } from "../../store/runtime-handle";
import { insertRuns, newRunRow, type RunRow } from "../../store/workflow-runs";
import { prepareEvents } from "../events/outbox";
import { identifierHash } from "../subscribers/erasure";
import { workflowNotFound } from "./definitions";
import { workflowEvent } from "./engine";
import { triggerInputProblems, triggerLocale } from "./runs";
import { workflowRunAddress } from "./workflow-run-mail";

export const BULK_TRIGGER_MAX = 1000;

export async function triggerWorkflowBulk(scope: Scope, slug: string, body: Record<string, unknown>): Promise<RunRow[]> {
  const events = body.events;
  if (!Array.isArray(events)) throw validationFailed({ events: ["must be an array of trigger events"] });
  if (events.length < 1 || events.length > BULK_TRIGGER_MAX) throw validationFailed({ events: [`must hold 1 to ${BULK_TRIGGER_MAX} events`] });
  const details: ErrorDetails = fieldErrors();
  for (const k of Object.keys(body)) if (k !== "events") details[k] = ["is not a known field"];
  events.forEach((e, i) => {
    if (e === null || typeof e !== "object" || Array.isArray(e)) details[`events[${i}]`] = ["must be an object with recipient (or to) and data (or payload)"];
    else if (typeof (e as any).to === "object" && (e as any).to !== null) details[`events[${i}].to`] = ["must be a subscriber or an address; a topic takes the single trigger"];
    else Object.assign(details, triggerInputProblems(e as Record<string, unknown>, `events[${i}].`));
  });
  if (Object.keys(details).length) throw validationFailed(details);

  const inputs = events.map((e: Record<string, unknown>) => ({
    recipient: (e.recipient ?? e.to) as string,
    data: (e.data ?? e.payload ?? {}) as Record<string, unknown>,
    locale: triggerLocale(e),
  }));
  const workflow = await activeWorkflow(scope, slug);
  if (!workflow) throw workflowNotFound();
  const subscribers = await subscribersOfRecipients(
    scope,
    inputs.map((i) => ({ value: i.recipient, hash: identifierHash(scope.tenantId, scope.environment, i.recipient) })),
  );
  const runs = inputs.map((i) =>
    newRunRow({
      id: newId(),
      tenantId: scope.tenantId,
      environment: scope.environment,
      workflowId: workflow.id,
      workflowVersion: workflow.version,
      workflowSlug: workflow.slug,
      recipient: i.recipient,
      subscriberId: subscribers.get(i.recipient) ?? null,
      data: i.data,
      locale: i.locale,
    }),
  );
  // one statement: every run and its workflow.triggered event, or none of them
  await insertRuns(runs, prepareEvents(sql, runs.map((r) => workflowEvent(r, "workflow.triggered"))).insert);
  await getRuntime()
    .sendMany(workflowRunAddress, runs.map((r) => ({ v: 1, type: "run" as const, runId: r.id })))
    .catch((err) => logger.error({ err, count: runs.length }, "bulk-triggered runs stored but not enqueued; the reconciler will start them"));
  return runs;
}
