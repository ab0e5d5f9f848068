// store/pubsub.ts on a single Redis (PUBLISH/SUBSCRIBE) and on a Redis Cluster (sharded
// SPUBLISH/SSUBSCRIBE): delivery in order, unsubscribe, and on the cluster a failover of the
// channel's master, after which the subscription follows the slot to its new master.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { isCluster, type RedisClient } from "../../runtime/redis-client";
import { createPubSub, type PubSub } from "../../store/pubsub";
import { connect, describeEachRedis, randomPrefix, sleep, waitFor } from "../support/runtime-redis";

describeEachRedis("pub/sub", (target) => {
  let publisher: RedisClient;
  let pubsub: PubSub;
  const prefix = randomPrefix("pubsub");

  beforeAll(() => {
    publisher = connect(target.url);
    pubsub = createPubSub(publisher, target.url);
  });
  afterAll(async () => {
    await pubsub.close();
    await publisher.quit();
  });

  test("messages published after subscribe arrive in order; none after unsubscribe", async () => {
    const channel = `${prefix}:inbox:t:e:s1`;
    const got: string[] = [];
    await pubsub.subscribe(channel, (m) => got.push(m));
    await pubsub.publish(channel, ["a", "b", "c"]);
    expect(await waitFor(() => got.length === 3, 3000)).toBe(true);
    expect(got).toEqual(["a", "b", "c"]);
    await pubsub.unsubscribe(channel);
    await pubsub.publish(channel, ["d"]);
    await sleep(200);
    expect(got).toEqual(["a", "b", "c"]);
    // plain pub/sub on a single Redis, sharded on a cluster: the other kind sees no subscriber
    const numsub = isCluster(publisher) ? await publisher.call("PUBSUB", "SHARDNUMSUB", channel) : await publisher.pubsub("NUMSUB", channel);
    expect(Number((numsub as [string, number])[1])).toBe(0);
  });

  test("channels in different slots each reach their handler", async () => {
    const channels = Array.from({ length: 8 }, (_, i) => `${prefix}:spread:${i}`);
    const got = new Map<string, string[]>();
    for (const c of channels) await pubsub.subscribe(c, (m) => got.set(c, [...(got.get(c) ?? []), m]));
    await Promise.all(channels.map((c) => pubsub.publish(c, [`to ${c}`])));
    expect(await waitFor(() => channels.every((c) => got.get(c)?.length === 1), 3000)).toBe(true);
    for (const c of channels) expect(got.get(c)).toEqual([`to ${c}`]);
    for (const c of channels) await pubsub.unsubscribe(c);
  });

  test.skipIf(target.name !== "cluster")("cluster: after a failover of the channel's master the subscription follows the slot", async () => {
    const cluster = target.cluster!;
    const channel = `${prefix}:failover`;
    const got: string[] = [];
    await pubsub.subscribe(channel, (m) => got.push(m));
    await pubsub.publish(channel, ["before"]);
    expect(await waitFor(() => got.includes("before"), 3000)).toBe(true);

    const master = await cluster.masterOf(channel);
    const promoted = await cluster.failover(master.port);
    expect(promoted.port).not.toBe(master.port);
    // ioredis notices the new slot owner and subscribes there; publish until a message gets through
    let n = 0;
    const through = await waitFor(async () => {
      await pubsub.publish(channel, [`after ${++n}`]).catch(() => {});
      return got.some((m) => m.startsWith("after"));
    }, 15_000, 200);
    expect(through).toBe(true);
    await pubsub.unsubscribe(channel);
  }, 30_000);
});
