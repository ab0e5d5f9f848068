// Creates a perf tenant and a sandbox secret key on the service; prints the raw key on stdout.
//   BASE_URL=... ADMIN_TOKEN=... bun bootstrap.ts
// 1. POST /api/internal/tenants {name} (admin bearer) -> data.api_key (string, or object with key/raw_key)
// 2. POST /v1/api-keys {key_type: "secret", label: "perf", environment: "sandbox"} -> data.raw_key
// In sandbox an unconfigured channel delivers through the built-in sandbox provider (DESIGN.md 6),
// so no channel setup is needed. Diagnostics go to stderr; exit 1 on any failure.
const base = (process.env.BASE_URL ?? "").replace(/\/+$/, "");
const admin = process.env.ADMIN_TOKEN ?? "";
if (!base || !admin) fail("BASE_URL and ADMIN_TOKEN must be set");

function fail(msg: string): never {
  console.error(`bootstrap: ${msg}`);
  process.exit(1);
}

async function post(path: string, key: string, body: unknown) {
  let res: Response;
  try {
    res = await fetch(base + path, {
      method: "POST",
      headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(15_000),
    });
  } catch (e: any) {
    fail(`POST ${path}: ${e?.name ?? "error"} ${e?.message ?? e}`);
  }
  const text = await res.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  if (res.status < 200 || res.status > 299) fail(`POST ${path}: HTTP ${res.status} ${text.slice(0, 300)}`);
  return { json, text };
}

function keyOf(v: any): string | undefined {
  if (typeof v === "string") return v;
  if (v && typeof v === "object") for (const f of ["key", "raw_key", "secret", "token", "value"]) if (typeof v[f] === "string") return v[f];
  return undefined;
}

const name = `perf-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 6)}`;
const tenant = await post("/api/internal/tenants", admin, { name });
const liveKey = keyOf(tenant.json?.data?.api_key);
if (!liveKey) fail(`POST /api/internal/tenants: no data.api_key in ${tenant.text.slice(0, 300)}`);

const created = await post("/v1/api-keys", liveKey, { key_type: "secret", label: "perf", environment: "sandbox" });
const raw = created.json?.data?.raw_key;
if (typeof raw !== "string" || !raw) fail(`POST /v1/api-keys: no data.raw_key in ${created.text.slice(0, 300)}`);

console.error(`bootstrap: tenant ${name}, sandbox secret key ${raw.slice(0, 12)}…`);
console.log(raw);
export {};
