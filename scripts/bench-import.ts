// Benchmark of POST /v1/subscribers/import (issue 5: 1,000 subscribers in under 1 s), measured over
// real HTTP against a bare multi-row INSERT of the same rows in the same run.
// Usage: DATABASE_URL=... node_modules/.bin/bun scripts/bench-import.ts [runs=5]
import { startServer } from "../http/server";
import { createTenant } from "../store/tenants";
import { sql } from "../store/db";
import { newId } from "../store/ids";

const RUNS = Number(process.argv[2] ?? 5);
const N = 1000;
const TARGET_MS = 1000;

function batch(tag: string) {
  return Array.from({ length: N }, (_, i) => ({
    external_id: `${tag}-${i}`,
    email: `user.${tag}.${i}@example.com`,
    phone: `+55119${String(10_000_000 + i).padStart(8, "0")}`,
    name: `Subscriber ${i}`,
    locale: "pt_BR",
    timezone: "America/Sao_Paulo",
    custom_properties: { plan: i % 2 ? "pro" : "free", index: i },
  }));
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const server = startServer(0, "127.0.0.1");
const { tenant, apiKey } = await createTenant(`bench-import-${Date.now()}`);
const bare = await createTenant(`bench-import-bare-${Date.now()}`);

async function importOnce(subscribers: unknown[]): Promise<number> {
  const started = performance.now();
  const res = await fetch(`http://127.0.0.1:${server.port}/v1/subscribers/import`, {
    method: "POST",
    headers: { authorization: `Bearer ${apiKey.raw}`, "content-type": "application/json" },
    body: JSON.stringify({ subscribers }),
  });
  const body = (await res.json()) as any;
  const ms = performance.now() - started;
  if (res.status !== 200 || body.data.imported !== subscribers.length) throw new Error(`import failed: ${res.status} ${JSON.stringify(body).slice(0, 300)}`);
  return ms;
}

async function bareInsertOnce(subscribers: ReturnType<typeof batch>): Promise<number> {
  const now = new Date();
  const rows = subscribers.map((s) => ({
    id: newId(),
    tenant_id: bare.tenant.id,
    environment: "production",
    ...s,
    custom_properties: s.custom_properties as any,
    consent: { given_at: now.toISOString(), ip: "127.0.0.1", method: "api" } as any,
    created_at: now,
    updated_at: now,
  }));
  const started = performance.now();
  await sql.begin((tx) => tx`insert into subscribers ${tx(rows)}`);
  return performance.now() - started;
}

// warm-up: connection pools, the blocklist cache, JIT
await importOnce(batch(`warm-${newId()}`).slice(0, 50));
await bareInsertOnce(batch(`warm-${newId()}`).slice(0, 50));

const created: number[] = [];
const updated: number[] = [];
const bareMs: number[] = [];
for (let r = 0; r < RUNS; r++) {
  const tag = `r${r}-${newId().slice(-8)}`;
  const rows = batch(tag);
  bareMs.push(await bareInsertOnce(rows));
  created.push(await importOnce(rows));
  updated.push(await importOnce(rows.map((s) => ({ ...s, name: `${s.name} (updated)` }))));
}

const fmt = (x: number) => `${x.toFixed(1)} ms`;
console.log(`bench-import: ${N} subscribers per call, ${RUNS} runs, over HTTP on 127.0.0.1 (validation, one transaction, response of ${N} records)`);
console.log(`  import (all new)      median ${fmt(median(created))}  min ${fmt(Math.min(...created))}  max ${fmt(Math.max(...created))}`);
console.log(`  import (all existing) median ${fmt(median(updated))}  min ${fmt(Math.min(...updated))}  max ${fmt(Math.max(...updated))}`);
console.log(`  bare multi-row INSERT median ${fmt(median(bareMs))}  (same rows, no validation, no HTTP)`);
console.log(`  ratio import/bare     ${(median(created) / median(bareMs)).toFixed(2)}x`);
const ok = Math.max(...created, ...updated) < TARGET_MS;
console.log(`  target: every import under ${TARGET_MS} ms -> ${ok ? "PASS" : "FAIL"}`);

// the bench tenants' rows are left for inspection; they belong to throwaway tenants
await server.app.stop(true);
await sql.end();
process.exit(ok ? 0 : 1);
