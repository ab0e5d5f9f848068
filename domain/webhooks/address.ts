// Where a webhook may be sent (SSRF protection): URL rules, the address ranges refused (ipaddr.js),
// and DNS resolution through the configured resolver, whose checked answer is what delivery connects to.
import { lookup } from "node:dns/promises";
import * as ipaddr from "ipaddr.js";
import { config } from "../../config";
import { MAX_URL_LENGTH } from "../../schemas/webhooks";
import { resolverFor } from "../dns/lookup";

/**
 * Ranges (ipaddr.js `range()`) never connected to, even with WEBHOOK_ALLOW_PRIVATE: no receiver
 * listens on them. Everything else that is not `unicast` (loopback, private, linkLocal,
 * uniqueLocal, carrierGradeNat, reserved, and the IPv6 forms that embed an IPv4 address: 6to4,
 * teredo, rfc6052 ...) is refused unless WEBHOOK_ALLOW_PRIVATE=true.
 */
const NEVER = new Set(["unspecified", "multicast", "broadcast"]);

export type UrlCheck = { ok: true; url: URL } | { ok: false; message: string };

/** http(s), a host, no credentials, at most MAX_URL_LENGTH characters. The address rules come after. */
export function parseWebhookUrl(raw: string): UrlCheck {
  if (raw.length > MAX_URL_LENGTH) return { ok: false, message: `must be at most ${MAX_URL_LENGTH} characters` };
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, message: "must be an absolute http or https URL" };
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return { ok: false, message: "must use http or https" };
  if (url.username || url.password) return { ok: false, message: "must not carry credentials (user:password@)" };
  if (!url.hostname) return { ok: false, message: "must name a host" };
  return { ok: true, url };
}

/** The URL's host as an IP address, when it is one ("[::1]" -> "::1"), else null. */
export function ipLiteralOf(hostname: string): string | null {
  const bare = hostname.startsWith("[") && hostname.endsWith("]") ? hostname.slice(1, -1) : hostname;
  return ipaddr.isValid(bare) ? bare : null;
}

export type AddressCheck = { ok: true; address: string; family: 4 | 6 } | { ok: false; range: string };

/** Whether delivery may connect to `ip` (IPv4-mapped IPv6 is judged as the IPv4 address it carries). */
export function checkAddress(ip: string, allowPrivate: boolean): AddressCheck {
  let addr: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    addr = ipaddr.process(ip);
  } catch {
    return { ok: false, range: "invalid" };
  }
  const range = addr.range();
  if (range === "unicast" || (allowPrivate && !NEVER.has(range))) {
    return { ok: true, address: addr.toString(), family: addr.kind() === "ipv4" ? 4 : 6 };
  }
  return { ok: false, range };
}

function isLocalhostName(hostname: string): boolean {
  const h = hostname.toLowerCase().replace(/\.$/, "");
  return h === "localhost" || h.endsWith(".localhost");
}

// ---------------------------------------------------------------------------------------------
// Resolution: the resolver of DNS_SERVERS when set (domain/dns/lookup.ts; tests run a local DNS server),
// else the system's (getaddrinfo, so /etc/hosts and `localhost` work in development). Answers are
// cached for their TTL (at most a minute) per server list; every use checks them again.

interface Resolved {
  addresses: string[];
  expiresAt: number;
}

const MAX_CACHED = 10_000;
const DEFAULT_TTL_MS = 30_000;
const cache = new Map<string, Resolved>();

export class DnsError extends Error {
  constructor(
    readonly hostname: string,
    readonly code: string,
  ) {
    super(`${hostname} did not resolve (${code})`);
    this.name = "DnsError";
  }
}

async function resolveFresh(hostname: string, servers: string[]): Promise<Resolved> {
  if (servers.length === 0) {
    try {
      const all = await lookup(hostname, { all: true, verbatim: true });
      return { addresses: all.map((a) => a.address), expiresAt: Date.now() + DEFAULT_TTL_MS };
    } catch (err) {
      throw new DnsError(hostname, String((err as { code?: string }).code ?? "ERESOLVE"));
    }
  }
  const r = resolverFor(servers);
  const [v4, v6] = await Promise.allSettled([r.resolve4(hostname, { ttl: true }), r.resolve6(hostname, { ttl: true })]);
  const answers = [...(v4.status === "fulfilled" ? v4.value : []), ...(v6.status === "fulfilled" ? v6.value : [])];
  if (answers.length === 0) {
    const failed = [v4, v6].find((s) => s.status === "rejected") as PromiseRejectedResult | undefined;
    throw new DnsError(hostname, String((failed?.reason as { code?: string })?.code ?? "ENODATA"));
  }
  const ttlMs = Math.min(60_000, ...answers.map((a) => a.ttl * 1000));
  return { addresses: answers.map((a) => a.address), expiresAt: Date.now() + ttlMs };
}

/** Every address `hostname` resolves to now (an IP literal resolves to itself). Throws DnsError. */
export async function resolveHost(hostname: string): Promise<string[]> {
  const literal = ipLiteralOf(hostname);
  if (literal) return [literal];
  const servers = config.dnsServers;
  const name = hostname.toLowerCase();
  const key = `${servers.join(",")}|${name}`;
  const hit = cache.get(key);
  if (hit && hit.expiresAt > Date.now()) return hit.addresses;
  const fresh = await resolveFresh(name, servers);
  if (cache.size >= MAX_CACHED) cache.clear();
  if (fresh.expiresAt > Date.now()) cache.set(key, fresh);
  return fresh.addresses;
}

export type TargetCheck =
  | { ok: true; address: string; family: 4 | 6 }
  | { ok: false; code: "address_not_allowed" | "dns_error"; message: string };

/**
 * The address delivery connects to: every address the host resolves to must be allowed (a name
 * that mixes a public and a private answer is refused), and the first IPv4 one (else IPv6) is used.
 */
export async function pickTarget(hostname: string, allowPrivate: boolean): Promise<TargetCheck> {
  if (!allowPrivate && isLocalhostName(hostname)) {
    return { ok: false, code: "address_not_allowed", message: `${hostname} is a loopback name` };
  }
  let addresses: string[];
  try {
    addresses = await resolveHost(hostname);
  } catch (err) {
    return { ok: false, code: "dns_error", message: err instanceof DnsError ? err.message : `${hostname} did not resolve` };
  }
  const checks = addresses.map((a) => [a, checkAddress(a, allowPrivate)] as const);
  const refused = checks.find(([, c]) => !c.ok);
  if (refused) {
    const range = (refused[1] as { range: string }).range;
    return { ok: false, code: "address_not_allowed", message: `${hostname} resolves to ${refused[0]} (${range}), which receivers may not use` };
  }
  const ok = checks.map(([, c]) => c as Extract<AddressCheck, { ok: true }>);
  return ok.find((c) => c.family === 4) ?? ok[0]!;
}

/**
 * The create/update check of a receiver URL: the URL rules, then the address rules for an IP
 * literal or a name that resolves now. A name that does not resolve yet is accepted (delivery
 * resolves and checks again on every attempt); one that resolves to a refused address is not.
 * Returns an error message for the field, or null.
 */
export async function urlProblem(raw: string, allowPrivate: boolean = config.webhookAllowPrivate): Promise<string | null> {
  const parsed = parseWebhookUrl(raw);
  if (!parsed.ok) return parsed.message;
  const target = await pickTarget(parsed.url.hostname, allowPrivate);
  if (target.ok) return null;
  if (target.code === "dns_error") return null;
  const problem = `must not point at a loopback, private, link-local, multicast or unspecified address: ${target.message}`;
  // the setting that allows it, for a developer whose receiver runs on their own machine
  return allowPrivate ? problem : `${problem}. A service run for development or tests can allow private and loopback receivers with WEBHOOK_ALLOW_PRIVATE=true`;
}
