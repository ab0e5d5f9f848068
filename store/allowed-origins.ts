// Allowed origins of publishable keys and the tenant's inbox-embed settings (developer mode,
// inbox secret), plus the cached per-(tenant, environment) view the inbox auth check reads.
import { createHmac } from "node:crypto";
import { sql, type Tx } from "./db";
import { newId } from "./ids";
import type { Environment } from "./api-keys";
import { bumpAuthEpoch } from "./api-keys";

export const MAX_ORIGINS_PER_TENANT = 20;

export interface AllowedOriginRow {
  id: string;
  tenant_id: string;
  environment: Environment;
  origin: string;
  created_at: Date;
}

export async function listOrigins(tx: Tx, tenantId: string, environment: Environment): Promise<AllowedOriginRow[]> {
  return tx<AllowedOriginRow[]>`
    select * from allowed_origins where tenant_id = ${tenantId} and environment = ${environment}
    order by created_at asc, id asc`;
}

export async function countOrigins(tx: Tx, tenantId: string, environment?: Environment): Promise<number> {
  const [row] = environment
    ? await tx<{ n: string }[]>`select count(*) as n from allowed_origins where tenant_id = ${tenantId} and environment = ${environment}`
    : await tx<{ n: string }[]>`select count(*) as n from allowed_origins where tenant_id = ${tenantId}`;
  return Number(row!.n);
}

export type AddOriginResult = { ok: true; row: AllowedOriginRow } | { ok: false; reason: "limit" | "duplicate" };

/** Serialised per tenant (row lock on the tenant) so two concurrent adds cannot pass the cap of 20. */
export async function addOrigin(tenantId: string, environment: Environment, origin: string): Promise<AddOriginResult> {
  const result = await sql.begin(async (tx) => {
    await tx`select id from tenants where id = ${tenantId} for update`;
    const [dup] = await tx`
      select 1 from allowed_origins where tenant_id = ${tenantId} and environment = ${environment} and origin = ${origin}`;
    if (dup) return { ok: false, reason: "duplicate" } as const;
    if ((await countOrigins(tx, tenantId)) >= MAX_ORIGINS_PER_TENANT) return { ok: false, reason: "limit" } as const;
    const [row] = await tx<AllowedOriginRow[]>`
      insert into allowed_origins (id, tenant_id, environment, origin)
      values (${newId()}, ${tenantId}, ${environment}, ${origin}) returning *`;
    return { ok: true, row: row! } as const;
  });
  if (result.ok) await bumpAuthEpoch();
  return result;
}

export async function deleteOrigin(tenantId: string, environment: Environment, id: string): Promise<boolean> {
  const rows = await sql`
    delete from allowed_origins where id = ${id} and tenant_id = ${tenantId} and environment = ${environment} returning id`;
  if (rows.length) await bumpAuthEpoch();
  return rows.length > 0;
}

/**
 * DESIGN.md 5: X-Subscriber-Hash is keyed by the environment's inbox secret. Production uses
 * tenants.inbox_secret itself; sandbox a key derived from it, so a sandbox credential never learns
 * the secret that signs production subscribers.
 */
export function environmentInboxSecret(tenantSecret: string, environment: Environment): string {
  if (environment === "production") return tenantSecret;
  return createHmac("sha256", tenantSecret).update(`nms-inbox-secret:${environment}`).digest("hex");
}

export interface EmbedSettings {
  developer_mode: boolean;
  inbox_secret: string;
}

export async function getEmbedSettings(tenantId: string, environment: Environment): Promise<EmbedSettings | undefined> {
  const [row] = await sql<EmbedSettings[]>`select developer_mode, inbox_secret from tenants where id = ${tenantId}`;
  return row && { developer_mode: row.developer_mode, inbox_secret: environmentInboxSecret(row.inbox_secret, environment) };
}

export async function setDeveloperMode(tenantId: string, on: boolean): Promise<void> {
  await sql`update tenants set developer_mode = ${on} where id = ${tenantId}`;
  await bumpAuthEpoch();
}

/** What the publishable-key check needs, in one query. */
export interface InboxAuthFacts {
  developerMode: boolean;
  inboxSecret: string;
  origins: Set<string>;
}

export async function loadInboxAuthFacts(tenantId: string, environment: Environment): Promise<InboxAuthFacts | undefined> {
  const [row] = await sql<{ developer_mode: boolean; inbox_secret: string; origins: string[] | null }[]>`
    select t.developer_mode, t.inbox_secret,
           (select array_agg(origin) from allowed_origins o where o.tenant_id = t.id and o.environment = ${environment}) as origins
    from tenants t where t.id = ${tenantId}`;
  if (!row) return undefined;
  return {
    developerMode: row.developer_mode,
    inboxSecret: environmentInboxSecret(row.inbox_secret, environment),
    origins: new Set(row.origins ?? []),
  };
}
