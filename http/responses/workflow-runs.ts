// API response shape of the workflow run with its step results: store rows as the routes answer them
// (the TypeBox schemas in schemas/ describe the same shapes for validation and the OpenAPI document).
import { iso } from "../../store/time";
import type { RunRow } from "../../store/workflow-runs";

export function serializeRun(r: RunRow) {
  return {
    id: r.id,
    workflow_id: r.workflow_id,
    workflow_slug: r.workflow_slug,
    workflow_version: r.workflow_version,
    recipient: r.recipient,
    status: r.status,
    current_step: r.current_step,
    step_results: r.step_results,
    data: r.data ?? {},
    started_at: iso(r.started_at)!,
    completed_at: iso(r.completed_at),
  };
}
