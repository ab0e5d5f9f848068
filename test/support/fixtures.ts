// Test fixtures: each test file creates its own tenants and keys (never truncates shared
// tables), and calls the app in-process through app.handle().
import { buildApp } from "../../http/app";
import { createTenant as createTenantRow } from "../../store/tenants";
import { insertApiKey, type Environment, type KeyType } from "../../store/api-keys";
import { sql } from "../../store/db";

let appSingleton: ReturnType<typeof buildApp> | null = null;
export function app() {
  return (appSingleton ??= buildApp());
}

export const ADMIN_TOKEN = process.env.ADMIN_TOKEN!;

export async function createTenant(name = `t-${crypto.randomUUID().slice(0, 8)}`) {
  const { tenant, apiKey } = await createTenantRow(name);
  const sandbox = await insertApiKey(sql, { tenantId: tenant.id, environment: "sandbox", keyType: "secret", name: "sandbox" });
  return { tenant, secretKey: apiKey.raw, secretKeyId: apiKey.row.id, sandboxKey: sandbox.raw, sandboxKeyId: sandbox.row.id };
}

export async function createKey(
  tenantId: string,
  opts: { environment?: Environment; keyType?: KeyType; permissions?: string[]; allowedIps?: string[] | null } = {},
) {
  const { row, raw } = await insertApiKey(sql, {
    tenantId,
    environment: opts.environment ?? "production",
    keyType: opts.keyType ?? "secret",
    permissions: opts.permissions,
    allowedIps: opts.allowedIps,
  });
  return { id: row.id, raw };
}

export interface CallOptions {
  key?: string;
  body?: unknown;
  rawBody?: string;
  headers?: Record<string, string>;
}

/** Calls the app in-process; returns status, headers and the parsed JSON body (or text). */
export async function call(method: string, path: string, opts: CallOptions = {}) {
  const headers: Record<string, string> = { ...(opts.headers ?? {}) };
  if (opts.key) headers.authorization = `Bearer ${opts.key}`;
  let body: string | undefined;
  if (opts.rawBody !== undefined) body = opts.rawBody;
  else if (opts.body !== undefined) body = JSON.stringify(opts.body);
  if (body !== undefined && !headers["content-type"]) headers["content-type"] = "application/json";
  const res = await app().handle(new Request(`http://localhost${path}`, { method, headers, body }));
  const text = await res.text();
  let json: any = undefined;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, body: json, text };
}

/**
 * Gives a tenant an inactive webhook in both environments, so its notification.* events are stored
 * (the accept and send paths write them only where a webhook can read them: domain/events/outbox.ts).
 * Inactive: nothing is ever sent to it.
 */
export async function listenToEvents(tenantId: string): Promise<void> {
  for (const environment of ["production", "sandbox"]) {
    await sql`insert into webhooks (id, tenant_id, environment, url, events, active, secret_enc)
      values (${crypto.randomUUID()}, ${tenantId}, ${environment}, 'https://listener.invalid/events', ${["notification.created"]}, false, 'unused')`;
  }
}

/** createTenant, with listenToEvents: for tests that read the notification.* events of the events table. */
export async function createListeningTenant(name?: string) {
  const t = await createTenant(name);
  await listenToEvents(t.tenant.id);
  return t;
}
