// The runtime's dead-letter functions (runtime/dead-letters.ts) on a single Redis and on a Redis
// Cluster: actors found by SCAN on every master, list, redrive through redriveDeadLetter-2.lua (its
// two keys share the partition's slot) exactly once even when repeated, and drop.
import { expect, test } from "bun:test";
import { createRuntime, type Runtime } from "../../runtime";
import { deadLetterActors, dropDeadLetter, listDeadLetters, redriveDeadLetter } from "../../runtime/dead-letters";
import { makeDeadLetters, recordingHost } from "../support/dead-letters";
import { deletePrefix, describeEachRedis, randomPrefix, runtimeTestHooks, waitFor } from "../support/runtime-redis";

describeEachRedis("dead letters", (target) => {
  const scope = runtimeTestHooks(() => target.url);

  function setup(): Runtime {
    const prefix = randomPrefix("dead");
    const runtime = createRuntime({ redisUrl: target.url, prefix, partitions: 8, timeScale: 0.01 });
    scope.cleanups.push(async () => {
      await runtime.close();
      await deletePrefix(scope.admin, prefix);
    });
    return runtime;
  }

  test("listed across actors, redriven once with a fresh delivery count (also when the redrive is repeated), dropped", async () => {
    const runtime = setup();
    await makeDeadLetters(runtime, "dl-orders", [
      { key: "order-1", n: 1 },
      { key: "order-2", n: 2 },
    ]);
    await makeDeadLetters(runtime, "dl-users", [{ key: "user-9", n: 9 }]);
    expect(await deadLetterActors(runtime)).toEqual(["dl-orders", "dl-users"]);

    const letters = await listDeadLetters(runtime, "dl-orders", { limit: 10 });
    expect(letters.map((d) => d.key).sort()).toEqual(["order-1", "order-2"]);
    const one = letters.find((d) => d.key === "order-1")!;

    // An interrupted redrive: the script appended the message, the caller died before deleting the
    // dead letter. Redriving again must not append a second copy.
    const p = one.partition;
    const [firstId] = await runtime.redis.nmsRuntime_redriveDeadLetter(runtime.keys.stream("dl-orders", p), runtime.keys.redriven("dl-orders", p), one.id, one.key, one.json, 60_000);
    const again = await redriveDeadLetter(runtime, "dl-orders", one.id, 8);
    expect(again?.entryId).toBe(firstId);

    const host = await recordingHost(runtime, "dl-orders");
    scope.cleanups.push(() => host.stop());
    expect(await waitFor(() => host.seen.length >= 1, 5000)).toBe(true);
    await Bun.sleep(200);
    expect(host.seen.map((s) => [s.msg, s.deliveries])).toEqual([[{ key: "order-1", n: 1 }, 1]]);

    const rest = await listDeadLetters(runtime, "dl-orders", { limit: 10 });
    expect(rest.map((d) => d.key)).toEqual(["order-2"]);
    expect(await dropDeadLetter(runtime, "dl-orders", rest[0]!.id)).toMatchObject({ key: "order-2" });
    expect(await listDeadLetters(runtime, "dl-orders", { limit: 10 })).toEqual([]);
  }, 30_000);
});
