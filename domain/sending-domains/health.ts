// Health of a sending domain (DESIGN.md 6): SPF, DKIM and DMARC looked up and judged pass, fail or
// missing; each check stored with the alerts it raises (pass -> not pass) or resolves; the forced check's limit.
import { AppError } from "../../basics/errors";
import { logger } from "../../basics/log";
import { CHECK_NAMES } from "../../schemas/domains";
import { domainCheckMessage, domainHealthAddress } from "./domain-health-mail";
import { sql, type Scope, type Tx } from "../../store/db";
import { rateLimitNames } from "../../store/redis-keys";
import { getRuntime } from "../../store/runtime-handle";
import {
  findDomain,
  findDomainById,
  hasCheckOfTick,
  insertHealthCheck,
  latestHealth,
  lockDomain,
  openAlerts,
  raiseAlert,
  resolveAlert,
  verifiedDomainsAfter,
  type AlertRow,
  type CheckResult,
  type HealthCheckRow,
  type SendingDomainRow,
} from "../../store/sending-domains";
import { config } from "../../config";
import { DnsUnavailableError, lookupTxt, type TxtAnswer } from "../dns/lookup";
import { dkimName, organizationalDomain } from "./records";
import { forgetSigningDomains } from "./mail-signing";

export interface HealthResults {
  spf: CheckResult;
  dkim: CheckResult;
  dmarc: CheckResult;
}

export const domainNotFound = () => new AppError("domain_not_found", "Domain not found");

/** SPEC Limits: one forced check per minute per domain. */
export const FORCED_CHECK_PERIOD_MS = 60_000;

const fault = (answer: TxtAnswer): CheckResult | null => (answer.error ? { status: "fail", record: null, message: answer.error } : null);

/** `k=v; k=v` tags (DKIM, DMARC), names lower-cased, values trimmed. */
export function tagsOf(record: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of record.split(";")) {
    const eq = part.indexOf("=");
    if (eq <= 0) continue;
    out[part.slice(0, eq).trim().toLowerCase()] = part.slice(eq + 1).trim();
  }
  return out;
}

/** SPF: exactly one `v=spf1` record at the domain, carrying `include:<SPF_INCLUDE>` when one is configured. */
export function judgeSpf(domain: string, answer: TxtAnswer, include: string): CheckResult {
  const spf = answer.records.filter((r) => /^v=spf1(\s|$)/i.test(r.trim()));
  if (!spf.length) return fault(answer) ?? { status: "missing", record: null, message: `no SPF record (TXT "v=spf1 ...") at ${domain}` };
  if (spf.length > 1) return { status: "fail", record: spf.join(" | "), message: `${spf.length} SPF records at ${domain}; RFC 7208 allows one (receivers treat this as an error)` };
  const record = spf[0]!.trim();
  if (!include) return { status: "pass", record, message: "SPF record present" };
  const terms = record.toLowerCase().split(/\s+/);
  if (terms.includes(`include:${include}`) || terms.includes(`+include:${include}`)) return { status: "pass", record, message: `SPF record includes include:${include}` };
  return { status: "fail", record, message: `SPF record does not include include:${include}` };
}

/** DKIM: one record at `<selector>._domainkey.<domain>` whose p= is this domain's public key. */
export function judgeDkim(name: string, answer: TxtAnswer, publicKey: string): CheckResult {
  if (!answer.records.length) return fault(answer) ?? { status: "missing", record: null, message: `no DKIM record at ${name}` };
  if (answer.records.length > 1) return { status: "fail", record: answer.records.join(" | "), message: `${answer.records.length} TXT records at ${name}; publish exactly one` };
  const record = answer.records[0]!.trim();
  const tags = tagsOf(record);
  if (tags.v !== undefined && tags.v !== "DKIM1") return { status: "fail", record, message: `DKIM record at ${name} has v=${tags.v}; expected v=DKIM1` };
  if (tags.k !== undefined && tags.k.toLowerCase() !== "rsa") return { status: "fail", record, message: `DKIM record at ${name} has k=${tags.k}; this domain's key is rsa` };
  const p = (tags.p ?? "").replace(/\s+/g, "");
  if (p === publicKey) return { status: "pass", record, message: "DKIM record matches this domain's key" };
  if (p === "") return { status: "fail", record, message: `DKIM record at ${name} has no key (p= is empty or absent)` };
  return { status: "fail", record, message: `DKIM record at ${name} differs from this domain's key; publish the dns_records.dkim value` };
}

/** DMARC: one `v=DMARC1` record with a policy p=none|quarantine|reject (`via`: found at the organizational domain). */
export function judgeDmarc(name: string, answer: TxtAnswer, via?: string): CheckResult {
  const dmarc = answer.records.filter((r) => /^v=DMARC1\s*(;|$)/i.test(r.trim()));
  if (!dmarc.length) return fault(answer) ?? { status: "missing", record: null, message: `no DMARC record (TXT "v=DMARC1; p=...") at ${name}` };
  if (dmarc.length > 1) return { status: "fail", record: dmarc.join(" | "), message: `${dmarc.length} DMARC records at ${name}; receivers ignore all of them` };
  const record = dmarc[0]!.trim();
  const p = (tagsOf(record).p ?? "").toLowerCase();
  const where = via ? ` (inherited from ${via})` : "";
  if (["none", "quarantine", "reject"].includes(p)) return { status: "pass", record, message: `DMARC policy p=${p}${where}` };
  return { status: "fail", record, message: `DMARC record at ${name} has no valid policy (p=none, quarantine or reject)${where}` };
}

/** The three lookups (outside any transaction); throws DnsUnavailableError when our resolver cannot answer. */
export async function lookUpHealth(row: Pick<SendingDomainRow, "domain" | "dkim_selector" | "dkim_public_key">): Promise<HealthResults> {
  const dkimAt = dkimName(row);
  const org = organizationalDomain(row.domain);
  const [apex, dkim, dmarc] = await Promise.all([
    lookupTxt(row.domain),
    lookupTxt(dkimAt, { joinAll: true }),
    lookupTxt(`_dmarc.${row.domain}`),
  ]);
  let dmarcResult = judgeDmarc(`_dmarc.${row.domain}`, dmarc);
  // RFC 7489 6.6.3: a subdomain without its own record follows its organizational domain's policy
  if (dmarcResult.status === "missing" && org !== row.domain) {
    const inherited = judgeDmarc(`_dmarc.${org}`, await lookupTxt(`_dmarc.${org}`), `_dmarc.${org}`);
    if (inherited.status !== "missing") dmarcResult = inherited;
  }
  return { spf: judgeSpf(row.domain, apex, config.spfInclude), dkim: judgeDkim(dkimAt, dkim, row.dkim_public_key), dmarc: dmarcResult };
}

export interface AlertChanges {
  raised: AlertRow[];
  resolved: AlertRow[];
}

/**
 * Stores a check of a locked domain and moves its alerts: a check that passed last time and does
 * not now raises one; a passing check resolves the open one. Null (and nothing changed) when the
 * domain already has a check of this tick.
 */
export async function recordHealth(
  tx: Tx,
  row: SendingDomainRow,
  results: HealthResults,
  how: { trigger: HealthCheckRow["trigger"]; tick: string | null },
): Promise<{ check: HealthCheckRow; changes: AlertChanges } | null> {
  const previous = await latestHealth(tx, row.id);
  const check = await insertHealthCheck(tx, { domainId: row.id, tenantId: row.tenant_id, tick: how.tick, trigger: how.trigger, ...results });
  if (!check) return null;
  const changes: AlertChanges = { raised: [], resolved: [] };
  const open = await openAlerts(tx, row.id);
  for (const name of CHECK_NAMES) {
    const now = results[name];
    if (now.status === "pass") {
      for (const a of open.filter((a) => a.check_name === name)) {
        await resolveAlert(tx, a.id);
        changes.resolved.push(a);
      }
    } else if (previous?.[name].status === "pass") {
      const raised = await raiseAlert(tx, { domain: row, check: name, status: now.status, message: now.message });
      if (raised) changes.raised.push(raised);
    }
  }
  return { check, changes };
}

/**
 * A check with a failing part is a warn line with the tenant, the domain and what DNS answered for
 * each failing record (TXT records are public, nothing secret in them); a passing check logs nothing.
 */
export function logFailedChecks(row: Pick<SendingDomainRow, "id" | "tenant_id" | "environment" | "domain">, results: HealthResults, trigger: string): void {
  const failing = CHECK_NAMES.filter((name) => results[name].status !== "pass");
  if (failing.length === 0) return;
  logger.warn(
    {
      tenant_id: row.tenant_id,
      environment: row.environment,
      domain_id: row.id,
      domain: row.domain,
      trigger,
      failing: Object.fromEntries(failing.map((name) => [name, results[name]])),
    },
    "sending domain check failed",
  );
}

/** After commit: one log line per alert raised or resolved (on-call searches for these). */
export function logAlertChanges(changes: AlertChanges): void {
  for (const a of changes.raised) {
    logger.warn(
      { alert_id: a.id, domain_id: a.domain_id, domain: a.domain, tenant_id: a.tenant_id, check: a.check_name, status: a.status, message: a.message },
      "sending domain check stopped passing: alert raised",
    );
  }
  for (const a of changes.resolved) {
    logger.info({ alert_id: a.id, domain_id: a.domain_id, domain: a.domain, tenant_id: a.tenant_id, check: a.check_name }, "sending domain check passes again: alert resolved");
  }
}

/**
 * One health check of a domain: lookups, then the check and its alerts in one transaction under
 * the domain's row lock. Null when the domain is gone (or out of `scope`), not verified for a cron
 * check, or already checked in this tick.
 */
export async function checkDomain(
  id: string,
  how: { trigger: HealthCheckRow["trigger"]; tick?: string | null; scope?: Scope },
): Promise<HealthCheckRow | null> {
  const tick = how.tick ?? null;
  const target = how.scope ? await findDomain(how.scope, id) : await findDomainById(id);
  if (!target) return null;
  if (how.trigger === "cron" && target.status !== "verified") return null;
  if (tick && (await hasCheckOfTick(target.id, tick))) return null; // a redelivered message: no second lookup
  const results = await lookUpHealth(target);
  const done = await sql.begin(async (tx) => {
    const locked = await lockDomain(tx, target.id, how.scope);
    return locked ? await recordHealth(tx, locked, results, { trigger: how.trigger, tick }) : null;
  });
  if (!done) return null;
  logFailedChecks(target, results, how.trigger);
  logAlertChanges(done.changes);
  forgetSigningDomains({ tenantId: target.tenant_id, environment: target.environment });
  return done.check;
}

/** POST /v1/domains/:id/health/check: 1 per minute per domain (429 rate_limited with Retry-After). */
export async function forceHealthCheck(scope: Scope, id: string): Promise<HealthCheckRow> {
  const row = await findDomain(scope, id);
  if (!row) throw domainNotFound();
  // Redis trouble lets the check through, as the request rate limit does (http/plugins/rate-limit.ts)
  const limit = await getRuntime()
    .rateLimiter.take(rateLimitNames.domainHealthCheck(row.id), { limit: 1, periodMs: FORCED_CHECK_PERIOD_MS })
    .catch((err) => {
      logger.warn({ err, domain_id: row.id }, "forced-check rate limit unavailable; checking anyway");
      return null;
    });
  if (limit && !limit.allowed) {
    const retry = Math.max(1, Math.ceil(limit.retryAfterMs / 1000));
    throw new AppError("rate_limited", `A domain's health can be checked on demand once per minute; retry in ${retry} s`, undefined, { "retry-after": String(retry) });
  }
  return await checkOrUnavailable(scope, row.id, "forced");
}

/** GET /v1/domains/:id/health: the latest check; a domain never checked is checked now. */
export async function healthOf(scope: Scope, id: string): Promise<HealthCheckRow> {
  const row = await findDomain(scope, id);
  if (!row) throw domainNotFound();
  return row.health ?? (await checkOrUnavailable(scope, row.id, "read"));
}

async function checkOrUnavailable(scope: Scope, id: string, trigger: "forced" | "read"): Promise<HealthCheckRow> {
  try {
    const check = await checkDomain(id, { trigger, scope });
    if (!check) throw domainNotFound(); // removed meanwhile
    return check;
  } catch (err) {
    if (err instanceof DnsUnavailableError) throw new AppError("dns_unavailable", `${err.message}; try again later`);
    throw err;
  }
}

const ENQUEUE_PAGE = 1000;

/** One cron tick: a check message per verified domain, keyed by domain id; returns how many. */
export async function enqueueHealthChecks(tick: string): Promise<number> {
  let after: string | null = null;
  let total = 0;
  for (;;) {
    const rows = await verifiedDomainsAfter(after, ENQUEUE_PAGE);
    if (!rows.length) break;
    await getRuntime().sendMany(
      domainHealthAddress,
      rows.map((r) => domainCheckMessage({ id: r.id, tenantId: r.tenant_id, environment: r.environment }, tick)),
    );
    total += rows.length;
    after = rows[rows.length - 1]!.id;
    if (rows.length < ENQUEUE_PAGE) break;
  }
  return total;
}
