// Subprocess entry point for the runtime's multi-process tests: one host running the "rec" actor,
// which records (key, seq, host) into a Redis list and can schedule a timer. Stops on SIGTERM.
import { createRuntime, defineActor } from "../../runtime";
import { serveUntilSigterm } from "./spawn-ready";

interface RecMsg {
  key: string;
  seq: number;
  /** When set, the handler schedules seq + 1 for the same key after this many ms (timer id `timer:<key>`). */
  timerMs?: number;
}

const env = process.env;
const prefix = env.RT_PREFIX!;
// "auto": the runtime's own id (hostname-pid-random@pid namespace), which a host of this machine may prove dead
const givenId = env.RT_HOST_ID === "auto" ? undefined : (env.RT_HOST_ID ?? `worker-${process.pid}`);
const delayMs = Number(env.RT_HANDLER_DELAY_MS ?? 0);
const runtime = createRuntime({ redisUrl: env.REDIS_URL ?? "redis://127.0.0.1:6379", prefix, partitions: Number(env.RT_PARTITIONS ?? 16) });
const logKey = `${prefix}:test:log`;

const rec = defineActor<RecMsg>({
  name: "rec",
  keyOf: (m) => m.key,
  async handle(m, ctx) {
    if (delayMs) await new Promise((r) => setTimeout(r, delayMs));
    await runtime.redis.rpush(logKey, `${m.key}|${m.seq}|${host.id}|${ctx.deliveries}`);
    if (m.timerMs !== undefined) await ctx.schedule(`timer:${m.key}`, m.timerMs, { key: m.key, seq: m.seq + 1 });
  },
});

const host = runtime.startHost({
  actors: [rec],
  hostId: givenId,
  leaseMs: Number(env.RT_LEASE_MS ?? 1500),
  concurrency: Number(env.RT_CONCURRENCY ?? 200),
  timerPollMs: 50,
});

// The caller (here: this entry point, in production: the launcher) owns signal handling.
await serveUntilSigterm(givenId ?? "auto", host.ready, () => host.stop().then(() => runtime.close()));
