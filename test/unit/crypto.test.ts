// Unit tests of store/cipher.ts: AES-256-GCM round trip, tamper detection, owner binding (AAD)
// and key rotation (decrypting with a key listed in ENCRYPTION_KEYS_OLD).
import { describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import {
  DecryptionError,
  decryptJson,
  decryptString,
  defaultKeyring,
  encryptJson,
  keyIdOf,
  makeKeyring,
  needsReencryption,
  parseKeyList,
} from "../../store/cipher";

const secret = { account_sid: "AC" + "a".repeat(32), auth_token: "tok_super_secret_value", nested: { n: 1 } };

function flip(b64: string): string {
  const buf = Buffer.from(b64, "base64");
  buf[0] = buf[0]! ^ 0x01;
  return buf.toString("base64");
}

describe("encryptJson / decryptJson", () => {
  test("round trip with the configured key; format v1:<keyId>:<iv>:<tag>:<ciphertext>", () => {
    const text = encryptJson(secret);
    const parts = text.split(":");
    expect(parts.length).toBe(5);
    expect(parts[0]).toBe("v1");
    expect(parts[1]).toBe(defaultKeyring().currentKeyId);
    expect(Buffer.from(parts[2]!, "base64").length).toBe(12);
    expect(Buffer.from(parts[3]!, "base64").length).toBe(16);
    expect(decryptJson(text)).toEqual(secret);
  });

  test("the plaintext does not appear in the ciphertext, and each encryption uses a fresh IV", () => {
    const a = encryptJson(secret);
    const b = encryptJson(secret);
    expect(a).not.toBe(b);
    expect(a).not.toContain("tok_super_secret_value");
    expect(Buffer.from(a.split(":")[4]!, "base64").toString("utf8")).not.toContain("tok_super_secret_value");
  });

  test("tampering with the ciphertext, the tag or the iv is detected", () => {
    const text = encryptJson(secret);
    const [v, id, iv, tag, ct] = text.split(":") as [string, string, string, string, string];
    for (const bad of [
      [v, id, iv, tag, flip(ct)],
      [v, id, iv, flip(tag), ct],
      [v, id, flip(iv), tag, ct],
    ]) {
      expect(() => decryptJson(bad.join(":"))).toThrow(DecryptionError);
    }
  });

  test("malformed input and unknown key ids are DecryptionErrors", () => {
    expect(() => decryptJson("not encrypted")).toThrow(DecryptionError);
    expect(() => decryptJson("v2:k:a:b:c")).toThrow(DecryptionError);
    const text = encryptJson(secret).split(":");
    text[1] = "nope";
    expect(() => decryptJson(text.join(":"))).toThrow("no encryption key with id 'nope'");
  });

  test("a ciphertext bound to one owner (AAD) does not decrypt for another", () => {
    const text = encryptJson(secret, "tenant-a:production:sms");
    expect(decryptJson(text, "tenant-a:production:sms")).toEqual(secret);
    expect(() => decryptJson(text, "tenant-b:production:sms")).toThrow(DecryptionError);
    expect(() => decryptJson(text)).toThrow(DecryptionError);
  });

  test("error messages never contain the plaintext or key material", () => {
    const ring = defaultKeyring();
    const text = encryptJson(secret);
    try {
      decryptJson(text, "other-owner");
      throw new Error("should have failed");
    } catch (err) {
      const msg = String((err as Error).message);
      expect(msg).not.toContain("tok_super_secret_value");
      expect(msg).not.toContain(ring.keys.get(ring.currentKeyId)!.toString("base64"));
    }
  });
});

describe("key rotation", () => {
  const oldKey = randomBytes(32);
  const newKey = randomBytes(32);
  const oldRing = makeKeyring({ id: "k2025", key: oldKey });
  const newRing = makeKeyring({ id: "k2026", key: newKey }, parseKeyList(`k2025:${oldKey.toString("base64")}`));

  test("values written under an old key still decrypt once that key is listed as old", () => {
    const text = encryptJson(secret, "owner", oldRing);
    expect(keyIdOf(text)).toBe("k2025");
    expect(decryptJson(text, "owner", newRing)).toEqual(secret);
    expect(needsReencryption(text, newRing)).toBe(true);
  });

  test("new values are written under the current key", () => {
    const text = encryptJson(secret, "owner", newRing);
    expect(keyIdOf(text)).toBe("k2026");
    expect(needsReencryption(text, newRing)).toBe(false);
    expect(() => decryptJson(text, "owner", oldRing)).toThrow(DecryptionError);
  });

  test("without the old key, old values cannot be read", () => {
    const text = encryptJson(secret, "owner", oldRing);
    const bare = makeKeyring({ id: "k2026", key: newKey });
    expect(() => decryptString(text, "owner", bare)).toThrow("no encryption key with id 'k2025'");
  });

  test("parseKeyList accepts several entries and rejects bad ones", () => {
    const list = parseKeyList(` a:${randomBytes(32).toString("base64")}, b:${randomBytes(32).toString("base64")} `);
    expect([...list.keys()]).toEqual(["a", "b"]);
    expect(parseKeyList(undefined).size).toBe(0);
    expect(() => parseKeyList("a:c2hvcnQ=")).toThrow("32 bytes");
    expect(() => parseKeyList(randomBytes(32).toString("base64"))).toThrow();
  });

  test("ENCRYPTION_KEYS_OLD is read from the environment by the default keyring (fresh process)", async () => {
    const oldB64 = oldKey.toString("base64");
    const ciphertext = encryptJson(secret, "owner", oldRing);
    const script = `import { decryptJson } from ${JSON.stringify(join(import.meta.dir, "../../store/cipher.ts"))};
      console.log(JSON.stringify(decryptJson(process.env.CT, "owner")));`;
    const proc = Bun.spawn([process.execPath, "-e", script], {
      cwd: join(import.meta.dir, "../.."),
      env: {
        ...process.env,
        ENCRYPTION_KEY: newKey.toString("base64"),
        ENCRYPTION_KEY_ID: "k2026",
        ENCRYPTION_KEYS_OLD: `k2025:${oldB64}`,
        CT: ciphertext,
      },
      stdout: "pipe",
      stderr: "pipe",
    });
    const out = await new Response(proc.stdout).text();
    expect(await proc.exited).toBe(0);
    expect(JSON.parse(out.trim())).toEqual(secret);
  });
});
