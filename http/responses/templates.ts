// API response shape of the template record: store rows as the routes answer them
// (the TypeBox schemas in schemas/ describe the same shapes for validation and the OpenAPI document).
import { iso } from "../../store/time";
import type { TemplateRow } from "../../store/templates";

export function serializeTemplate(r: TemplateRow) {
  return {
    id: r.id,
    slug: r.slug,
    name: r.name,
    channel: r.channel,
    content: r.content,
    variables: r.variables ?? [],
    variants: r.variants ?? {},
    language: r.language,
    status: r.status,
    metadata: r.metadata ?? {},
    provider_template_id: r.provider_template_id ?? null,
    created_at: iso(r.created_at)!,
    updated_at: iso(r.updated_at)!,
  };
}
