// Writing triggered runs (the single and bulk trigger): a version whose first step is a digest
// without `if` has its runs placed in digests by the trigger's own transaction (docs/workflows.md).
import { config } from "../../config";
import { logger } from "../../basics/log";
import { sql } from "../../store/db";
import { placeAtTrigger, type TriggerPlacement } from "../../store/workflow-digests";
import { insertRuns, type RunRow, type StepResultRecord } from "../../store/workflow-runs";
import type { WorkflowStepDef } from "../../store/workflows";
import { prepareEvents } from "../events/outbox";
import { durationSeconds } from "./definitions";
import { boundedKey, stepKey, versionOf, workflowEvent } from "./engine";

/**
 * The digest step a run of these steps reaches at trigger, decided there: step 0, unconditional. (A
 * digest with an `if`, or after other steps, is reached in the workflow-run actor, which joins it.)
 */
export function digestAtTrigger(steps: WorkflowStepDef[]): WorkflowStepDef | null {
  const first = steps[0];
  return first?.type === "digest" && first.if == null ? first : null;
}

/**
 * Writes new runs (rows as newRunRow makes them) with their events, and returns the ids of the runs
 * whose job to enqueue: every run, except a digest's member placed at trigger (it is written
 * `completed`, merged, with its `workflow.step.completed` and `workflow.completed`); plus the leaders
 * of digests these runs filled (max_events), so they go on now. All or nothing.
 */
export async function writeTriggeredRuns(rows: RunRow[]): Promise<string[]> {
  const placements: (TriggerPlacement & { row: RunRow; steps: number })[] = [];
  const plain: RunRow[] = [];
  for (const row of rows) {
    const version = await versionOf(row.workflow_id);
    const step = version ? digestAtTrigger(version.steps) : null;
    const key = step ? keyOf(step, row) : null;
    if (!version || !step || key === null) {
      plain.push(row);
      continue;
    }
    placements.push({
      k: { tenantId: row.tenant_id, environment: row.environment, lineageId: version.lineage_id, recipient: boundedKey(row.recipient), key },
      run: { id: row.id, data: row.data },
      windowMs: durationSeconds(step.window!)! * 1000 * config.timeScale,
      maxEvents: step.max_events ?? null,
      row,
      steps: version.steps.length,
    });
  }
  const triggered = (runs: RunRow[]) => runs.map((r) => workflowEvent(r, "workflow.triggered"));
  if (!placements.length) {
    await insertRuns(rows, prepareEvents(sql, triggered(rows)).insert);
    return rows.map((r) => r.id);
  }
  const jobs: string[] = [];
  const placed = await placeAtTrigger(placements, async (tx, places) => {
    const written: RunRow[] = [...plain];
    const events = triggered(plain);
    placements.forEach((p, n) => {
      const place = places[n]!;
      events.push(workflowEvent(p.row, "workflow.triggered"));
      if (place.role === "leader") {
        written.push(p.row);
        return;
      }
      // the member as the workflow-run actor would have written it (Draft.endAt)
      const result: StepResultRecord = { type: "digest", step: 0, status: "merged", digest_run_id: place.digest.leader_run_id };
      const done: RunRow = { ...p.row, status: "completed", current_step: p.steps, step_results: [result], rev: 1, completed_at: new Date() };
      written.push(done);
      events.push(workflowEvent(done, "workflow.step.completed", { step: 0, result }), workflowEvent(done, "workflow.completed"));
    });
    await insertRuns(written, prepareEvents(tx, events).insert, tx);
  });
  placements.forEach((p, n) => placed.places[n]!.role === "leader" && jobs.push(p.row.id));
  return [...plain.map((r) => r.id), ...jobs, ...placed.filled];
}

/** The run's digest key, or null when it cannot be rendered here (the actor then meets the step and reports it). */
function keyOf(step: WorkflowStepDef, row: RunRow): string | null {
  try {
    return stepKey(step, row.data);
  } catch (err) {
    logger.warn({ err, runId: row.id }, "digest key not rendered at trigger; the workflow-run actor places the run");
    return null;
  }
}
