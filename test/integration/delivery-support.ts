// Test support for delivery tests (notifications engineer): a runtime host for the channel-sender
// actor on this test process's REDIS_PREFIX with a tiny TIME_SCALE, and polling helpers.
import { channelSender } from "../../actors/channel-sender";
import { config } from "../../config";
import type { Actor } from "../../runtime/actor";
import { createRuntime } from "../../runtime/runtime";
import { sql } from "../../store/db";
import { connect, deletePrefix, sleep } from "../support/runtime-redis";

export async function startDeliveryHost(timeScale = 0.001, actors: Actor<any>[] = [channelSender]) {
  const runtime = createRuntime({ redisUrl: config.redisUrl, prefix: config.redisPrefix, partitions: config.partitions, timeScale });
  const host = runtime.startHost({ actors, leaseMs: 3000, blockMs: 100, timerPollMs: 20 });
  await host.ready;
  return {
    runtime,
    host,
    async stop() {
      await host.stop();
      await runtime.close();
      const r = connect();
      await deletePrefix(r, config.redisPrefix);
      await r.quit();
    },
  };
}

/** Polls the row until its status is one of `want` (or the deadline passes); returns the row. */
export async function waitForStatus(id: string, want: string[], timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const [row] = await sql`select * from notifications where id = ${id}`;
    if (row && want.includes(row.status)) return row;
    if (Date.now() > deadline) return row;
    await sleep(25);
  }
}

export async function attemptsOf(id: string) {
  return await sql`select * from notification_attempts where notification_id = ${id} order by attempt_number`;
}
