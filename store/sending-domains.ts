// Sending domains, their health checks and alerts (migration 0500): one row per (tenant,
// environment, domain), the DKIM private key sealed like channel credentials. Every read filters by scope.
import { validationFailed } from "../basics/errors";
import type { CheckName, CheckStatus } from "../schemas/domains";
import { decryptString, encryptString } from "./cipher";
import { sql, type Scope, type Tx } from "./db";
import { isUuid, newId } from "./ids";

export interface SendingDomainRow {
  id: string;
  tenant_id: string;
  environment: string;
  domain: string;
  status: "pending" | "verified";
  verification_token: string;
  verification_error: string | null;
  verified_at: Date | null;
  dkim_selector: string;
  dkim_public_key: string;
  dkim_private_key_enc: string;
  block_on_failure: boolean;
  created_at: Date;
  updated_at: Date;
}

/** One check's outcome as stored and returned (DESIGN.md 6: {status, record}, plus why). */
export interface CheckResult {
  status: CheckStatus;
  record: string | null;
  message: string;
}

export interface HealthCheckRow {
  id: string;
  domain_id: string;
  tick: string | null;
  trigger: "cron" | "forced" | "verify" | "read";
  spf: CheckResult;
  dkim: CheckResult;
  dmarc: CheckResult;
  checked_at: Date;
}

/** A domain with its latest health check (null before the first). */
export type DomainWithHealth = SendingDomainRow & { health: HealthCheckRow | null };

export interface AlertRow {
  id: string;
  tenant_id: string;
  environment: string;
  domain_id: string;
  domain: string;
  check_name: CheckName;
  status: "fail" | "missing";
  message: string;
  created_at: Date;
  resolved_at: Date | null;
}

export class DomainExistsError extends Error {
  constructor(readonly domain: string) {
    super(`domain '${domain}' is already added`);
  }
}

/**
 * Additional authenticated data of the sealed key: a key copied into another tenant's,
 * environment's or domain's row fails to decrypt instead of signing there.
 */
function aadOf(tenantId: string, environment: string, id: string): string {
  return `sending-domain:${tenantId}:${environment}:${id}`;
}

/** The PEM private key of a domain (the channel sender signs with it; nothing else reads it). */
export function openDkimKey(row: Pick<SendingDomainRow, "id" | "tenant_id" | "environment" | "dkim_private_key_enc">): string {
  return decryptString(row.dkim_private_key_enc, aadOf(row.tenant_id, row.environment, row.id));
}

export interface NewDomain {
  id: string;
  domain: string;
  verificationToken: string;
  dkimSelector: string;
  dkimPublicKey: string;
  dkimPrivateKeyPem: string;
}

export async function insertDomain(tx: Tx, scope: Scope, d: NewDomain): Promise<SendingDomainRow> {
  const rows = await tx<SendingDomainRow[]>`
    insert into sending_domains (id, tenant_id, environment, domain, verification_token, dkim_selector, dkim_public_key, dkim_private_key_enc)
    values (${d.id}, ${scope.tenantId}, ${scope.environment}, ${d.domain}, ${d.verificationToken}, ${d.dkimSelector}, ${d.dkimPublicKey},
            ${encryptString(d.dkimPrivateKeyPem, aadOf(scope.tenantId, scope.environment, d.id))})
    on conflict (tenant_id, environment, domain) do nothing
    returning *`;
  if (!rows[0]) throw new DomainExistsError(d.domain);
  return rows[0];
}

const LATEST_HEALTH = sql`
  left join lateral (
    select to_jsonb(c) as health from domain_health_checks c where c.domain_id = d.id order by c.checked_at desc, c.id desc limit 1
  ) h on true`;

type Joined = SendingDomainRow & { health: (Omit<HealthCheckRow, "checked_at"> & { checked_at: string }) | null };

function withHealth(r: Joined): DomainWithHealth {
  return { ...r, health: r.health ? { ...r.health, checked_at: new Date(r.health.checked_at) } : null };
}

export async function findDomain(scope: Scope, id: string): Promise<DomainWithHealth | null> {
  if (!isUuid(id)) return null;
  const [row] = await sql<Joined[]>`
    select d.*, h.health from sending_domains d ${LATEST_HEALTH}
    where d.id = ${id} and d.tenant_id = ${scope.tenantId} and d.environment = ${scope.environment}`;
  return row ? withHealth(row) : null;
}

/** Any scope's domain, for the health actor (its message names the domain). */
export async function findDomainById(id: string): Promise<SendingDomainRow | null> {
  if (!isUuid(id)) return null;
  const [row] = await sql<SendingDomainRow[]>`select * from sending_domains where id = ${id}`;
  return row ?? null;
}

/** Locks the row: verification and health checks of one domain take turns. */
export async function lockDomain(tx: Tx, id: string, scope?: Scope): Promise<SendingDomainRow | null> {
  if (!isUuid(id)) return null;
  const [row] = await tx<SendingDomainRow[]>`
    select * from sending_domains where id = ${id}
      ${scope ? tx`and tenant_id = ${scope.tenantId} and environment = ${scope.environment}` : tx``}
    for update`;
  return row ?? null;
}

/** Newest first, `limit + 1` rows after the cursor's id (store/cursor.ts pageOf). */
export async function listDomains(scope: Scope, q: { limit: number; afterId: string | null }): Promise<DomainWithHealth[]> {
  const rows = await sql<Joined[]>`
    select d.*, h.health from sending_domains d ${LATEST_HEALTH}
    where d.tenant_id = ${scope.tenantId} and d.environment = ${scope.environment}
      ${q.afterId ? sql`and d.id < ${q.afterId}` : sql``}
    order by d.id desc
    limit ${q.limit + 1}`;
  return rows.map(withHealth);
}

export async function deleteDomain(tx: Tx, scope: Scope, id: string): Promise<SendingDomainRow | null> {
  if (!isUuid(id)) return null;
  const [row] = await tx<SendingDomainRow[]>`
    delete from sending_domains where id = ${id} and tenant_id = ${scope.tenantId} and environment = ${scope.environment}
    returning *`;
  return row ?? null;
}

/** pending -> verified; false when it was verified already (a concurrent verify won). */
export async function markVerified(tx: Tx, id: string): Promise<boolean> {
  const rows = await tx`
    update sending_domains set status = 'verified', verified_at = now(), verification_error = null, updated_at = now()
    where id = ${id} and status = 'pending' returning id`;
  return rows.length === 1;
}

export async function setVerificationError(tx: Tx, id: string, message: string): Promise<void> {
  await tx`update sending_domains set verification_error = ${message}, updated_at = now() where id = ${id} and status = 'pending'`;
}

export async function setBlockOnFailure(scope: Scope, id: string, value: boolean): Promise<boolean> {
  if (!isUuid(id)) return false;
  const rows = await sql`
    update sending_domains set block_on_failure = ${value}, updated_at = now()
    where id = ${id} and tenant_id = ${scope.tenantId} and environment = ${scope.environment} returning id`;
  return rows.length === 1;
}

export async function latestHealth(tx: Tx, domainId: string): Promise<HealthCheckRow | null> {
  const [row] = await tx<HealthCheckRow[]>`
    select * from domain_health_checks where domain_id = ${domainId} order by checked_at desc, id desc limit 1`;
  return row ?? null;
}

/** Records a check; null when this domain already has a check of this tick (a repeated tick or message). */
export async function insertHealthCheck(
  tx: Tx,
  c: { domainId: string; tenantId: string; tick: string | null; trigger: HealthCheckRow["trigger"]; spf: CheckResult; dkim: CheckResult; dmarc: CheckResult },
): Promise<HealthCheckRow | null> {
  const [row] = await tx<HealthCheckRow[]>`
    insert into domain_health_checks (id, domain_id, tenant_id, tick, trigger, spf, dkim, dmarc)
    values (${newId()}, ${c.domainId}, ${c.tenantId}, ${c.tick}, ${c.trigger}, ${tx.json(c.spf as any)}, ${tx.json(c.dkim as any)}, ${tx.json(c.dmarc as any)})
    on conflict (domain_id, tick) do nothing
    returning *`;
  return row ?? null;
}

/** Whether this domain already has a check of this tick (so the handler skips the DNS lookups). */
export async function hasCheckOfTick(domainId: string, tick: string): Promise<boolean> {
  const rows = await sql`select 1 from domain_health_checks where domain_id = ${domainId} and tick = ${tick}`;
  return rows.length > 0;
}

/** Health history is kept this long (the cron prunes it). */
export async function pruneHealthChecks(olderThanDays: number): Promise<number> {
  const rows = await sql`delete from domain_health_checks where checked_at < now() - ${`${olderThanDays} days`}::interval returning 1`;
  return rows.length;
}

/** Verified domains after `afterId` in id order, for the cron's walk. */
export async function verifiedDomainsAfter(afterId: string | null, limit: number): Promise<Pick<SendingDomainRow, "id" | "tenant_id" | "environment">[]> {
  return await sql<Pick<SendingDomainRow, "id" | "tenant_id" | "environment">[]>`
    select id, tenant_id, environment from sending_domains
    where status = 'verified' ${afterId ? sql`and id > ${afterId}` : sql``}
    order by id limit ${limit}`;
}

/** Verified domains of a scope with their latest check statuses, for the channel sender (domain/sending-domains/mail-signing.ts caches it). */
export async function verifiedDomainsOf(scope: Scope): Promise<DomainWithHealth[]> {
  const rows = await sql<Joined[]>`
    select d.*, h.health from sending_domains d ${LATEST_HEALTH}
    where d.tenant_id = ${scope.tenantId} and d.environment = ${scope.environment} and d.status = 'verified'`;
  return rows.map(withHealth);
}

// ---------------------------------------------------------------------------------------------
// Alerts

export async function openAlerts(tx: Tx, domainId: string): Promise<AlertRow[]> {
  return await tx<AlertRow[]>`select * from domain_alerts where domain_id = ${domainId} and resolved_at is null`;
}

export async function raiseAlert(
  tx: Tx,
  a: { domain: Pick<SendingDomainRow, "id" | "tenant_id" | "environment" | "domain">; check: CheckName; status: "fail" | "missing"; message: string },
): Promise<AlertRow | null> {
  const [row] = await tx<AlertRow[]>`
    insert into domain_alerts (id, tenant_id, environment, domain_id, domain, check_name, status, message)
    values (${newId()}, ${a.domain.tenant_id}, ${a.domain.environment}, ${a.domain.id}, ${a.domain.domain}, ${a.check}, ${a.status}, ${a.message})
    on conflict (domain_id, check_name) where resolved_at is null do nothing
    returning *`;
  return row ?? null;
}

export async function resolveAlert(tx: Tx, id: string): Promise<void> {
  await tx`update domain_alerts set resolved_at = now() where id = ${id} and resolved_at is null`;
}

/** Page position of the alert list (open first, then newest first): [open, id] as base64url JSON. */
export interface AlertCursor {
  open: boolean;
  id: string;
}

export function encodeAlertCursor(c: AlertCursor): string {
  return Buffer.from(JSON.stringify([c.open ? 1 : 0, c.id])).toString("base64url");
}

export function decodeAlertCursor(raw: string | undefined): AlertCursor | null {
  if (raw === undefined || raw === "") return null;
  try {
    const [open, id] = JSON.parse(Buffer.from(raw, "base64url").toString("utf8"));
    if ((open !== 0 && open !== 1) || typeof id !== "string" || !isUuid(id)) throw new Error();
    return { open: open === 1, id };
  } catch {
    throw validationFailed({ cursor: ["is not a valid cursor"] });
  }
}

/** Open alerts first, newest first within each group; `limit + 1` rows after the cursor. */
export async function listAlerts(scope: Scope, q: { limit: number; cursor: AlertCursor | null; domainId?: string }): Promise<AlertRow[]> {
  const c = q.cursor;
  // (open desc, id desc) after (c.open, c.id): later in the same group, or any row of the resolved group after the open one
  const after = c ? (c.open ? sql`and ((resolved_at is null and id < ${c.id}) or resolved_at is not null)` : sql`and resolved_at is not null and id < ${c.id}`) : sql``;
  return await sql<AlertRow[]>`
    select * from domain_alerts
    where tenant_id = ${scope.tenantId} and environment = ${scope.environment}
      ${q.domainId ? sql`and domain_id = ${q.domainId}` : sql``}
      ${after}
    order by (resolved_at is null) desc, id desc
    limit ${q.limit + 1}`;
}
