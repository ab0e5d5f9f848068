// Benchmark of provider failover (issue 23, docs/routing.md) over real processes: the API and one
// channel-sender process, an SMS channel whose primary and backup are two Twilio-shaped providers on
// loopback. Notifications arrive at --rate for --seconds; the primary starts answering 500 at second
// --fail-at. Measured: messages lost (accepted but never sent), the time from the primary's first
// failure to the first send through the backup, and the accept-to-sent p99 of the messages accepted
// during the switch (from the first failure until 2 s after the first backup send).
//
// Usage: bun scripts/bench-failover.ts [--rate 500] [--seconds 30] [--fail-at 10] [--latency-ms 20]
// Loopback only; bounded in count and time; cleans up its rows and Redis keys. Last line:
//   failover: <N> sent, <N> lost, switch in <N> ms, p99 during switch <N> ms
import { spawn, type Subprocess } from "bun";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { openLoop, removeBenchData } from "./bench-load";

/** Polls a spawned server until it answers (a loaded 2-core machine starts processes slowly: 90 s at most). */
async function waitReady(url: string): Promise<void> {
  for (let i = 0; i < 900; i++) {
    try {
      if ((await fetch(url)).status < 500) return;
    } catch {}
    await Bun.sleep(100);
  }
  throw new Error(`${url} did not answer within 90 s`);
}

const args = new Map<string, string>();
for (let i = 2; i < process.argv.length; i += 2) args.set(process.argv[i]!.replace(/^--/, ""), process.argv[i + 1] ?? "");
const root = join(import.meta.dir, "..");
const bun = process.execPath;

// Provider server mode: Twilio-shaped; after POST /control/fail it answers Twilio's 500. GET / says when it
// first failed and first succeeded (epoch ms, 0: never).
if (args.has("provider-server")) {
  const latency = Number(args.get("latency-ms") ?? 20);
  let failing = false;
  const tag = args.get("tag") ?? "A";
  let n = 0;
  let firstFailure = 0;
  let firstSuccess = 0;
  Bun.serve({
    hostname: "127.0.0.1",
    port: Number(args.get("provider-server")),
    async fetch(req) {
      const path = new URL(req.url).pathname;
      if (req.method === "GET") return Response.json({ first_failure: firstFailure, first_success: firstSuccess, path });
      if (path === "/control/fail") {
        failing = true;
        return Response.json({ failing });
      }
      await req.arrayBuffer();
      await Bun.sleep(latency);
      if (failing) {
        firstFailure ||= Date.now();
        return Response.json({ code: 20500, message: "Internal Server Error", status: 500 }, { status: 500 });
      }
      firstSuccess ||= Date.now();
      return Response.json({ sid: `SM${tag}${(++n).toString(16).padStart(31, "0")}`, status: "queued" }, { status: 201 });
    },
  });
  console.log("provider ready");
  await new Promise(() => {});
}

const rate = Number(args.get("rate") ?? 500);
const seconds = Number(args.get("seconds") ?? 30);
const failAt = Number(args.get("fail-at") ?? 10);
const latencyMs = Number(args.get("latency-ms") ?? 20);
const prefix = `benchfo${Math.random().toString(36).slice(2, 8)}`;
process.env.REDIS_PREFIX = prefix;

const { sql } = await import("../store/db");
const { createTenant } = await import("../store/tenants");
const { insertChannel } = await import("../store/channels");
const { redis } = await import("../store/redis");

const basePort = 20000 + Math.floor(Math.random() * 12000);
const apiPort = basePort;
const primaryPort = basePort + 1;
const backupPort = basePort + 2;
const { tenant, apiKey } = await createTenant(`bench-failover-${prefix}`);
const twilio = (port: number, from: string) => ({
  provider: "twilio",
  credentials: { account_sid: "AC" + "0123456789abcdef".repeat(2), auth_token: `bench-token-${port}` },
  settings: { from, base_url: `http://127.0.0.1:${port}`, rate_limit_per_second: 100000 },
});
await insertChannel(sql, { tenantId: tenant.id, environment: "production" }, "sms", {
  ...twilio(primaryPort, "+14155550100"),
  active: true,
  failover: [twilio(backupPort, "+14155550101")],
});

const childEnv = { ...process.env, REDIS_PREFIX: prefix, RATE_LIMIT_PER_MINUTE: "100000000", LOG_LEVEL: "warn" };
const children: Subprocess[] = [];
function start(cmd: string[], env: Record<string, string> = {}) {
  const child = spawn({ cmd, cwd: root, env: { ...childEnv, ...env }, stdout: "ignore", stderr: "inherit" });
  children.push(child);
  return child;
}
const load = () => readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");

let seq = 0;
const target = {
  url: `http://127.0.0.1:${apiPort}/v1/notifications`,
  headers: { authorization: `Bearer ${apiKey.raw}`, "content-type": "application/json" },
  body: () => JSON.stringify({ channel: "sms", to: `+55119${String(10000000 + (seq++ % 89999999))}`, data: { content: "Your code is 123456" } }),
};

try {
  start([bun, "scripts/start.ts", "--only", "api"], { PORT: String(apiPort) });
  start([bun, "scripts/start.ts", "--only", "channel-sender"]);
  start([bun, "scripts/bench-failover.ts", "--provider-server", String(primaryPort), "--latency-ms", String(latencyMs), "--tag", "A"]);
  start([bun, "scripts/bench-failover.ts", "--provider-server", String(backupPort), "--latency-ms", String(latencyMs), "--tag", "B"]);
  await Promise.all([apiPort, primaryPort, backupPort].map((p) => waitReady(`http://127.0.0.1:${p}/${p === apiPort ? "health" : ""}`)));
  await Bun.sleep(3000); // the sender's leases won
  console.log(`${rate}/s for ${seconds} s, the primary fails from second ${failAt}; provider latency ${latencyMs} ms; load ${load()}`);
  const since = new Date();
  const failTimer = setTimeout(() => void fetch(`http://127.0.0.1:${primaryPort}/control/fail`, { method: "POST" }), failAt * 1000);
  const r = await openLoop(target, { rate, seconds });
  clearTimeout(failTimer);
  // drain: every accepted notification sent (or given up) within 60 s
  let counts = { sent: 0, pending: 0, failed: 0, total: 0 };
  for (let i = 0; i < 600; i++) {
    const [c] = await sql`select count(*) filter (where status = 'sent')::int as sent, count(*) filter (where status = 'pending')::int as pending,
        count(*) filter (where status = 'failed')::int as failed, count(*)::int as total
      from notifications where tenant_id = ${tenant.id} and created_at >= ${since}`;
    counts = c as typeof counts;
    if (counts.pending === 0) break;
    await Bun.sleep(100);
  }
  const primary = (await (await fetch(`http://127.0.0.1:${primaryPort}/`)).json()) as { first_failure: number };
  const backup = (await (await fetch(`http://127.0.0.1:${backupPort}/`)).json()) as { first_success: number };
  const switchMs = backup.first_success && primary.first_failure ? backup.first_success - primary.first_failure : NaN;
  const windowEnd = new Date((backup.first_success || Date.now()) + 2000);
  const [p] = await sql`select percentile_cont(0.99) within group (order by extract(epoch from (sent_at - created_at)) * 1000) as p99, count(*)::int as n
    from notifications where tenant_id = ${tenant.id} and status = 'sent'
      and created_at >= ${new Date(primary.first_failure || since.getTime() + failAt * 1000)} and created_at < ${windowEnd}`;
  const [via] = await sql`select count(*) filter (where provider_message_id like 'SMB%')::int as backup, count(*)::int as n
    from notifications where tenant_id = ${tenant.id} and created_at >= ${since} and status = 'sent'`;
  const lost = r.ok - counts.sent;
  console.log(
    `accepted ${r.ok} of ${Math.round(rate * seconds)}; sent ${counts.sent} (${via!.backup} through the backup), failed ${counts.failed}, pending ${counts.pending}; ` +
      `${p!.n} accepted during the switch; load ${load()}`,
  );
  console.log(`targets: 0 lost, switch < 1000 ms, p99 during the switch < 2000 ms`);
  console.log(`failover: ${counts.sent} sent, ${lost} lost, switch in ${Number.isFinite(switchMs) ? switchMs : "n/a"} ms, p99 during switch ${Number(p!.p99 ?? 0).toFixed(0)} ms`);
} finally {
  for (const c of children) c.kill();
  await Promise.all(children.map((c) => c.exited));
  await removeBenchData(sql, redis, tenant.id, prefix);
  await sql.end();
  redis.disconnect();
}
process.exit(0);
