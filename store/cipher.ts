// The credential cipher of the channel store: AES-256-GCM under ENCRYPTION_KEY, with the key id in
// every ciphertext ("v1:<keyId>:<iv>:<tag>:<ciphertext>") so keys can rotate (ENCRYPTION_KEYS_OLD).
import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import { config } from "../config";

const VERSION = "v1";
const IV_BYTES = 12;
const TAG_BYTES = 16;
const KEY_ID_RE = /^[A-Za-z0-9_.-]{1,64}$/;

/** Never carries key material or plaintext in its message. */
export class DecryptionError extends Error {
  constructor(
    message: string,
    readonly keyId?: string,
  ) {
    super(message);
    this.name = "DecryptionError";
  }
}

export interface Keyring {
  currentKeyId: string;
  keys: ReadonlyMap<string, Buffer>;
}

/** "old1:<base64>,old2:<base64>" -> Map; every key must be 32 bytes */
export function parseKeyList(raw: string | undefined): Map<string, Buffer> {
  const keys = new Map<string, Buffer>();
  for (const item of (raw ?? "").split(",").map((s) => s.trim()).filter(Boolean)) {
    const at = item.indexOf(":");
    const id = at > 0 ? item.slice(0, at) : "";
    if (!KEY_ID_RE.test(id)) throw new Error("ENCRYPTION_KEYS_OLD entries must look like <keyId>:<base64 key>");
    const key = Buffer.from(item.slice(at + 1), "base64");
    if (key.length !== 32) throw new Error(`ENCRYPTION_KEYS_OLD key '${id}' must be 32 bytes, base64-encoded`);
    keys.set(id, key);
  }
  return keys;
}

export function makeKeyring(current: { id: string; key: Buffer }, old: Map<string, Buffer> = new Map()): Keyring {
  if (!KEY_ID_RE.test(current.id)) throw new Error("ENCRYPTION_KEY_ID must be 1-64 characters of A-Z a-z 0-9 _ . -");
  if (current.key.length !== 32) throw new Error("ENCRYPTION_KEY must be 32 bytes");
  const keys = new Map(old);
  keys.set(current.id, current.key); // the current key wins over an old entry with the same id
  return { currentKeyId: current.id, keys };
}

let defaultRing: Keyring | null = null;
/** config.encryptionKey / encryptionKeyId plus ENCRYPTION_KEYS_OLD, built on first use */
export function defaultKeyring(): Keyring {
  return (defaultRing ??= makeKeyring(
    { id: config.encryptionKeyId, key: config.encryptionKey },
    parseKeyList(config.encryptionKeysOld),
  ));
}

/**
 * `aad` (additional authenticated data) binds a ciphertext to its owner, e.g.
 * "<tenant>:<environment>:<channel>": copied into another row, it no longer decrypts.
 */
export function encryptString(plaintext: string, aad?: string, ring: Keyring = defaultKeyring()): string {
  const key = ring.keys.get(ring.currentKeyId)!;
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv("aes-256-gcm", key, iv, { authTagLength: TAG_BYTES });
  if (aad !== undefined) cipher.setAAD(Buffer.from(aad, "utf8"));
  const ct = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
  const tag = cipher.getAuthTag();
  return [VERSION, ring.currentKeyId, iv.toString("base64"), tag.toString("base64"), ct.toString("base64")].join(":");
}

export function decryptString(text: string, aad?: string, ring: Keyring = defaultKeyring()): string {
  const parts = typeof text === "string" ? text.split(":") : [];
  if (parts.length !== 5 || parts[0] !== VERSION) throw new DecryptionError("ciphertext is not in the v1 format");
  const [, keyId, ivB64, tagB64, ctB64] = parts as [string, string, string, string, string];
  const key = ring.keys.get(keyId);
  if (!key) throw new DecryptionError(`no encryption key with id '${keyId}' is configured`, keyId);
  const iv = Buffer.from(ivB64, "base64");
  const tag = Buffer.from(tagB64, "base64");
  if (iv.length !== IV_BYTES || tag.length !== TAG_BYTES) throw new DecryptionError("ciphertext is malformed", keyId);
  try {
    const decipher = createDecipheriv("aes-256-gcm", key, iv, { authTagLength: TAG_BYTES });
    if (aad !== undefined) decipher.setAAD(Buffer.from(aad, "utf8"));
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(Buffer.from(ctB64, "base64")), decipher.final()]).toString("utf8");
  } catch {
    throw new DecryptionError("ciphertext failed authentication (tampered, or wrong key or context)", keyId);
  }
}

export function encryptJson(value: unknown, aad?: string, ring?: Keyring): string {
  return encryptString(JSON.stringify(value ?? null), aad, ring);
}

export function decryptJson<T = unknown>(text: string, aad?: string, ring?: Keyring): T {
  return JSON.parse(decryptString(text, aad, ring)) as T;
}

/** key id a ciphertext was made with (null when not v1), e.g. to find rows to re-encrypt */
export function keyIdOf(text: string): string | null {
  const parts = typeof text === "string" ? text.split(":") : [];
  return parts.length === 5 && parts[0] === VERSION ? parts[1]! : null;
}

/** true when the ciphertext was made with a key other than the current one */
export function needsReencryption(text: string, ring: Keyring = defaultKeyring()): boolean {
  return keyIdOf(text) !== ring.currentKeyId;
}
