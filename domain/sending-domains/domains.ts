// Sending domains (SPEC "Sending domain", DESIGN.md 6): the name rule, the DNS records a tenant
// publishes, and adding, verifying, changing and removing a domain, each with its audit entry.
import { logger } from "../../basics/log";
import { generateKeyPair, randomBytes } from "node:crypto";
import { promisify } from "node:util";
import { conflict } from "../../basics/errors";
import { writeAudit, type AuditEntry } from "../../store/audit";
import { sql, type Scope } from "../../store/db";
import { newId } from "../../store/ids";
import {
  deleteDomain,
  DomainExistsError,
  findDomain,
  insertDomain,
  lockDomain,
  markVerified,
  setBlockOnFailure,
  setVerificationError,
  type AlertRow,
  type DomainWithHealth,
  type HealthCheckRow,
  type SendingDomainRow,
} from "../../store/sending-domains";
import { iso } from "../../store/time";
import { lookupTxt, DnsUnavailableError } from "../dns/lookup";
import { dnsRecordsOf, parseSendingDomain, verificationName, verificationValue } from "./records";
import { domainNotFound, logAlertChanges, logFailedChecks, lookUpHealth, recordHealth } from "./health";
import { forgetSigningDomains } from "./mail-signing";
import { assertWithinPlan } from "../billing/limits";

const generateKeyPairAsync = promisify(generateKeyPair);

/** Who changes a domain, for its audit entry. */
export type AuditActor = Pick<AuditEntry, "tenantId" | "actorType" | "actorId" | "ip" | "userAgent">;

export function healthView(h: Pick<HealthCheckRow, "checked_at" | "spf" | "dkim" | "dmarc">) {
  return { checked_at: iso(h.checked_at)!, spf: h.spf, dkim: h.dkim, dmarc: h.dmarc };
}

/** The API's domain object (schemas/domains.ts Domain). */
export function domainView(row: DomainWithHealth) {
  return {
    id: row.id,
    domain: row.domain,
    status: row.status,
    dns_records: dnsRecordsOf(row),
    verification_error: row.verification_error,
    verified_at: iso(row.verified_at),
    block_on_failure: row.block_on_failure,
    health: row.health ? healthView(row.health) : null,
    created_at: iso(row.created_at)!,
    updated_at: iso(row.updated_at)!,
  };
}

export function alertView(a: AlertRow) {
  return {
    id: a.id,
    domain_id: a.domain_id,
    domain: a.domain,
    check: a.check_name,
    status: a.status,
    message: a.message,
    created_at: iso(a.created_at)!,
    resolved_at: iso(a.resolved_at),
  };
}

export async function getDomain(scope: Scope, id: string): Promise<DomainWithHealth> {
  const row = await findDomain(scope, id);
  if (!row) throw domainNotFound();
  return row;
}

/** POST /v1/domains: a pending domain with a fresh verification token and DKIM key pair. */
export async function addDomain(scope: Scope, input: string, actor: AuditActor): Promise<DomainWithHealth> {
  const domain = parseSendingDomain(input);
  // RSA 2048: what nodemailer signs with and every receiver verifies (Ed25519 DKIM is not yet universal)
  const { publicKey, privateKey } = await generateKeyPairAsync("rsa", {
    modulusLength: 2048,
    publicKeyEncoding: { type: "spki", format: "der" },
    privateKeyEncoding: { type: "pkcs8", format: "pem" },
  });
  const id = newId();
  try {
    const row = await sql.begin(async (tx) => {
      const row = await insertDomain(tx, scope, {
        id,
        domain,
        verificationToken: randomBytes(16).toString("hex"),
        // a selector per domain record: the same domain in another environment or tenant has its own key
        dkimSelector: `nms-${randomBytes(4).toString("hex")}`,
        dkimPublicKey: (publicKey as Buffer).toString("base64"),
        dkimPrivateKeyPem: privateKey as string,
      });
      await assertWithinPlan(tx, scope, "domains");
      await writeAudit(tx, { ...actor, action: "domain.added", resourceType: "domain", resourceId: row.id, metadata: { domain, status: row.status } });
      return row;
    });
    return { ...row, health: null };
  } catch (err) {
    if (err instanceof DomainExistsError) throw conflict("domain_already_added", `${domain} is already added in this environment`);
    throw err;
  }
}

/** What the verification lookup found, as a sentence for verification_error. */
function verificationFailure(row: SendingDomainRow, found: { records: string[]; error?: string }): string {
  const name = verificationName(row.domain);
  const want = verificationValue(row.verification_token);
  if (found.error) return `could not read ${name}: ${found.error}; publish TXT "${want}"`;
  if (!found.records.length) return `no TXT record found at ${name}; publish TXT "${want}"`;
  const shown = found.records.slice(0, 5).map((r) => JSON.stringify(r.length > 120 ? `${r.slice(0, 120)}...` : r));
  return `TXT records at ${name} are ${shown.join(", ")}${found.records.length > 5 ? " ..." : ""}; none is "${want}"`;
}

/**
 * POST /v1/domains/:id/verify: the TXT record matches -> verified (with a first health check, whose
 * DKIM result is the audit's dkim_verified); otherwise pending with verification_error. A domain
 * verified already is returned as it is.
 */
export async function verifyDomain(scope: Scope, id: string, actor: AuditActor): Promise<DomainWithHealth> {
  const row = await getDomain(scope, id);
  if (row.status === "verified") return row;
  let found: { records: string[]; error?: string };
  try {
    found = await lookupTxt(verificationName(row.domain));
  } catch (err) {
    if (!(err instanceof DnsUnavailableError)) throw err;
    found = { records: [], error: `the lookup failed (${err.code})` };
  }
  const want = verificationValue(row.verification_token);
  if (!found.records.some((r) => r.trim() === want)) {
    const why = verificationFailure(row, found);
    logger.warn(
      { tenant_id: row.tenant_id, environment: row.environment, domain_id: row.id, domain: row.domain, found: found.records, lookup_error: found.error ?? null, verification_error: why },
      "sending domain verification failed",
    );
    await setVerificationError(sql, row.id, why);
    return await getDomain(scope, id);
  }
  // DNS outside the transaction; an unreachable resolver only skips the first health check
  const health = await lookUpHealth(row).catch((err) => {
    if (err instanceof DnsUnavailableError) return null;
    throw err;
  });
  const recorded = await sql.begin(async (tx) => {
    const locked = await lockDomain(tx, row.id, scope);
    if (!locked || !(await markVerified(tx, row.id))) return null; // removed, or a concurrent verify won (and audited)
    const recorded = health ? await recordHealth(tx, locked, health, { trigger: "verify", tick: null }) : null;
    await writeAudit(tx, {
      ...actor,
      action: "domain.verified",
      resourceType: "domain",
      resourceId: row.id,
      metadata: { domain: row.domain, dkim_verified: health?.dkim.status === "pass" },
    });
    return recorded;
  });
  if (health) logFailedChecks(row, health, "verify");
  if (recorded) logAlertChanges(recorded.changes);
  forgetSigningDomains(scope);
  return await getDomain(scope, id);
}

/** DELETE /v1/domains/:id: the domain, its checks and alerts go; mail from it is no longer signed. */
export async function removeDomain(scope: Scope, id: string, actor: AuditActor): Promise<void> {
  const removed = await sql.begin(async (tx) => {
    const row = await deleteDomain(tx, scope, id);
    if (!row) return null;
    await writeAudit(tx, {
      ...actor,
      action: "domain.removed",
      resourceType: "domain",
      resourceId: row.id,
      metadata: { domain: row.domain, was_verified: row.status === "verified" },
    });
    return row;
  });
  if (!removed) throw domainNotFound();
  forgetSigningDomains(scope);
}

/** PATCH /v1/domains/:id {block_on_failure}. */
export async function updateDomain(scope: Scope, id: string, change: { block_on_failure: boolean }): Promise<DomainWithHealth> {
  if (!(await setBlockOnFailure(scope, id, change.block_on_failure))) throw domainNotFound();
  forgetSigningDomains(scope);
  return await getDomain(scope, id);
}
