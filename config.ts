// Process configuration: every environment variable of DESIGN.md section 8, read once.
// Development fills secrets it can generate; production refuses to start without them.
import { randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

function env(name: string): string | undefined {
  const v = process.env[name];
  return v === undefined || v === "" ? undefined : v;
}

function numberEnv(name: string, fallback: number): number {
  const raw = env(name);
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n)) throw new Error(`${name} must be a number, got ${JSON.stringify(raw)}`);
  return n;
}

const nodeEnv = env("NODE_ENV") ?? "development";
const isProduction = nodeEnv === "production";

// Development secrets are generated once and kept in .nms/dev-secrets.json, so restarts and
// every process of the Procfile agree on the admin token and can decrypt stored credentials.
const DEV_SECRETS = join(import.meta.dir, ".nms", "dev-secrets.json");
function devSecrets(): Record<string, string> {
  try {
    return JSON.parse(readFileSync(DEV_SECRETS, "utf8"));
  } catch {
    const fresh = {
      ADMIN_TOKEN: `adm_${randomBytes(24).toString("base64url")}`,
      ENCRYPTION_KEY: randomBytes(32).toString("base64"),
    };
    try {
      mkdirSync(join(import.meta.dir, ".nms"), { recursive: true });
      writeFileSync(DEV_SECRETS, JSON.stringify(fresh, null, 2), { flag: "wx", mode: 0o600 });
      return fresh;
    } catch {
      return JSON.parse(readFileSync(DEV_SECRETS, "utf8")); // another process won the race
    }
  }
}

function secret(name: string): { value: string; generated: boolean } {
  const v = env(name);
  if (v) return { value: v, generated: false };
  if (isProduction) throw new Error(`${name} is required when NODE_ENV=production`);
  return { value: devSecrets()[name]!, generated: true };
}

const adminToken = secret("ADMIN_TOKEN");
const encryptionKeyRaw = secret("ENCRYPTION_KEY");
const encryptionKey = Buffer.from(encryptionKeyRaw.value, "base64");
if (encryptionKey.length !== 32) throw new Error("ENCRYPTION_KEY must be 32 bytes, base64-encoded");

const port = numberEnv("PORT", 3000);

export const config = {
  nodeEnv,
  isProduction,
  port,
  databaseUrl: env("DATABASE_URL") ?? "postgres://postgres@127.0.0.1:5432/nms",
  redisUrl: env("REDIS_URL") ?? "redis://127.0.0.1:6379",
  redisPrefix: env("REDIS_PREFIX") ?? "nms",
  adminToken: adminToken.value,
  adminTokenGenerated: adminToken.generated,
  encryptionKey,
  encryptionKeyId: env("ENCRYPTION_KEY_ID") ?? "k1",
  encryptionKeyGenerated: encryptionKeyRaw.generated,
  appUrl: env("APP_URL") ?? `http://localhost:${port}`,
  publicUrl: env("PUBLIC_URL") ?? `http://localhost:${port}`,
  smtpUrl: env("SMTP_URL"),
  timeScale: numberEnv("TIME_SCALE", 1),
  partitions: numberEnv("PARTITIONS", 16),
  rateLimitPerMinute: numberEnv("RATE_LIMIT_PER_MINUTE", 6000),
  webhookAllowPrivate: env("WEBHOOK_ALLOW_PRIVATE") === "true",
  dnsServers: (env("DNS_SERVERS") ?? "").split(",").map((s) => s.trim()).filter(Boolean),
  logLevel: env("LOG_LEVEL") ?? "info",
  trustProxy: (env("TRUST_PROXY") ?? "").split(",").map((s) => s.trim()).filter(Boolean),
  version: "0.1.0",
};

export type Config = typeof config;
