// Authentication behind the access rules (http/plugins/access.ts): resolves the Bearer API key (or the
// dashboard session) into an `auth` context; revocation, expiry, allowed IPs, read-only keys, publishable keys, the rate limit.
import { createHmac, timingSafeEqual } from "node:crypto";
import * as ipaddr from "ipaddr.js";
import { config } from "../../config";
import { sql } from "../../store/db";
import {
  EpochCache,
  hashKey,
  KEY_RE,
  liveKey,
  peekKey,
  touchLastUsed,
  type CachedKey,
  type Environment,
} from "../../store/api-keys";
import { loadInboxAuthFacts, type InboxAuthFacts } from "../../store/allowed-origins";
import { rateLimitNames } from "../../store/redis-keys";
import { AppError, forbidden, unauthorized } from "../../basics/errors";
import { requestFacts } from "../request-context";
import { bearerToken, type AuthContext } from "../auth-context";
import { resolveSession } from "../session";
import { applyRateLimit, takeRequest, type RequestBudget } from "./rate-limit";
import { isLocalDevOrigin, setCorsHeaders } from "./cors";

// Routes take the auth context and its helpers from here, beside the plugins that set it.
export { bearerToken, scopeOf, type AuthContext } from "../auth-context";

const MUTATING = new Set(["POST", "PUT", "PATCH", "DELETE"]);

// ---------------------------------------------------------------------------------------------
// allowed_ips: compiled once per cached key row

type IpMatcher = (addr: ipaddr.IPv4 | ipaddr.IPv6) => boolean;
const matchers = new WeakMap<CachedKey, IpMatcher[]>();

function toKind(addr: ipaddr.IPv4 | ipaddr.IPv6, kind: "ipv4" | "ipv6"): ipaddr.IPv4 | ipaddr.IPv6 | null {
  if (addr.kind() === kind) return addr;
  if (kind === "ipv6") return (addr as ipaddr.IPv4).toIPv4MappedAddress();
  const v6 = addr as ipaddr.IPv6;
  return v6.isIPv4MappedAddress() ? v6.toIPv4Address() : null;
}

export function compileAllowedIps(entries: string[]): IpMatcher[] {
  const out: IpMatcher[] = [];
  for (const entry of entries) {
    try {
      if (entry.includes("/")) {
        const [range, bits] = ipaddr.parseCIDR(entry);
        out.push((a) => {
          const c = toKind(a, range.kind());
          return c !== null && (c as any).match(range, bits);
        });
      } else {
        const ip = ipaddr.parse(entry);
        out.push((a) => {
          const c = toKind(a, ip.kind());
          return c !== null && c.toNormalizedString() === ip.toNormalizedString();
        });
      }
    } catch {
      // entries were validated on creation; a bad stored one simply matches nothing
    }
  }
  return out;
}

/** `facts.ip` is read only for a key with allowed_ips (the address costs a system call). */
function ipAllowed(key: CachedKey, facts: { readonly ip: string | null }): boolean {
  if (!key.allowed_ips || key.allowed_ips.length === 0) return true;
  const ip = facts.ip;
  if (!ip) return false;
  let list = matchers.get(key);
  if (!list) matchers.set(key, (list = compileAllowedIps(key.allowed_ips)));
  let addr: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    addr = ipaddr.parse(ip);
  } catch {
    return false;
  }
  return list.some((m) => m(addr));
}

// ---------------------------------------------------------------------------------------------
// Resolution

/**
 * Secret keys have one budget. A publishable key ships inside every end user's browser, so one
 * budget per key would let a single busy page starve all others: it gets one per subscriber.
 */
function rateKey(keyId: string, subscriberExternalId?: string): string {
  return rateLimitNames.apiKey(keyId, subscriberExternalId === undefined ? undefined : hashKey(subscriberExternalId).slice(0, 32));
}

interface Resolved {
  auth: AuthContext;
  epoch: string | null | undefined;
  rate: Promise<RequestBudget | null>;
  ipRefused: boolean;
}

async function resolveKey(request: Request): Promise<Resolved> {
  const raw = bearerToken(request);
  if (!raw || !KEY_RE.test(raw)) throw unauthorized();
  const facts = requestFacts(request);
  // With a cached row the rate-limit call goes out together with the epoch read: one round trip.
  // (allowed_ips never changes on a key, so the cached row can answer the address check here.)
  // Publishable keys are counted per subscriber once the subscriber hash is verified (authenticateSubscriber),
  // so a forged X-Subscriber-Id cannot spend a real subscriber's budget.
  const hash = hashKey(raw); // once per request: the peek and the live look-up share it
  const peeked = peekKey(hash);
  let rate = peeked && peeked.key_type === "secret" && ipAllowed(peeked, facts) ? takeRequest(rateKey(peeked.id), peeked.tenant_id) : null;
  const { key, epoch } = await liveKey(raw, hash);
  if (!key) throw unauthorized();
  // A caller outside allowed_ips may hold a stolen key: it must not spend the owner's budget.
  const ipRefused = !ipAllowed(key, facts);
  if (ipRefused || key.key_type === "publishable") rate = Promise.resolve(null);
  else if (!rate) rate = takeRequest(rateKey(key.id), key.tenant_id);
  if (!ipRefused) touchLastUsed(key.id);
  const auth: AuthContext = {
    tenantId: key.tenant_id,
    environment: key.environment,
    actorType: "api_key",
    actorId: key.id,
    keyId: key.id,
    keyType: key.key_type,
    keyPrefix: key.prefix,
    permissions: key.permissions as ("read" | "write")[],
    get ip() {
      return facts.ip; // asked of the socket only by the routes that record it (audit entries, consent)
    },
    userAgent: request.headers.get("user-agent"),
  };
  return { auth, epoch, rate, ipRefused };
}

const ipForbidden = () => forbidden("insufficient_permissions", "This key may not be used from this IP address");

/** Key or session -> auth, with the rate limit applied (headers set, 429 thrown). */
async function authenticate(request: Request, set: { headers: Record<string, any> }) {
  const header = request.headers.get("authorization");
  if (header === null || !/^bearer\s/i.test(header.trim() + " ")) {
    // no Bearer credentials: the dashboard session cookie, if any (a stray other scheme is still 401)
    const auth = await resolveSession(request);
    if (!auth) throw unauthorized("Missing API key: send Authorization: Bearer <key>");
    applyRateLimit(set, await takeRequest(rateLimitNames.user(auth.actorId), auth.tenantId));
    return { auth, epoch: undefined as string | null | undefined };
  }
  const r = await resolveKey(request);
  if (r.ipRefused) throw ipForbidden();
  applyRateLimit(set, await r.rate);
  return { auth: r.auth, epoch: r.epoch };
}

function enforceMethod(request: Request, auth: AuthContext): void {
  if (MUTATING.has(request.method.toUpperCase()) && !auth.permissions.includes("write")) {
    throw forbidden("insufficient_permissions", "This key is read-only");
  }
}

function requireWrite(auth: AuthContext): void {
  if (!auth.permissions.includes("write")) throw forbidden("insufficient_permissions", "This key is read-only");
}

function requireSecret(auth: AuthContext): void {
  if (auth.keyType === "publishable") {
    throw forbidden("insufficient_permissions", "Publishable keys may only reach subscriber-scoped inbox routes");
  }
}

/** A read rule still refuses a read-only key on a method that changes state; a write rule always wants write. */
function enforceWrite(request: Request, auth: AuthContext, write: boolean): void {
  if (write) requireWrite(auth);
  else enforceMethod(request, auth);
}

const authByRequest = new WeakMap<Request, AuthContext>();
/** The auth context of a request that passed a key, subscriber or session access rule (for global plugins). */
export function authOf(request: Request): AuthContext | undefined {
  return authByRequest.get(request);
}

/** Remembers who is calling, for authOf (the idempotency plugin, the route's typed `auth`). */
export function rememberAuth(request: Request, auth: AuthContext): AuthContext {
  authByRequest.set(request, auth);
  return auth;
}

/** The secret-read / secret-write rules: a secret API key or a dashboard session. */
export async function authenticateSecret(request: Request, set: { headers: Record<string, any> }, write: boolean): Promise<AuthContext> {
  const { auth } = await authenticate(request, set);
  requireSecret(auth);
  enforceWrite(request, auth, write);
  return rememberAuth(request, auth);
}

// ---------------------------------------------------------------------------------------------
// Publishable keys on the inbox routes

const inboxFacts = new EpochCache<InboxAuthFacts>();

async function factsFor(tenantId: string, environment: Environment, epoch: string | null | undefined) {
  const k = `${tenantId}:${environment}`;
  let f = inboxFacts.get(k, epoch);
  if (!f) {
    f = await loadInboxAuthFacts(tenantId, environment);
    if (!f) throw unauthorized();
    inboxFacts.set(k, f, epoch);
  }
  return f;
}

/** SPEC Authentication 3: developer mode lets localhost/127.0.0.1 on any port through; else exact match. */
export function originAllowed(origin: string | null, facts: { developerMode: boolean; origins: Set<string> }): boolean {
  if (!origin) return false;
  if (facts.developerMode && isLocalDevOrigin(origin)) return true;
  return facts.origins.has(origin);
}

export function subscriberHash(secret: string, externalId: string): string {
  return createHmac("sha256", secret).update(externalId).digest("hex");
}

function hashMatches(expected: string, given: string): boolean {
  const a = Buffer.from(expected, "utf8");
  const b = Buffer.from(given.toLowerCase(), "utf8");
  return a.length === b.length && timingSafeEqual(a, b);
}

/** A publishable key names its subscriber by external id; a path naming another subscriber is refused. */
async function assertOwnSubscriber(auth: AuthContext, pathId: string | undefined): Promise<void> {
  if (pathId === undefined || pathId === auth.subscriberExternalId) return;
  const [row] = await sql<{ id: string }[]>`
    select id from subscribers
    where tenant_id = ${auth.tenantId} and environment = ${auth.environment} and external_id = ${auth.subscriberExternalId!}`;
  if (!row || row.id !== pathId) {
    throw forbidden("insufficient_permissions", "A publishable key may only reach the subscriber named by X-Subscriber-Id");
  }
}

/**
 * The subscriber-read / subscriber-write rules of the subscriber-scoped inbox routes (list, read,
 * read-all, unread-count, preferences, stream): secret keys and sessions as above, plus publishable
 * keys with X-Subscriber-Id / X-Subscriber-Hash and the Origin check (DESIGN.md 5).
 */
export async function authenticateSubscriber(
  request: Request,
  set: { headers: Record<string, any> },
  params: Record<string, string> | undefined,
  write: boolean,
): Promise<AuthContext> {
  const { auth, epoch } = await authenticate(request, set);
  const origin = request.headers.get("origin");
  if (auth.keyType === "publishable") {
    const facts = await factsFor(auth.tenantId, auth.environment, epoch);
    // the refusal is readable by the page (CORS headers on it too), so an embed can show why
    if (origin) setCorsHeaders(set, origin);
    if (!originAllowed(origin, facts)) {
      throw new AppError("origin_not_allowed", "This Origin is not an allowed origin of the publishable key's tenant");
    }
    const externalId = request.headers.get("x-subscriber-id");
    const given = request.headers.get("x-subscriber-hash");
    if (!externalId || !given) {
      throw forbidden(
        "insufficient_permissions",
        "Publishable keys need X-Subscriber-Id and X-Subscriber-Hash = hex HMAC-SHA256(subscriber id, inbox secret)",
      );
    }
    if (!hashMatches(subscriberHash(facts.inboxSecret, externalId), given)) {
      throw forbidden(
        "insufficient_permissions",
        "X-Subscriber-Hash is wrong for this X-Subscriber-Id: it must be the hex HMAC-SHA256 of the subscriber id keyed by this environment's inbox secret",
      );
    }
    auth.subscriberExternalId = externalId;
    applyRateLimit(set, await takeRequest(rateKey(auth.keyId!, externalId), auth.tenantId));
    enforceWrite(request, auth, write);
    await assertOwnSubscriber(auth, params?.id);
  } else {
    if (origin && auth.actorType === "api_key") {
      const facts = await factsFor(auth.tenantId, auth.environment, epoch);
      if (originAllowed(origin, facts)) setCorsHeaders(set, origin);
    }
    enforceWrite(request, auth, write);
  }
  return rememberAuth(request, auth);
}

/** The admin rule: the ADMIN_TOKEN bearer of /api/internal/* and /v1/admin/*. */
export function authenticateAdmin(request: Request): void {
  const token = bearerToken(request);
  if (!token || !timingSafeEqualStr(token, config.adminToken)) {
    throw new AppError("invalid_admin_token", "A valid admin bearer token is required");
  }
}

/** The metrics rule: without METRICS_TOKEN anyone; with it, that Bearer token (invalid_metrics_token 401). */
export function assertMetricsToken(request: Request): void {
  if (!config.metricsToken) return;
  const token = bearerToken(request);
  if (!token || !timingSafeEqualStr(token, config.metricsToken)) {
    throw new AppError("invalid_metrics_token", "GET /metrics wants Authorization: Bearer <METRICS_TOKEN>");
  }
}

export function timingSafeEqualStr(a: string, b: string): boolean {
  const ab = Buffer.from(a);
  const bb = Buffer.from(b);
  if (ab.length !== bb.length) return false;
  return timingSafeEqual(ab, bb);
}
