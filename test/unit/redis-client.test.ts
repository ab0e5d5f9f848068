// The Redis URL forms (runtime/redis-client.ts): a single Redis or a redis+cluster:// node list, and
// the hash-tag rule that decides which keys share a cluster slot (and so a pipeline or a script), and
// the tracing-channel answer that keeps ioredis from tracing every command under Bun.
import { describe, expect, test } from "bun:test";
import { hashTagOf, parseClusterUrl, redact } from "../../runtime/redis-client";

describe("parseClusterUrl", () => {
  test("a single Redis is not a cluster", () => {
    expect(parseClusterUrl("redis://127.0.0.1:6379")).toBeNull();
    expect(parseClusterUrl("rediss://user:pw@redis.example:6380/2")).toBeNull();
  });

  test("redis+cluster:// lists start-up nodes; credentials and TLS apply to every node", () => {
    expect(parseClusterUrl("redis+cluster://10.0.0.1:7000,10.0.0.2:7001,redis-c:7002")).toEqual({
      nodes: [
        { host: "10.0.0.1", port: 7000 },
        { host: "10.0.0.2", port: 7001 },
        { host: "redis-c", port: 7002 },
      ],
      username: undefined,
      password: undefined,
      tls: false,
    });
    expect(parseClusterUrl("rediss+cluster://nms:p%40ss:word@a:7000,[::1]:7001/")).toEqual({
      nodes: [
        { host: "a", port: 7000 },
        { host: "::1", port: 7001 },
      ],
      username: "nms",
      password: "p@ss:word",
      tls: true,
    });
    expect(parseClusterUrl("redis+cluster://:secret@a")?.password).toBe("secret");
    expect(parseClusterUrl("redis+cluster://a")?.nodes).toEqual([{ host: "a", port: 6379 }]);
  });

  test("a database, path or options are refused (a cluster only has database 0), without echoing the password", () => {
    expect(() => parseClusterUrl("redis+cluster://u:topsecret@a:7000/1")).toThrow(/no database/);
    expect(() => parseClusterUrl("redis+cluster://u:topsecret@a:7000/1")).not.toThrow(/topsecret/);
    expect(() => parseClusterUrl("redis+cluster://a:7000?tls=true")).toThrow();
    expect(() => parseClusterUrl("redis+cluster://a:port")).toThrow(/not host:port/);
    expect(redact("redis+cluster://u:topsecret@a:1,b:2")).toBe("redis+cluster://u:***@a:1,b:2");
  });
});

describe("hashTagOf (Redis Cluster key slots)", () => {
  test("the first non-empty {...} picks the slot, else the whole key", () => {
    expect(hashTagOf("nms:{channel-sender:3}")).toBe("channel-sender:3");
    expect(hashTagOf("nms:{channel-sender:3}:timers")).toBe("channel-sender:3");
    expect(hashTagOf("nms:lease:{channel-sender:3}")).toBe("channel-sender:3");
    expect(hashTagOf("nms:dead:channel-sender")).toBe("nms:dead:channel-sender");
    expect(hashTagOf("a{}b{c}")).toBe("a{}b{c}"); // an empty first tag means the whole key
    expect(hashTagOf("a{b")).toBe("a{b");
    expect(hashTagOf("{x}{y}")).toBe("x");
  });
});

describe("ioredis tracing under Bun", () => {
  test("a tracing channel nobody subscribes to says so (ioredis then skips tracing every command); a subscriber turns it on", async () => {
    const dc = await import("node:diagnostics_channel");
    await import("../../runtime/redis-client");
    const channel = dc.tracingChannel("ioredis:command");
    expect(channel.hasSubscribers).toBe(false);
    const handlers = { start() {}, end() {}, asyncStart() {}, asyncEnd() {}, error() {} };
    channel.subscribe(handlers);
    expect(channel.hasSubscribers).toBe(true);
    channel.unsubscribe(handlers);
    expect(channel.hasSubscribers).toBe(false);
  });
});
