// Test support for delivery tests (notifications engineer): a runtime host for the channel-sender
// actor on this test process's REDIS_PREFIX with a tiny TIME_SCALE, polling helpers, and the check
// that no sender host is left running for a file that handles messages itself.
import { channelSender, channelSenderHigh, channelSenderLow } from "../../actors/channel-sender";
import { config } from "../../config";
import type { Actor } from "../../runtime/actor";
import { runtimeKeys } from "../../runtime/keys";
import { createRuntime } from "../../runtime/runtime";
import { channelSenderAddress } from "../../domain/delivery/channel-sender-mail";
import { sql } from "../../store/db";
import { connect, deletePrefix, sleep, waitFor } from "../support/runtime-redis";

export async function startDeliveryHost(timeScale = 0.001, actors: Actor<any>[] = [channelSender, channelSenderHigh, channelSenderLow]) {
  const runtime = createRuntime({ redisUrl: config.redisUrl, prefix: config.redisPrefix, partitions: config.partitions, timeScale });
  const host = runtime.startHost({ actors, leaseMs: 3000, blockMs: 100, timerPollMs: 20 });
  await host.ready;
  // once: a file may register stop() for its cleanup before a test calls it (a host left running
  // by a failed test would consume the next files' messages)
  let stopped: Promise<void> | null = null;
  return {
    runtime,
    host,
    stop() {
      stopped ??= (async () => {
        await host.stop();
        await runtime.close();
        const r = connect();
        await deletePrefix(r, config.redisPrefix);
        await r.quit();
      })();
      return stopped;
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

/**
 * Polls the channel sender's streams until a message for notification `id` is there (the accept
 * path's XADD follows its 202, later on a loaded machine); true once it is, false at the deadline.
 */
export async function waitForEnqueued(id: string, timeoutMs = 10_000): Promise<boolean> {
  const keys = runtimeKeys(config.redisPrefix);
  const r = connect();
  try {
    return await waitFor(async () => {
      for (let p = 0; p < config.partitions; p++) {
        const entries = await r.xrange(keys.stream(channelSenderAddress.name, p), "-", "+");
        if (entries.some(([, fields]) => fields.some((f) => f.includes(id)))) return true;
      }
      return false;
    }, timeoutMs, 20);
  } finally {
    await r.quit();
  }
}

/**
 * For a file that calls the sender's handler itself: throws, naming them, when hosts beat in the
 * channel sender's registry on this run's prefix in the last 10 s (an earlier file's host or worker
 * left running), since such a host would take the file's messages before the file handles them.
 */
export async function expectNoLiveSender(): Promise<void> {
  const r = connect();
  try {
    const [sec, usec] = (await r.time()).map(Number) as [number, number]; // the Redis clock the heartbeats use
    const now = sec * 1000 + Math.floor(usec / 1000);
    const live = await r.zrangebyscore(runtimeKeys(config.redisPrefix).hosts(channelSenderAddress.name), now - 10_000, "+inf");
    if (live.length) throw new Error(`channel-sender hosts still run on ${config.redisPrefix} (left by an earlier file?): ${live.join(", ")}`);
  } finally {
    await r.quit();
  }
}

export async function attemptsOf(id: string) {
  return await sql`select * from notification_attempts where notification_id = ${id} order by attempt_number`;
}
