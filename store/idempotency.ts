// Idempotency records in Redis: one key per (tenant, environment, method, path, Idempotency-Key)
// holding either an in-flight lock or the stored first response for 24 hours.
import { createHash } from "node:crypto";
import { redis } from "./redis";
import { redisKeys } from "./redis-keys";

export const RETENTION_SECONDS = 24 * 60 * 60;
/** A crashed process must not hold a key forever; a request running longer than this loses its lock. */
export const LOCK_MS = 120_000;

export interface Scope {
  tenantId: string;
  environment: string;
  method: string;
  path: string;
  key: string;
}

/** p: first request running; c: it finished and its bytes are being written; d: stored response. */
export type IdemRecord =
  | { s: "p" | "c"; h: string; t: string }
  | { s: "d"; h: string; st: number; b: string; hd: Record<string, string> };

export function scopeKey(s: Scope): string {
  // the client's key is hashed so any byte sequence is a safe Redis key part
  const digest = createHash("sha256")
    .update(JSON.stringify([s.tenantId, s.environment, s.method, s.path, s.key]))
    .digest("hex");
  return redisKeys.idempotency(s.tenantId, digest);
}

export function bodyHash(raw: string): string {
  return createHash("sha256").update(raw).digest("hex");
}

/** Takes the lock when nothing is stored; otherwise returns what is there. */
export async function claim(key: string, hash: string, token: string): Promise<{ claimed: true } | { claimed: false; record: IdemRecord | null }> {
  const ok = await redis.set(key, JSON.stringify({ s: "p", h: hash, t: token }), "PX", LOCK_MS, "NX");
  if (ok === "OK") return { claimed: true };
  return { claimed: false, record: await read(key) };
}

export async function read(key: string): Promise<IdemRecord | null> {
  const raw = await redis.get(key);
  return raw ? (JSON.parse(raw) as IdemRecord) : null;
}

// Compare-and-set on the lock token so a request whose lock expired cannot overwrite a newer owner.
const SWAP = `
local cur = redis.call("GET", KEYS[1])
if not cur then return 0 end
local ok, rec = pcall(cjson.decode, cur)
if not ok or rec["t"] ~= ARGV[1] then return 0 end
if ARGV[2] == "" then redis.call("DEL", KEYS[1]) return 1 end
redis.call("SET", KEYS[1], ARGV[2], "PX", ARGV[3])
return 1`;

export async function markCompleting(key: string, hash: string, token: string): Promise<void> {
  await redis.eval(SWAP, 1, key, token, JSON.stringify({ s: "c", h: hash, t: token }), LOCK_MS);
}

export async function store(key: string, token: string, rec: Extract<IdemRecord, { s: "d" }>): Promise<void> {
  await redis.eval(SWAP, 1, key, token, JSON.stringify({ ...rec, t: token }), RETENTION_SECONDS * 1000);
}

export async function release(key: string, token: string): Promise<void> {
  await redis.eval(SWAP, 1, key, token, "", 0);
}
