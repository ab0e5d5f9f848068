// Benchmark of the broadcast fan-out alone (issue 22): a topic of --members subscribers written
// straight into PostgreSQL, one trigger to it, its pages made here with nothing consuming the runs.
// Usage: bun scripts/bench-fanout.ts [--members 20000] [--page 1000] [--serial 1 (page by page, not the actor's pipeline)]
// Prints runs/s; cleans up its rows and Redis keys. Last line: `fanout: <N> members, <N> runs, <N> runs/s`.
import { removeBenchData } from "./bench-load";

const args = new Map<string, string>();
for (let i = 2; i < process.argv.length; i += 2) args.set(process.argv[i]!.replace(/^--/, ""), process.argv[i + 1] ?? "");
const members = Number(args.get("members") ?? 20_000);
const page = Number(args.get("page") ?? 1000);
const prefix = `benchfo${Math.random().toString(36).slice(2, 8)}`;
process.env.REDIS_PREFIX = prefix;

const { sql } = await import("../store/db");
const { createTenant } = await import("../store/tenants");
const { redis } = await import("../store/redis");
const { getRuntime } = await import("../store/runtime-handle");
const { buildApp } = await import("../http/app");
const { insertApiKey } = await import("../store/api-keys");
const { fanOut, fanOutPage } = await import("../domain/broadcasts/broadcasts");
const { fanOutMessage } = await import("../domain/broadcasts/broadcast-mail");

const { tenant } = await createTenant(`bench-fanout-${prefix}`);
const key = (await insertApiKey(sql, { tenantId: tenant.id, environment: "sandbox", keyType: "secret", name: "bench" })).raw;
const app = buildApp();
async function post(path: string, body: unknown) {
  const r = await app.handle(new Request(`http://localhost${path}`, { method: "POST", headers: { authorization: `Bearer ${key}`, "content-type": "application/json" }, body: JSON.stringify(body) }));
  if (r.status >= 300) throw new Error(`POST ${path}: ${r.status} ${await r.text()}`);
  return await r.json();
}

let summary = "fanout: did not finish";
try {
  await post("/v1/templates", { slug: "fo", name: "News", channel: "in_app", content: "News", status: "active" });
  await post("/v1/workflows", { slug: "fo", name: "Fan-out", steps: [{ type: "send", channel: "in_app", template: "fo" }] });
  const topic = (await post("/v1/topics", { key: "everyone", name: "Everyone" })).data;
  await sql`insert into subscribers (id, tenant_id, environment, external_id)
    select gen_random_uuid(), ${tenant.id}, 'sandbox', 'm-' || g from generate_series(1, ${members}) g`;
  await sql`insert into topic_subscribers (topic_id, subscriber_id, added_at)
    select ${topic.id}, id, now() - interval '1 minute' from subscribers where tenant_id = ${tenant.id}`;
  await sql`analyze subscribers`;
  await sql`analyze topic_subscribers`;
  const b = (await post("/v1/workflows/fo/trigger", { to: { topic: "everyone" }, data: { name: "all" } })).data;
  const t0 = performance.now();
  let runs = 0;
  // the actor's handler (pipelined pages, one-second slices) until the broadcast completes; --serial: page by page
  if (args.has("serial")) for (;;) {
    const r = await fanOutPage(b.id, page);
    if (!r.more) break;
  }
  else while ((await sql`select status from broadcasts where id = ${b.id}`)[0]!.status === "fanning_out") await fanOut(fanOutMessage(b.id), page);
  runs = (await sql`select runs_created from broadcasts where id = ${b.id}`)[0]!.runs_created;
  const s = (performance.now() - t0) / 1000;
  const [row] = await sql`select runs_created, status from broadcasts where id = ${b.id}`;
  const [n] = await sql`select count(*)::int as n from workflow_runs where tenant_id = ${tenant.id}`;
  console.log(`broadcast ${row!.status}, runs_created ${row!.runs_created}, rows ${n!.n}, ${s.toFixed(2)} s`);
  summary = `fanout: ${members} members, ${runs} runs, ${(runs / s).toFixed(0)} runs/s`;
} finally {
  await sql`delete from workflow_runs where tenant_id = ${tenant.id}`;
  await sql`delete from broadcasts where tenant_id = ${tenant.id}`;
  await removeBenchData(sql, redis, tenant.id, prefix);
  await sql.end();
  redis.disconnect();
  await getRuntime().close();
}
console.log(`\n${summary}`);
