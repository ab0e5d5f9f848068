// Benchmark (not a test): 50,000 no-op messages over 1,000 keys through (a) our runtime, (b) BullMQ
// with concurrency 100, (c) a bare XREADGROUP COUNT 500 + pipelined XACK loop; same Redis, own prefix.
// Run: node_modules/.bin/bun scripts/bench-runtime.ts   (env: REDIS_URL, BENCH_MESSAGES, BENCH_KEYS, BENCH_WARMUP)
import { Queue, Worker } from "bullmq";
import Redis from "ioredis";
import { createRuntime, defineActor } from "../runtime";
import { deletePrefix } from "./bench-load";

const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const MESSAGES = Number(process.env.BENCH_MESSAGES ?? 50_000);
const KEYS = Number(process.env.BENCH_KEYS ?? 1_000);
const prefix = `bench-${Math.random().toString(36).slice(2, 8)}`;
const admin = new Redis(REDIS_URL);

interface Msg {
  key: string;
  seq: number;
}
const WARMUP = Number(process.env.BENCH_WARMUP ?? 5_000);
const workload = (n: number): Msg[] => Array.from({ length: n }, (_, i) => ({ key: `key-${i % KEYS}`, seq: i }));

function waitUntil(check: () => boolean): Promise<void> {
  return new Promise((resolve) => {
    const poll = () => (check() ? resolve() : setTimeout(poll, 1));
    poll();
  });
}

interface Result {
  name: string;
  totalMs: number;
  enqueueMs: number;
  /** From the first send to the last message handled (the brief's measure). */
  rate: number;
  /** From the end of enqueueing to the last message handled (consumer side only). */
  consumeRate: number;
}

function result(name: string, n: number, t0: number, tEnqueued: number, t1: number): Result {
  const totalMs = t1 - t0;
  return { name, totalMs, enqueueMs: tEnqueued - t0, rate: n / (totalMs / 1000), consumeRate: n / ((t1 - tEnqueued) / 1000) };
}

/** (a) Our runtime: one host in this process; from the first send to the last message handled. */
async function benchRuntime(messages: Msg[], tag: string): Promise<Result> {
  const runtime = createRuntime({ redisUrl: REDIS_URL, prefix: `${prefix}:rt${tag}` });
  let handled = 0;
  const actor = defineActor<Msg>({
    name: "bench",
    keyOf: (m) => m.key,
    async handle() {
      handled++;
    },
  });
  const t0 = performance.now();
  await runtime.sendMany(actor, messages);
  const tEnqueued = performance.now();
  const host = runtime.startHost({ actors: [actor] });
  await waitUntil(() => handled >= messages.length);
  const t1 = performance.now();
  await host.stop();
  await runtime.close();
  await deletePrefix(admin, `${prefix}:rt${tag}`);
  return result("runtime", messages.length, t0, tEnqueued, t1);
}

/** (b) BullMQ: addBulk then one Worker with concurrency 100; completed jobs removed as a real deployment would. */
async function benchBullMQ(messages: Msg[], tag: string): Promise<Result> {
  const connection = { url: REDIS_URL, maxRetriesPerRequest: null } as any;
  const bullPrefix = `${prefix}:bull${tag}`;
  const queue = new Queue("bench", { connection, prefix: bullPrefix });
  let handled = 0;
  const t0 = performance.now();
  for (let i = 0; i < messages.length; i += 1000) {
    await queue.addBulk(
      messages.slice(i, i + 1000).map((m) => ({ name: "noop", data: m, opts: { removeOnComplete: true, removeOnFail: true } })),
    );
  }
  const tEnqueued = performance.now();
  const worker = new Worker(
    "bench",
    async () => {
      handled++;
    },
    { connection, prefix: bullPrefix, concurrency: 100 },
  );
  await waitUntil(() => handled >= messages.length);
  const t1 = performance.now();
  await worker.close();
  await queue.obliterate({ force: true }).catch(() => {});
  await queue.close();
  await deletePrefix(admin, bullPrefix);
  return result("bullmq", messages.length, t0, tEnqueued, t1);
}

/** (c) The ceiling: one stream, XREADGROUP COUNT 500, the XACK pipelined with the next read. */
async function benchBareLoop(messages: Msg[], tag: string): Promise<Result> {
  const redis = new Redis(REDIS_URL);
  const stream = `${prefix}:bare${tag}`;
  await redis.xgroup("CREATE", stream, "g", "0", "MKSTREAM");
  const t0 = performance.now();
  const pipeline = redis.pipeline();
  for (const m of messages) pipeline.xadd(stream, "*", "k", m.key, "m", JSON.stringify(m));
  await pipeline.exec();
  const tEnqueued = performance.now();
  let handled = 0;
  let toAck: string[] = [];
  while (handled < messages.length) {
    const p = redis.pipeline();
    if (toAck.length) p.xack(stream, "g", ...toAck);
    p.xreadgroup("GROUP", "g", "c", "COUNT", 500, "BLOCK", 1000, "STREAMS", stream, ">");
    const results = (await p.exec())!;
    const reply = results[results.length - 1]![1] as [string, [string, string[]][]][] | null;
    toAck = [];
    if (!reply) continue;
    for (const [id, fields] of reply[0]![1]) {
      JSON.parse(fields[3]!);
      handled++;
      toAck.push(id);
    }
  }
  await redis.xack(stream, "g", ...toAck);
  const t1 = performance.now();
  await redis.del(stream);
  await redis.quit();
  return result("bare XREADGROUP loop", messages.length, t0, tEnqueued, t1);
}

const fmt = (n: number) => Math.round(n).toLocaleString("en-US");
const results: Result[] = [];
try {
  console.log(`bench: ${fmt(MESSAGES)} no-op messages over ${fmt(KEYS)} keys, Redis ${REDIS_URL}, prefix ${prefix}`);
  // A short unmeasured round of each first, so no contender pays for JIT warm-up and connections.
  if (WARMUP > 0) for (const run of [benchRuntime, benchBullMQ, benchBareLoop]) await run(workload(WARMUP), "warm");
  const messages = workload(MESSAGES);
  for (const run of [benchRuntime, benchBullMQ, benchBareLoop]) {
    const r = await run(messages, "");
    results.push(r);
    console.log(
      `${r.name.padEnd(22)} ${fmt(r.rate).padStart(9)} msg/s end-to-end  ${fmt(r.consumeRate).padStart(9)} msg/s consume-only` +
        `  (total ${fmt(r.totalMs)} ms, enqueue ${fmt(r.enqueueMs)} ms)`,
    );
  }
  const [rt, bull, bare] = results as [Result, Result, Result];
  const vsBull = rt.rate / bull.rate;
  const vsCeiling = rt.rate / bare.rate;
  // The strictest reading: our end-to-end time (sends included) against the ceiling's consume-only rate.
  const vsCeilingStrict = rt.rate / bare.consumeRate;
  const ok = (b: boolean) => (b ? "OK" : "BELOW TARGET");
  console.log(`runtime / BullMQ  = ${vsBull.toFixed(2)}x end-to-end, ${(rt.consumeRate / bull.consumeRate).toFixed(2)}x consume-only  (target >= 3x)  ${ok(vsBull >= 3)}`);
  console.log(
    `runtime / ceiling = ${(vsCeiling * 100).toFixed(1)}% end-to-end, ${((rt.consumeRate / bare.consumeRate) * 100).toFixed(1)}% consume-only, ` +
      `${(vsCeilingStrict * 100).toFixed(1)}% ours end-to-end vs ceiling consume-only  (target >= 20%)  ${ok(vsCeilingStrict >= 0.2)}`,
  );
} finally {
  await deletePrefix(admin, prefix);
  await admin.quit();
}
process.exit(0);
