// Template translation repository (migration 0780): upsert, read, list and delete one locale of a
// template, and the map of every locale the accept path renders from.
import { sql, type Scope, type Tx } from "./db";

export interface TranslationRow {
  template_id: string;
  locale: string;
  content: string;
  variants: Record<string, string>;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = sql`template_id, locale, content, variants, created_at, updated_at`;

/** Insert or replace; `created` tells a new locale from a replaced one. */
export async function upsertTranslation(
  tx: Tx,
  scope: Scope,
  templateId: string,
  locale: string,
  f: { content: string; variants: Record<string, string> },
): Promise<{ row: TranslationRow; created: boolean }> {
  const [row] = await tx`
    insert into template_translations (template_id, tenant_id, environment, locale, content, variants)
    values (${templateId}, ${scope.tenantId}, ${scope.environment}, ${locale}, ${f.content}, ${tx.json(f.variants as any)})
    on conflict (template_id, locale) do update
      set content = excluded.content, variants = excluded.variants, updated_at = now()
    returning ${COLUMNS}, (xmax = 0) as created`;
  const { created, ...rest } = row as any;
  return { row: rest as TranslationRow, created: created === true };
}

export async function findTranslation(tx: Tx, scope: Scope, templateId: string, locale: string): Promise<TranslationRow | null> {
  const rows = await tx`select ${COLUMNS} from template_translations
    where template_id = ${templateId} and tenant_id = ${scope.tenantId} and environment = ${scope.environment} and locale = ${locale}`;
  return (rows[0] as unknown as TranslationRow) ?? null;
}

export async function listTranslations(tx: Tx, scope: Scope, templateId: string): Promise<TranslationRow[]> {
  const rows = await tx`select ${COLUMNS} from template_translations
    where template_id = ${templateId} and tenant_id = ${scope.tenantId} and environment = ${scope.environment}
    order by locale`;
  return rows as unknown as TranslationRow[];
}

export async function deleteTranslation(tx: Tx, scope: Scope, templateId: string, locale: string): Promise<boolean> {
  const rows = await tx`delete from template_translations
    where template_id = ${templateId} and tenant_id = ${scope.tenantId} and environment = ${scope.environment} and locale = ${locale}
    returning locale`;
  return rows.length > 0;
}

/** locale -> {content, variants} of one template, for rendering (empty when it has none). */
export async function translationsOf(
  templateId: string,
  tx: Tx = sql,
): Promise<Record<string, { content: string; variants: Record<string, string> }>> {
  const rows = await tx<{ locale: string; content: string; variants: Record<string, string> }[]>`
    select locale, content, variants from template_translations where template_id = ${templateId}`;
  return Object.fromEntries(rows.map((r) => [r.locale, { content: r.content, variants: r.variants ?? {} }]));
}
