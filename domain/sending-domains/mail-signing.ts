// What a tenant's verified sending domain means for one email: the DKIM key the smtp provider signs
// with, and, while the domain's DKIM or SPF check fails, a warning on the notification or (with
// block_on_failure) no send at all. The channel sender calls withSendingDomain; domains are cached briefly.
import { logger } from "../../basics/log";
import type { OutboundMessage, SendFailure } from "../../providers/types";
import { emailDomain } from "../../schemas/email";
import type { Scope } from "../../store/db";
import { addNotificationWarning } from "../../store/notifications";
import { openDkimKey, verifiedDomainsOf, type DomainWithHealth } from "../../store/sending-domains";

/**
 * How long a process reuses a scope's verified domains (keys, settings, latest health). Changes made
 * through this process's API forget the entry at once; other processes see them within this time.
 */
export const SIGNING_CACHE_MS = 30_000;

export interface SigningDomain {
  id: string;
  domain: string;
  selector: string;
  privateKey: string;
  blockOnFailure: boolean;
  /** the DKIM and SPF checks that did not pass at the latest health check, e.g. ["dkim: fail"] */
  failing: string[];
}

const cache = new Map<string, { at: number; domains: Promise<SigningDomain[]> }>();
const MAX_CACHED_SCOPES = 10_000;

const keyOf = (scope: Scope) => `${scope.tenantId}:${scope.environment}`;

/** Drops a scope's cached domains (after verify, remove, a setting change or a health check). */
export function forgetSigningDomains(scope: Scope): void {
  cache.delete(keyOf(scope));
}

function toSigning(row: DomainWithHealth): SigningDomain | null {
  let privateKey: string;
  try {
    privateKey = openDkimKey(row);
  } catch (err) {
    // a key sealed under a retired ENCRYPTION_KEY: mail goes out unsigned rather than not at all
    logger.error({ err, domain_id: row.id, domain: row.domain }, "sending domain DKIM key does not decrypt; mail from it is not signed");
    return null;
  }
  const failing = row.health ? (["dkim", "spf"] as const).filter((c) => row.health![c].status !== "pass").map((c) => `${c}: ${row.health![c].status}`) : [];
  return { id: row.id, domain: row.domain, selector: row.dkim_selector, privateKey, blockOnFailure: row.block_on_failure, failing };
}

async function signingDomains(scope: Scope): Promise<SigningDomain[]> {
  const key = keyOf(scope);
  const hit = cache.get(key);
  if (hit && Date.now() - hit.at < SIGNING_CACHE_MS) return hit.domains;
  if (cache.size >= MAX_CACHED_SCOPES) cache.clear();
  const domains = verifiedDomainsOf(scope).then((rows) => rows.map(toSigning).filter((d): d is SigningDomain => d !== null));
  cache.set(key, { at: Date.now(), domains });
  domains.catch(() => cache.delete(key)); // a failed load is not cached
  return domains;
}

/** The verified domain that covers `host`: the same name, or the closest parent (DKIM d= aligns relaxed). */
export function coveringDomain(host: string, domains: readonly SigningDomain[]): SigningDomain | null {
  let best: SigningDomain | null = null;
  for (const d of domains) {
    if ((host === d.domain || host.endsWith(`.${d.domain}`)) && (!best || d.domain.length > best.domain.length)) best = d;
  }
  return best;
}

export type PreparedMessage = { ok: true; message: OutboundMessage } | { ok: false; failure: SendFailure };

/**
 * An email whose From (the channel's `from_email`) is on a verified domain of the tenant carries
 * that domain's DKIM key. While the domain's latest DKIM or SPF check does not pass, the email
 * still goes out with a `domain_unhealthy` warning on the notification, or, when the domain has
 * block_on_failure, is failed (permanent, code domain_unhealthy) instead of sent. Other messages pass unchanged.
 */
export async function withSendingDomain(message: OutboundMessage, settings: Readonly<Record<string, unknown>>): Promise<PreparedMessage> {
  if (message.channel !== "email" || typeof settings.from_email !== "string") return { ok: true, message };
  const host = emailDomain(settings.from_email);
  if (!host) return { ok: true, message };
  const domain = coveringDomain(host, await signingDomains({ tenantId: message.tenantId, environment: message.environment }));
  if (!domain) return { ok: true, message };
  if (domain.failing.length) {
    const why = `${domain.domain} did not pass its latest health check (${domain.failing.join(", ")})`;
    if (domain.blockOnFailure) {
      return { ok: false, failure: { ok: false, retryable: false, error: { code: "domain_unhealthy", message: `${why}; not sent because the domain has block_on_failure` } } };
    }
    await addNotificationWarning(message.notificationId, { code: "domain_unhealthy", message: `${why}; sent anyway, it may land in spam` });
  }
  return { ok: true, message: { ...message, dkim: { domainName: domain.domain, keySelector: domain.selector, privateKey: domain.privateKey } } };
}
