// Real dead letters for the dead-letter tests: an actor (unique name) that always fails, hosted on
// this run's prefix until its messages are dead-lettered; and a host of the same actor that succeeds,
// recording what it handles (to see a redriven message arrive). Cleans up every key of the actor.
import { config } from "../../config";
import { createRuntime, defineActor, type Runtime } from "../../runtime";
import { REDIS_URL, connect, sleep, waitFor } from "./runtime-redis";

export interface TestMessage {
  key: string;
  n: number;
}

export function testRuntime(): Runtime {
  return createRuntime({ redisUrl: REDIS_URL, prefix: config.redisPrefix, partitions: config.partitions, timeScale: 0.01 });
}

/** Sends msgs to `actor` and runs a host that fails them once each (maxDeliveries 1); resolves when all are dead letters. */
export async function makeDeadLetters(runtime: Runtime, actor: string, msgs: TestMessage[]): Promise<void> {
  const failing = defineActor<TestMessage>({
    name: actor,
    keyOf: (m) => m.key,
    maxDeliveries: 1,
    async handle(m) {
      throw new Error(`cannot handle ${m.key}#${m.n}`);
    },
  });
  const before = await runtime.redis.xlen(runtime.keys.dead(actor));
  for (const m of msgs) await runtime.send(failing, m);
  const host = runtime.startHost({ actors: [failing], leaseMs: 1500, blockMs: 50, timerPollMs: 20 });
  await host.ready;
  const done = await waitFor(async () => (await runtime.redis.xlen(runtime.keys.dead(actor))) >= before + msgs.length, 10_000);
  await host.stop();
  if (!done) throw new Error(`${actor}: messages were not dead-lettered`);
}

/** A host of `actor` that succeeds; `seen` gets every message with its delivery count. */
export async function recordingHost(runtime: Runtime, actor: string) {
  const seen: { msg: TestMessage; deliveries: number; messageId: string }[] = [];
  const ok = defineActor<TestMessage>({
    name: actor,
    keyOf: (m) => m.key,
    async handle(msg, ctx) {
      seen.push({ msg, deliveries: ctx.deliveries, messageId: ctx.messageId });
    },
  });
  const host = runtime.startHost({ actors: [ok], leaseMs: 1500, blockMs: 50, timerPollMs: 20 });
  await host.ready;
  return { seen, stop: () => host.stop() };
}

/** Deletes every key of these actors under this run's prefix (streams, timers, leases, hosts, dead letters). */
export async function deleteActorKeys(actors: string[]): Promise<void> {
  const redis = connect();
  try {
    for (const actor of actors) {
      for (const pattern of [`${config.redisPrefix}:*{${actor}:*`, `${config.redisPrefix}:dead:${actor}`, `${config.redisPrefix}:hosts:${actor}`]) {
        let cursor = "0";
        do {
          const [next, keys] = await redis.scan(cursor, "MATCH", pattern, "COUNT", 1000);
          cursor = next;
          if (keys.length) await redis.del(...keys);
        } while (cursor !== "0");
      }
    }
  } finally {
    await redis.quit();
  }
}

export { sleep, waitFor };
