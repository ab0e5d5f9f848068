// Benchmark of outbound webhooks over a real webhook-dispatcher process (`start.ts --only
// webhook-dispatcher`): 20,000 events (2,000 for each of 10 tenants, one webhook each, 10 local
// receivers), written as a burst through domain/events/outbox.ts. Run 1: every receiver healthy. Run 2:
// receiver 10 hangs for 30 s (answers nothing until then). Measured on the healthy nine: deliveries/s
// from the first event written to the last first-receipt, and event-to-receipt latency (created_at
// to arrival; under a burst it is mostly queueing). The last line is the summary.
//
// Usage: bun scripts/bench-webhooks.ts [--events 20000] [--hang-seconds 30]
// Loopback only; bounded; removes its tenants, rows and Redis keys.
import { spawn, type Subprocess } from "bun";
import { join } from "node:path";

const args = new Map<string, string>();
for (let i = 2; i < process.argv.length; i += 2) args.set(process.argv[i]!.replace(/^--/, ""), process.argv[i + 1] ?? "");
const RECEIVERS = 10;
const total = Number(args.get("events") ?? 20000);
const PER_TENANT = Math.floor(total / RECEIVERS);
const hangMs = Number(args.get("hang-seconds") ?? 30) * 1000;
const prefix = `benchwh${Math.random().toString(36).slice(2, 8)}`;
process.env.REDIS_PREFIX = prefix;
process.env.WEBHOOK_ALLOW_PRIVATE = "true";

const root = join(import.meta.dir, "..");
const { sql } = await import("../store/db");
const { redis } = await import("../store/redis");
const { createTenant } = await import("../store/tenants");
const { insertWebhook } = await import("../store/webhooks");
const { emitEvents } = await import("../domain/events/outbox");
const { generateSigningSecret } = await import("../domain/webhooks/endpoints");
const { deletePrefix } = await import("./bench-load");

// ----------------------------------------------------------------------------------------------
// Receivers: first arrival time per event id; receiver i may hang until a given time.

interface Rx {
  url: string;
  firstAt: Map<string, number>;
  requests: number;
  hangUntil: number;
  server: ReturnType<typeof Bun.serve>;
}

const receivers: Rx[] = [];
for (let i = 0; i < RECEIVERS; i++) {
  const rx: Rx = { url: "", firstAt: new Map(), requests: 0, hangUntil: 0, server: null as any };
  rx.server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: 0,
    async fetch(req) {
      const body = await req.text();
      const wait = rx.hangUntil - Date.now();
      if (wait > 0) await Bun.sleep(wait); // hanging: nothing until the window ends
      rx.requests++;
      const id = req.headers.get("webhook-id") ?? JSON.parse(body).id;
      if (!rx.firstAt.has(id)) rx.firstAt.set(id, Date.now());
      return new Response("ok");
    },
  });
  rx.url = `http://127.0.0.1:${rx.server.port}/hook`;
  receivers.push(rx);
}

// ----------------------------------------------------------------------------------------------
const tenants: string[] = [];
for (let i = 0; i < RECEIVERS; i++) {
  const { tenant } = await createTenant(`bench-webhooks-${prefix}-${i}`);
  tenants.push(tenant.id);
  await sql.begin((tx) =>
    insertWebhook(tx, { tenantId: tenant.id, environment: "production" }, { url: receivers[i]!.url, events: ["notification.delivered"], active: true, description: "bench" }, generateSigningSecret(), 10),
  );
}

let dispatcher: Subprocess<"ignore", "pipe", "inherit"> | null = null;
async function startDispatcher() {
  dispatcher = spawn({
    cmd: [process.execPath, "scripts/start.ts", "--only", "webhook-dispatcher"],
    cwd: root,
    env: { ...process.env, REDIS_PREFIX: prefix, WEBHOOK_ALLOW_PRIVATE: "true", LOG_LEVEL: "warn" },
    stdout: "pipe",
    stderr: "inherit",
  });
  const reader = dispatcher.stdout.getReader();
  let out = "";
  while (!out.includes("ready:")) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`dispatcher exited: ${out}`);
    out += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  void (async () => {
    for await (const _ of dispatcher!.stdout) {
      // drain
    }
  })();
}

function pct(sorted: number[], p: number) {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]! : 0;
}

interface RunResult {
  rate: number;
  p50: number;
  p99: number;
  seconds: number;
}

async function run(label: string, hang: boolean, perTenant = PER_TENANT): Promise<RunResult> {
  for (const rx of receivers) rx.firstAt.clear();
  const healthy = receivers.slice(0, RECEIVERS - 1);
  if (hang) receivers[RECEIVERS - 1]!.hangUntil = Date.now() + hangMs;
  const created = new Map<string, number>();
  const ids: string[][] = tenants.map(() => []);
  const t0 = Date.now();
  // a burst, interleaved over tenants, in the batches the sender writes (500 events per INSERT)
  for (let done = 0; done < perTenant; done += 500) {
    for (let i = 0; i < RECEIVERS; i++) {
      const n = Math.min(500, perTenant - done);
      const recs = await emitEvents(
        sql,
        Array.from({ length: n }, (_, k) => ({
          tenantId: tenants[i]!,
          environment: "production",
          type: "notification.delivered",
          data: { notification: { id: crypto.randomUUID(), status: "delivered", channel: "email", to: `user${done + k}@example.com`, subject: "Your order shipped" }, delivered_at: new Date().toISOString() },
        })),
      );
      for (const r of recs) {
        created.set(r.id, Date.parse(r.created_at));
        ids[i]!.push(r.id);
      }
    }
  }
  const expected = healthy.length * perTenant;
  const got = () => healthy.reduce((s, rx) => s + rx.firstAt.size, 0);
  const deadline = Date.now() + 300_000;
  while (got() < expected && Date.now() < deadline) await Bun.sleep(20);
  const lastAt = Math.max(...healthy.flatMap((rx) => [...rx.firstAt.values()]));
  const seconds = (lastAt - t0) / 1000;
  const lat = healthy.flatMap((rx) => [...rx.firstAt].map(([id, at]) => at - created.get(id)!)).sort((a, b) => a - b);
  const r: RunResult = { rate: got() / seconds, p50: pct(lat, 0.5), p99: pct(lat, 0.99), seconds };
  const tenth = receivers[RECEIVERS - 1]!;
  console.log(
    `${label}: ${got()}/${expected} deliveries to the healthy nine in ${seconds.toFixed(2)} s -> ${r.rate.toFixed(0)}/s; event-to-receipt p50 ${r.p50} ms p99 ${r.p99} ms; receiver 10 got ${tenth.firstAt.size}/${perTenant}${hang ? " (hanging)" : ""}`,
  );
  if (!hang) {
    // the next run starts from an empty backlog
    while (tenth.firstAt.size < perTenant && Date.now() < deadline) await Bun.sleep(20);
  }
  return r;
}

let exitCode = 0;
try {
  await startDispatcher();
  await Bun.sleep(500);
  console.log(`bench:webhooks: ${total} events per run over ${RECEIVERS} tenants/webhooks/receivers; one dispatcher process`);
  await run("warm-up (not counted)", false, Math.max(50, Math.floor(PER_TENANT / 10)));
  const alone = await run("alone", false);
  const beside = await run(`beside a receiver hanging ${hangMs / 1000} s`, true);
  console.log(
    `webhooks: ${alone.rate.toFixed(0)}/s alone, ${beside.rate.toFixed(0)}/s beside a hanging receiver, ratio ${(beside.rate / alone.rate).toFixed(2)}, p99 ${Math.round(beside.p99)} ms`,
  );
} catch (err) {
  console.error(err);
  exitCode = 1;
} finally {
  // SIGKILL: a graceful stop would wait for the hanging receiver's requests
  (dispatcher as Subprocess | null)?.kill("SIGKILL");
  for (const rx of receivers) rx.server.stop(true);
  for (const t of tenants) {
    await sql`delete from webhook_outbox where webhook_id in (select id from webhooks where tenant_id = ${t})`;
    await sql`delete from webhook_deliveries where tenant_id = ${t}`;
    await sql`delete from events where tenant_id = ${t}`;
    await sql`delete from tenants where id = ${t}`;
  }
  await deletePrefix(redis, prefix);
  await sql.end();
  redis.disconnect();
}
process.exit(exitCode);
