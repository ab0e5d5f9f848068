// The circuit breaker's state in Redis (one hash per configured provider entry, redisKeys.circuit), shared
// by every sender process and changed only by three Lua scripts, one per transition; rules are domain/routing/.
import { redis } from "./redis";
import { redisKeys } from "./redis-keys";

export type CircuitState = "closed" | "open" | "half_open";

/** Which circuit: one configured provider entry of a tenant's channel. */
export interface CircuitRef {
  tenantId: string;
  environment: string;
  channel: string;
  entryId: string;
  provider: string;
}

export interface CircuitSettings {
  consecutiveFailures: number;
  errorRate: number;
  minCalls: number;
  windowMs: number;
  cooldownMs: number;
  probeTimeoutMs: number;
}

/** A closed circuit's hash is forgotten a day after its last call. */
const TTL_MS = 86_400_000;

const NOW = `local t = redis.call('TIME'); local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)`;

/**
 * open -> half_open: may a call go through this entry now? closed: yes; open within its cool-down:
 * no; open past it (or half_open whose probe went unanswered for probeTimeoutMs): yes, as the one
 * probe (probe_until marks it taken). Returns {verdict, opened_at, now}.
 * ARGV: cooldownMs, probeTimeoutMs
 */
const ADMIT = `
local k = KEYS[1]
local st = redis.call('HGET', k, 'state')
if not st or st == 'closed' then return {'closed', 0, 0} end
${NOW}
local opened = tonumber(redis.call('HGET', k, 'opened_at') or '0')
if st == 'open' and now - opened < tonumber(ARGV[1]) then return {'open', opened, now} end
if st == 'half_open' and now < tonumber(redis.call('HGET', k, 'probe_until') or '0') then return {'open', opened, now} end
redis.call('HSET', k, 'state', 'half_open', 'probe_until', now + tonumber(ARGV[2]))
return {'probe', opened, now}
`;

/**
 * half_open -> closed: an answered call. A probe's success closes the circuit (counters reset, returns
 * 'closed'); in a closed circuit it ends the run of failures and counts in the window ('ok'); an open
 * circuit ignores answers to calls made before it opened ('open').
 * ARGV: windowMs, ttlMs
 */
const SUCCESS = `
local k = KEYS[1]
local st = redis.call('HGET', k, 'state')
${NOW}
if st == 'open' then return 'open' end
if st == 'half_open' then
  redis.call('HSET', k, 'state', 'closed', 'fails', 0, 'wstart', now, 'wcalls', 0, 'werrs', 0, 'probe_until', 0, 'closed_at', now)
  redis.call('PEXPIRE', k, ARGV[2])
  return 'closed'
end
local ws = tonumber(redis.call('HGET', k, 'wstart') or '0')
if now - ws >= tonumber(ARGV[1]) then
  redis.call('HSET', k, 'state', 'closed', 'fails', 0, 'wstart', now, 'wcalls', 1, 'werrs', 0)
else
  redis.call('HSET', k, 'fails', 0)
  redis.call('HINCRBY', k, 'wcalls', 1)
end
redis.call('PEXPIRE', k, ARGV[2])
return 'ok'
`;

/**
 * closed|half_open -> open: a failure the provider is to blame for. A failed probe opens the circuit
 * again; a closed circuit opens after consecutiveFailures in a row, or when more than errorRate of at
 * least minCalls calls in the window failed. Returns {'opened'|'open'|'closed', fails, opened_at}.
 * ARGV: windowMs, consecutiveFailures, minCalls, errorRate, ttlMs, error text, provider
 */
const FAILURE = `
local k = KEYS[1]
local st = redis.call('HGET', k, 'state') or 'closed'
${NOW}
redis.call('HSET', k, 'last_error', ARGV[6], 'provider', ARGV[7])
redis.call('PEXPIRE', k, ARGV[5])
local fails = redis.call('HINCRBY', k, 'fails', 1)
if st == 'open' then return {'open', fails, tonumber(redis.call('HGET', k, 'opened_at') or '0')} end
if st == 'half_open' then
  redis.call('HSET', k, 'state', 'open', 'opened_at', now, 'probe_until', 0)
  return {'opened', fails, now}
end
local ws = tonumber(redis.call('HGET', k, 'wstart') or '0')
local calls, errs
if now - ws >= tonumber(ARGV[1]) then
  redis.call('HSET', k, 'state', 'closed', 'wstart', now, 'wcalls', 1, 'werrs', 1)
  calls, errs = 1, 1
else
  calls = redis.call('HINCRBY', k, 'wcalls', 1)
  errs = redis.call('HINCRBY', k, 'werrs', 1)
end
if fails >= tonumber(ARGV[2]) or (calls >= tonumber(ARGV[3]) and errs / calls > tonumber(ARGV[4])) then
  redis.call('HSET', k, 'state', 'open', 'opened_at', now, 'probe_until', 0)
  return {'opened', fails, now}
end
return {'closed', fails, 0}
`;

type Scripted = typeof redis & {
  nmsCircuitAdmit(key: string, cooldownMs: number, probeTimeoutMs: number): Promise<[string, number, number]>;
  nmsCircuitSuccess(key: string, windowMs: number, ttlMs: number): Promise<string>;
  nmsCircuitFailure(key: string, windowMs: number, consecutive: number, minCalls: number, errorRate: number, ttlMs: number, error: string, provider: string): Promise<[string, number, number]>;
};

let scripted: Scripted | null = null;
function scripts(): Scripted {
  if (!scripted) {
    redis.defineCommand("nmsCircuitAdmit", { numberOfKeys: 1, lua: ADMIT });
    redis.defineCommand("nmsCircuitSuccess", { numberOfKeys: 1, lua: SUCCESS });
    redis.defineCommand("nmsCircuitFailure", { numberOfKeys: 1, lua: FAILURE });
    scripted = redis as Scripted;
  }
  return scripted;
}

const keyOf = (c: CircuitRef) => redisKeys.circuit(c.tenantId, c.environment, c.channel, c.entryId);

export type Admission = { verdict: "closed" | "probe" | "open"; openedAtMs: number; nowMs: number };

export async function admitCall(c: CircuitRef, s: CircuitSettings): Promise<Admission> {
  const [verdict, openedAt, now] = await scripts().nmsCircuitAdmit(keyOf(c), s.cooldownMs, s.probeTimeoutMs);
  return { verdict: verdict as Admission["verdict"], openedAtMs: Number(openedAt), nowMs: Number(now) };
}

/** 'closed' when this success closed a half-open circuit. */
export async function recordCircuitSuccess(c: CircuitRef, s: CircuitSettings): Promise<"closed" | "ok" | "open"> {
  return (await scripts().nmsCircuitSuccess(keyOf(c), s.windowMs, TTL_MS)) as "closed" | "ok" | "open";
}

/** 'opened' when this failure opened the circuit. */
export async function recordCircuitFailure(c: CircuitRef, s: CircuitSettings, error: string): Promise<{ result: "opened" | "open" | "closed"; failures: number; openedAtMs: number }> {
  const [result, fails, openedAt] = await scripts().nmsCircuitFailure(keyOf(c), s.windowMs, s.consecutiveFailures, s.minCalls, s.errorRate, TTL_MS, error.slice(0, 300), c.provider);
  return { result: result as "opened" | "open" | "closed", failures: Number(fails), openedAtMs: Number(openedAt) };
}

export interface CircuitView {
  state: CircuitState;
  openedAtMs: number | null;
  failures: number;
  lastError: string | null;
}

/** The circuits of several entries as GET /v1/channels/:channel shows them (no hash: closed, no failures). */
export async function readCircuits(refs: CircuitRef[]): Promise<CircuitView[]> {
  return Promise.all(
    refs.map(async (c) => {
      const h = await redis.hgetall(keyOf(c));
      const state = (h.state === "open" || h.state === "half_open" ? h.state : "closed") as CircuitState;
      const opened = Number(h.opened_at);
      return {
        state,
        openedAtMs: state !== "closed" && opened > 0 ? opened : null,
        failures: Number(h.fails ?? 0) || 0,
        lastError: h.last_error || null,
      };
    }),
  );
}
