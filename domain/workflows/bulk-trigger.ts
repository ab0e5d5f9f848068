// POST /v1/workflows/:slug/trigger/bulk (issue 22): 1-1,000 trigger events validated all or nothing
// (details keyed `events[i].field`), then every run and its events in one transaction, answered in order.
import { fieldErrors, validationFailed, type ErrorDetails } from "../../basics/errors";
import { activeWorkflow, subscribersOfRecipients } from "../../store/audiences";
import type { Scope } from "../../store/db";
import { newId } from "../../store/ids";
import { newRunRow, type RunRow } from "../../store/workflow-runs";
import { identifierHash } from "../subscribers/erasure";
import { workflowNotFound } from "./definitions";
import { enqueueRuns, triggerInputProblems, triggerLocale } from "./runs";
import { writeTriggeredRuns } from "./trigger-digest";

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
  // one transaction: every run and its events (a digest's members placed now), or none of them
  await enqueueRuns(await writeTriggeredRuns(runs));
  return runs;
}
