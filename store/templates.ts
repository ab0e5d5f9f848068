// Template repository: CRUD scoped by (tenant, environment), soft delete that frees the slug,
// and the lookups the accept path uses (findTemplateForSend with its translations, assertTemplateUsable; DESIGN.md 6).
import { AppError, notFound, validationFailed } from "../basics/errors";
import { decodeCursor, pageOf } from "./cursor";
import { sql, type Scope, type Tx } from "./db";
import { isUuid, newId } from "./ids";
import { iso } from "./time";

export type TemplateStatus = "draft" | "active";
export const DEFAULT_LANGUAGE = "pt_BR";

/** The columns a caller writes on insert and update. */
export interface TemplateFields {
  slug: string;
  name: string;
  channel: string;
  content: string;
  variables: string[];
  variants: Record<string, string>;
  language: string;
  status: TemplateStatus;
  metadata: Record<string, unknown>;
  provider_template_id: string | null;
}

export interface TemplateRow extends TemplateFields {
  id: string;
  /** locale -> its text; read only by findTemplateForSend (one subquery, same round trip) */
  translations?: Record<string, { content: string; variants: Record<string, string> }> | null;
  tenant_id: string;
  environment: string;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = sql`id, tenant_id, environment, slug, name, channel, content, variables, variants, language, status,
  metadata, provider_template_id, created_at, updated_at`;

/** Raised when a live template of the scope already uses the slug (the partial unique index). */
export class SlugTakenError extends Error {
  constructor(readonly slug: string) {
    super(`slug '${slug}' is already taken`);
  }
}

function isSlugViolation(err: unknown): boolean {
  const e = err as { code?: string; constraint_name?: string; constraint?: string };
  return e?.code === "23505" && (e.constraint_name ?? e.constraint) === "templates_slug";
}

export async function insertTemplate(tx: Tx, scope: Scope, f: TemplateFields): Promise<TemplateRow> {
  try {
    const [row] = await tx`
      insert into templates (id, tenant_id, environment, slug, name, channel, content, variables, variants, language,
                             status, metadata, provider_template_id)
      values (${newId()}, ${scope.tenantId}, ${scope.environment}, ${f.slug}, ${f.name}, ${f.channel}, ${f.content},
              ${f.variables}, ${tx.json(f.variants as any)}, ${f.language}, ${f.status}, ${tx.json(f.metadata as any)},
              ${f.provider_template_id})
      returning ${COLUMNS}`;
    return row as unknown as TemplateRow;
  } catch (err) {
    if (isSlugViolation(err)) throw new SlugTakenError(f.slug);
    throw err;
  }
}

/** A live template by id or slug; a uuid-shaped slug is matched too, the id wins. */
export async function findTemplate(
  tx: Tx,
  scope: Scope,
  idOrSlug: string,
  forUpdate = false,
  withTranslations = false,
): Promise<TemplateRow | null> {
  const lock = forUpdate ? tx`for update` : tx``;
  const extra = withTranslations
    ? tx`, (select jsonb_object_agg(tr.locale, jsonb_build_object('content', tr.content, 'variants', tr.variants))
          from template_translations tr where tr.template_id = templates.id) as translations`
    : tx``;
  const rows = isUuid(idOrSlug)
    ? await tx`select ${COLUMNS} ${extra} from templates
        where tenant_id = ${scope.tenantId} and environment = ${scope.environment} and deleted_at is null
          and (id = ${idOrSlug}::uuid or slug = ${idOrSlug})
        order by (id = ${idOrSlug}::uuid) desc limit 1 ${lock}`
    : await tx`select ${COLUMNS} ${extra} from templates
        where tenant_id = ${scope.tenantId} and environment = ${scope.environment} and deleted_at is null
          and slug = ${idOrSlug} limit 1 ${lock}`;
  return (rows[0] as unknown as TemplateRow) ?? null;
}

export async function listTemplates(
  scope: Scope,
  opts: { channel?: string; status?: string; limit: number; cursor?: string },
) {
  // ids are UUID v7 (time-ordered), so paging by id alone is creation order without the
  // millisecond/microsecond mismatch a timestamp cursor would have
  const after = decodeCursor(opts.cursor);
  if (after && !isUuid(after.id)) throw validationFailed({ cursor: ["is not a valid cursor"] });
  const rows = await sql`
    select ${COLUMNS} from templates
    where tenant_id = ${scope.tenantId} and environment = ${scope.environment} and deleted_at is null
      ${opts.channel ? sql`and channel = ${opts.channel}` : sql``}
      ${opts.status ? sql`and status = ${opts.status}` : sql``}
      ${after ? sql`and id < ${after.id}::uuid` : sql``}
    order by id desc
    limit ${opts.limit + 1}`;
  return pageOf(rows as unknown as TemplateRow[], opts.limit, (r) => ({ t: r.created_at.toISOString(), id: r.id }));
}

export async function updateTemplate(tx: Tx, scope: Scope, id: string, f: TemplateFields): Promise<TemplateRow> {
  try {
    const [row] = await tx`
      update templates set slug = ${f.slug}, name = ${f.name}, channel = ${f.channel}, content = ${f.content},
        variables = ${f.variables}, variants = ${tx.json(f.variants as any)}, language = ${f.language},
        status = ${f.status}, metadata = ${tx.json(f.metadata as any)}, provider_template_id = ${f.provider_template_id},
        updated_at = now()
      where id = ${id} and tenant_id = ${scope.tenantId} and environment = ${scope.environment} and deleted_at is null
      returning ${COLUMNS}`;
    return row as unknown as TemplateRow;
  } catch (err) {
    if (isSlugViolation(err)) throw new SlugTakenError(f.slug);
    throw err;
  }
}

/** Soft delete: the row stays for history (notifications name its slug) and the slug is free again. */
export async function softDeleteTemplate(tx: Tx, scope: Scope, id: string): Promise<boolean> {
  const rows = await tx`
    update templates set deleted_at = now(), updated_at = now()
    where id = ${id} and tenant_id = ${scope.tenantId} and environment = ${scope.environment} and deleted_at is null
    returning id`;
  return rows.length > 0;
}

/**
 * For the channel sender and the notifications API: a live template by slug or id, or
 * 404 `template_not_found`. Pair with assertTemplateUsable before rendering.
 */
export async function findTemplateForSend(tenantId: string, environment: string, slugOrId: string): Promise<TemplateRow> {
  const row = await findTemplate(sql, { tenantId, environment }, slugOrId, false, true);
  if (!row) throw notFound("template_not_found", `No template '${slugOrId}' in this environment`);
  return row;
}

/** DESIGN.md 6: any status is usable in sandbox; production sends need `active` (422 template_not_active). */
export function assertTemplateUsable(template: Pick<TemplateRow, "slug" | "status">, environment: string): void {
  if (environment === "production" && template.status !== "active") {
    throw new AppError("template_not_active",
      `Template '${template.slug}' is ${template.status}; production sends need an active template`,
    );
  }
}
