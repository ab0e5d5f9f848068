// API response shape of a preference category: the store row as /v1/preference-categories answers it
// (schemas/preference-categories.ts describes the same shape).
import type { PreferenceCategoryRow } from "../../store/preference-categories";
import { iso } from "../../store/time";

export function serializeCategory(r: PreferenceCategoryRow) {
  return {
    id: r.id,
    key: r.key,
    name: r.name,
    description: r.description ?? null,
    default_enabled_channels: r.default_enabled_channels ?? [],
    required: r.required,
    created_at: iso(r.created_at)!,
    updated_at: iso(r.updated_at)!,
  };
}
