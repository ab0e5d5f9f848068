// A TCP proxy in front of the real Redis for fault tests: it forwards bytes both ways and can
// freeze a connection (stop forwarding, as a half-dead network would) the moment it sends a command.
import net from "node:net";

export interface RedisProxy {
  readonly url: string;
  /** Freezes every connection that sends a command containing `needle` (e.g. "XREADGROUP") from now on, `count` times at most. */
  freezeOn(needle: string, count?: number): void;
  /** Connections frozen so far. */
  readonly frozen: number;
  stop(): Promise<void>;
}

export async function startRedisProxy(target = { host: "127.0.0.1", port: 6379 }): Promise<RedisProxy> {
  const sockets = new Set<net.Socket>();
  let rule: { needle: string; left: number } | null = null;
  let frozen = 0;
  const server = net.createServer((client) => {
    const upstream = net.connect(target.port, target.host);
    sockets.add(client);
    sockets.add(upstream);
    let isFrozen = false;
    client.on("data", (chunk: Buffer) => {
      if (isFrozen) return;
      if (rule && rule.left > 0 && chunk.toString("latin1").toLowerCase().includes(rule.needle)) {
        rule.left--;
        isFrozen = true;
        frozen++;
        return; // the command never reaches Redis and no answer ever comes back
      }
      upstream.write(chunk);
    });
    upstream.on("data", (chunk: Buffer) => {
      if (!isFrozen) client.write(chunk);
    });
    const close = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on("error", close);
    upstream.on("error", close);
    client.on("close", close);
    upstream.on("close", close);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as net.AddressInfo).port;
  return {
    url: `redis://127.0.0.1:${port}`,
    freezeOn(needle, count = Infinity) {
      rule = { needle: needle.toLowerCase(), left: count }; // ioredis sends command names in lower case
    },
    get frozen() {
      return frozen;
    },
    async stop() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
