// API key repository: generation (prefix + base62 secret), SHA-256 hashing, lookup, insert.
// Raw keys exist only in the creation response; the table holds hashes.
import { createHash, randomBytes } from "node:crypto";
import type { Tx } from "./db";
import { newId } from "./ids";

export type Environment = "production" | "sandbox";
export type KeyType = "secret" | "publishable";

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

export function keyPrefixFor(keyType: KeyType, environment: Environment): string {
  return `${keyType === "secret" ? "nk" : "pk"}_${environment === "production" ? "live" : "test"}_`;
}

export function randomBase62(length: number): string {
  // rejection sampling keeps every character equally likely
  let out = "";
  while (out.length < length) {
    for (const b of randomBytes(length * 2)) {
      if (b < 248 && out.length < length) out += BASE62[b % 62];
    }
  }
  return out;
}

export function hashKey(raw: string): string {
  return createHash("sha256").update(raw).digest("hex");
}

export const KEY_RE = /^(nk|pk)_(live|test)_[0-9A-Za-z]{32,64}$/;

export function generateKey(keyType: KeyType, environment: Environment) {
  const raw = keyPrefixFor(keyType, environment) + randomBase62(40);
  return { raw, prefix: raw.slice(0, 12), hash: hashKey(raw) };
}

export interface ApiKeyRow {
  id: string;
  tenant_id: string;
  environment: Environment;
  key_type: KeyType;
  name: string | null;
  label: string | null;
  prefix: string;
  permissions: string[];
  allowed_ips: string[] | null;
  created_at: Date;
  last_used_at: Date | null;
  revoked_at: Date | null;
  revoked_reason: string | null;
  expires_at: Date | null;
}

export async function insertApiKey(
  tx: Tx,
  k: {
    tenantId: string;
    environment: Environment;
    keyType: KeyType;
    name?: string | null;
    label?: string | null;
    permissions?: string[];
    allowedIps?: string[] | null;
    createdByUserId?: string | null;
  },
): Promise<{ row: ApiKeyRow; raw: string }> {
  const { raw, prefix, hash } = generateKey(k.keyType, k.environment);
  const [row] = await tx<ApiKeyRow[]>`
    insert into api_keys (id, tenant_id, environment, key_type, name, label, prefix, key_hash, permissions, allowed_ips, created_by_user_id)
    values (${newId()}, ${k.tenantId}, ${k.environment}, ${k.keyType}, ${k.name ?? null}, ${k.label ?? null}, ${prefix}, ${hash},
            ${k.permissions ?? ["read", "write"]}, ${k.allowedIps ?? null}, ${k.createdByUserId ?? null})
    returning *`;
  return { row: row!, raw };
}

export async function findKeyByHash(tx: Tx, hash: string): Promise<(ApiKeyRow & { key_hash: string }) | undefined> {
  const [row] = await tx<(ApiKeyRow & { key_hash: string })[]>`select * from api_keys where key_hash = ${hash}`;
  return row;
}
