// API response shape of the workflow version record: store rows as the routes answer them
// (the TypeBox schemas in schemas/ describe the same shapes for validation and the OpenAPI document).
import { iso } from "../../store/time";
import type { WorkflowRow } from "../../store/workflows";

export function serializeWorkflow(r: WorkflowRow) {
  return {
    id: r.id,
    slug: r.slug,
    name: r.name,
    steps: r.steps,
    version: r.version,
    active: r.active,
    inserted_at: iso(r.inserted_at)!,
    updated_at: iso(r.updated_at)!,
  };
}
