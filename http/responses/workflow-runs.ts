// API response shape of the workflow run with its step results: store rows as the routes answer them
// (the TypeBox schemas in schemas/ describe the same shapes for validation and the OpenAPI document).
// A step that created a notification also shows that notification's status now (notification_status),
// read when the run is read: the engine records `enqueued` once and never looks back.
import { iso } from "../../store/time";
import type { RunRow, StepResultRecord } from "../../store/workflow-runs";

/** Every notification id a run's step results name (send and fallback steps, fallback attempts). */
export function stepNotificationIds(runs: readonly RunRow[]): string[] {
  const ids = new Set<string>();
  for (const r of runs) {
    for (const s of r.step_results ?? []) {
      if (typeof s.notification_id === "string") ids.add(s.notification_id);
      for (const a of Array.isArray(s.attempts) ? s.attempts : []) if (typeof a?.notification_id === "string") ids.add(a.notification_id);
    }
  }
  return [...ids];
}

function withStatus(s: StepResultRecord, statuses: ReadonlyMap<string, string>): StepResultRecord {
  const id = s.notification_id;
  const out: StepResultRecord = { ...s };
  if (typeof id === "string") out.notification_status = statuses.get(id) ?? null;
  if (Array.isArray(s.attempts)) {
    out.attempts = s.attempts.map((a: any) =>
      typeof a?.notification_id === "string" ? { ...a, notification_status: statuses.get(a.notification_id) ?? null } : a,
    );
  }
  return out;
}

/** `statuses` (notification id -> current status) adds notification_status to the steps; a run just triggered has none. */
export function serializeRun(r: RunRow, statuses: ReadonlyMap<string, string> = new Map()) {
  return {
    id: r.id,
    workflow_id: r.workflow_id,
    workflow_slug: r.workflow_slug,
    workflow_version: r.workflow_version,
    recipient: r.recipient,
    status: r.status,
    current_step: r.current_step,
    step_results: (r.step_results ?? []).map((s) => withStatus(s, statuses)),
    data: r.data ?? {},
    started_at: iso(r.started_at)!,
    completed_at: iso(r.completed_at),
  };
}
