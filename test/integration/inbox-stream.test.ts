// The in-app stream GET /v1/subscribers/:id/notifications/stream over real HTTP, real Redis and
// PostgreSQL: items created and read through ANOTHER API process, heartbeats, Last-Event-ID resume.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawn, type Subprocess } from "bun";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createHmac } from "node:crypto";
import { startServer } from "../../http/server";
import { call, createKey, createTenant } from "../support/fixtures";
import { sql } from "../../store/db";
import { redis } from "../../store/redis";
import { redisKey } from "../../store/redis-keys";
import { newId } from "../../store/ids";
import { deliverToInbox, inboxListenerCount } from "../../domain/inbox/inbox";
import { inboxStreamSettings } from "../../http/routes/inbox";

const ROOT = join(import.meta.dir, "..", "..");

// The second API process: startServer on a random port, and a line protocol on stdin so the test
// can have THAT process deliver items (deliverToInbox) as the channel sender would.
const SECOND_PROCESS = `
import { startServer } from ${JSON.stringify(join(ROOT, "http/server.ts"))};
import { deliverToInbox } from ${JSON.stringify(join(ROOT, "domain/inbox/inbox.ts"))};
const server = startServer(0, "127.0.0.1");
console.log(JSON.stringify({ ready: true, port: server.port, pid: process.pid }));
let buf = "";
for await (const chunk of Bun.stdin.stream()) {
  buf += new TextDecoder().decode(chunk);
  let nl;
  while ((nl = buf.indexOf("\\n")) >= 0) {
    const line = buf.slice(0, nl);
    buf = buf.slice(nl + 1);
    const req = JSON.parse(line);
    try {
      const r = await deliverToInbox(req);
      console.log(JSON.stringify({ ok: true, itemId: r.itemId, pid: process.pid }));
    } catch (err) {
      console.log(JSON.stringify({ ok: false, code: err.code, pid: process.pid }));
    }
  }
}
await server.stop();
process.exit(0);
`;

class SecondProcess {
  private lines: string[] = [];
  private waiters: ((line: string) => void)[] = [];
  constructor(readonly proc: Subprocess<"pipe", "pipe", "pipe">) {
    void this.pump();
  }
  private async pump() {
    const decoder = new TextDecoder();
    let buf = "";
    for await (const chunk of this.proc.stdout as ReadableStream<Uint8Array>) {
      buf += decoder.decode(chunk);
      let nl;
      while ((nl = buf.indexOf("\n")) >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        if (!line.startsWith("{")) continue; // log lines
        const w = this.waiters.shift();
        if (w) w(line);
        else this.lines.push(line);
      }
    }
  }
  next(timeoutMs = 20_000): Promise<any> {
    const line = this.lines.shift();
    if (line) return Promise.resolve(JSON.parse(line));
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error("second process did not answer")), timeoutMs);
      this.waiters.push((l) => {
        clearTimeout(timer);
        resolve(JSON.parse(l));
      });
    });
  }
  async send(obj: unknown) {
    this.proc.stdin.write(JSON.stringify(obj) + "\n");
    await this.proc.stdin.flush();
    return this.next();
  }
}

/** Reads SSE frames from a fetch Response. */
class SseReader {
  private buf = "";
  private reader: ReadableStreamDefaultReader<Uint8Array>;
  private decoder = new TextDecoder();
  comments: string[] = [];
  constructor(res: Response, private abort?: AbortController) {
    this.reader = res.body!.getReader();
  }
  /** The next event frame ({id, event, data}); comment lines are collected on the side. */
  async nextEvent(timeoutMs = 10_000): Promise<{ id?: string; event?: string; data?: any }> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      let sep;
      while ((sep = this.buf.indexOf("\n\n")) >= 0) {
        const frame = this.buf.slice(0, sep);
        this.buf = this.buf.slice(sep + 2);
        const out: { id?: string; event?: string; data?: any } = {};
        for (const line of frame.split("\n")) {
          if (line.startsWith(":")) this.comments.push(line);
          else if (line.startsWith("id: ")) out.id = line.slice(4);
          else if (line.startsWith("event: ")) out.event = line.slice(7);
          else if (line.startsWith("data: ")) out.data = JSON.parse(line.slice(6));
        }
        if (out.event) return out;
      }
      const left = deadline - Date.now();
      if (left <= 0) throw new Error("no SSE event in time");
      const chunk = await Promise.race([
        this.reader.read(),
        new Promise<never>((_, reject) => setTimeout(() => reject(new Error("no SSE event in time")), left)),
      ]);
      if (chunk.done) throw new Error("stream ended");
      this.buf += this.decoder.decode(chunk.value);
    }
  }
  /** Waits until a comment line matching `re` arrives. */
  async waitForComment(re: RegExp, timeoutMs = 5_000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.comments.find((c) => re.test(c)) ?? this.buf.split("\n").find((l) => l.startsWith(":") && re.test(l));
      if (found) return found;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no comment ${re} in time`);
      const chunk = await Promise.race([
        this.reader.read(),
        new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`no comment ${re} in time`)), left)),
      ]);
      if (chunk.done) throw new Error("stream ended");
      this.buf += this.decoder.decode(chunk.value);
    }
  }
  /** Closes the connection as a browser tab would. */
  async cancel() {
    await this.reader.cancel().catch(() => {});
    this.abort?.abort();
  }
}

let server: ReturnType<typeof startServer>;
let second: SecondProcess;
let secondPort: number;
let t: Awaited<ReturnType<typeof createTenant>>;
let scope: { tenantId: string; environment: string };

beforeAll(async () => {
  server = startServer(0, "127.0.0.1");
  t = await createTenant();
  scope = { tenantId: t.tenant.id, environment: "production" };
  const dir = mkdtempSync(join(tmpdir(), "nms-inbox-"));
  const script = join(dir, "second-api-process.ts");
  writeFileSync(script, SECOND_PROCESS);
  const proc = spawn([join(ROOT, "node_modules/.bin/bun"), script], {
    cwd: ROOT,
    stdin: "pipe",
    stdout: "pipe",
    stderr: "pipe",
    // same database and the same Redis prefix: that is what makes it the same deployment
    env: { ...process.env, NODE_ENV: "test", LOG_LEVEL: "error", PORT: "0" },
  });
  second = new SecondProcess(proc);
  const ready = await second.next(30_000);
  expect(ready.ready).toBe(true);
  expect(ready.pid).not.toBe(process.pid);
  secondPort = ready.port;
});

afterAll(async () => {
  inboxStreamSettings.heartbeatMs = 15_000;
  second?.proc.stdin.end();
  second?.proc.kill();
  await second?.proc.exited;
  await server?.app.stop(true); // SSE connections stay open otherwise
});

async function subscriber() {
  const r = await call("POST", "/v1/subscribers", { key: t.secretKey, body: { external_id: `st-${crypto.randomUUID().slice(0, 8)}` } });
  expect(r.status).toBe(201);
  return r.body.data as { id: string; external_id: string };
}

const aborts = new WeakMap<Response, AbortController>();
async function openStream(path: string, headers: Record<string, string> = {}, key = t.secretKey) {
  const abort = new AbortController();
  const res = await fetch(`${server.url.replace("localhost", "127.0.0.1")}${path}`, {
    headers: { authorization: `Bearer ${key}`, ...headers },
    signal: abort.signal,
  });
  aborts.set(res, abort);
  return res;
}
const reader = (res: Response) => new SseReader(res, aborts.get(res));

describe("GET /v1/subscribers/:id/notifications/stream", () => {
  test("receives inbox.notification.received for an item created through ANOTHER API process, and .read from its route", async () => {
    const sub = await subscriber();
    const res = await openStream(`/v1/subscribers/${sub.external_id}/notifications/stream`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/event-stream");
    const sse = reader(res);
    await sse.waitForComment(/connected/);

    const notificationId = newId();
    const delivered = await second.send({ ...scope, recipient: sub.id, notificationId, title: "From B", body: "cross-process", data: { n: 1 } });
    expect(delivered.ok).toBe(true);
    expect(delivered.pid).not.toBe(process.pid);

    const received = await sse.nextEvent();
    expect(received.event).toBe("inbox.notification.received");
    expect(received.data.type).toBe("inbox.notification.received");
    expect(received.id).toBe(received.data.id);
    expect(received.data.data.subscriber_id).toBe(sub.id);
    expect(received.data.data.external_id).toBe(sub.external_id);
    expect(received.data.data.item).toMatchObject({ id: delivered.itemId, notification_id: notificationId, title: "From B", read: false });
    const [stored] = await sql`select id from events where id = ${received.id!}`;
    expect(stored).toBeDefined();

    // mark it read through the other process's HTTP route
    const readRes = await fetch(`http://127.0.0.1:${secondPort}/v1/subscribers/${sub.id}/notifications/${delivered.itemId}/read`, {
      method: "POST",
      headers: { authorization: `Bearer ${t.secretKey}` },
    });
    expect(readRes.status).toBe(200);
    const read = await sse.nextEvent();
    expect(read.event).toBe("inbox.notification.read");
    expect(read.data.data.item).toMatchObject({ id: delivered.itemId, read: true });
    await sse.cancel();
  });

  test("only this subscriber's events arrive", async () => {
    const a = await subscriber();
    const b = await subscriber();
    const sse = reader(await openStream(`/v1/subscribers/${a.id}/notifications/stream`));
    await sse.waitForComment(/connected/);
    await second.send({ ...scope, recipient: b.id, notificationId: newId(), title: "for b" });
    const mine = await second.send({ ...scope, recipient: a.id, notificationId: newId(), title: "for a" });
    const e = await sse.nextEvent();
    expect(e.data.data.item.id).toBe(mine.itemId);
    await sse.cancel();
  });

  test("sends a heartbeat comment line periodically (15 s in production)", async () => {
    inboxStreamSettings.heartbeatMs = 150;
    try {
      const sub = await subscriber();
      const sse = reader(await openStream(`/v1/subscribers/${sub.id}/notifications/stream`));
      expect(await sse.waitForComment(/^: heartbeat/)).toMatch(/^: heartbeat \d{4}-/);
      await sse.cancel();
    } finally {
      inboxStreamSettings.heartbeatMs = 15_000;
    }
  });

  test("Last-Event-ID resumes: replays what came after that event, in order, then goes live", async () => {
    const sub = await subscriber();
    const items = [];
    for (let i = 0; i < 3; i++) {
      items.push(await deliverToInbox({ ...scope, recipient: sub.id, notificationId: newId(), title: `m${i}` }));
    }
    await call("POST", `/v1/subscribers/${sub.id}/notifications/${items[0]!.itemId}/read`, { key: t.secretKey });
    const events = await sql`
      select id, type from events where tenant_id = ${scope.tenantId} and data ->> 'subscriber_id' = ${sub.id}
      order by created_at, id`;
    expect(events.length).toBe(4);

    const sse = reader(await openStream(`/v1/subscribers/${sub.id}/notifications/stream`, { "last-event-id": events[0]!.id }));
    const replayed = [await sse.nextEvent(), await sse.nextEvent(), await sse.nextEvent()];
    expect(replayed.map((e) => e.id)).toEqual(events.slice(1).map((e: any) => e.id));
    expect(replayed.map((e) => e.event)).toEqual(["inbox.notification.received", "inbox.notification.received", "inbox.notification.read"]);
    const live = await second.send({ ...scope, recipient: sub.id, notificationId: newId(), title: "live" });
    const next = await sse.nextEvent();
    expect(next.data.data.item.id).toBe(live.itemId);
    await sse.cancel();
  });

  test("an unknown Last-Event-ID replays nothing and the stream stays live", async () => {
    const sub = await subscriber();
    await deliverToInbox({ ...scope, recipient: sub.id, notificationId: newId(), title: "old" });
    const sse = reader(await openStream(`/v1/subscribers/${sub.id}/notifications/stream`, { "last-event-id": newId() }));
    await sse.waitForComment(/connected/);
    const live = await second.send({ ...scope, recipient: sub.id, notificationId: newId(), title: "new" });
    expect((await sse.nextEvent()).data.data.item.id).toBe(live.itemId);
    await sse.cancel();
  });

  test("closing the connection removes the process's listener (and its Redis subscription)", async () => {
    const sub = await subscriber();
    const sse = reader(await openStream(`/v1/subscribers/${sub.id}/notifications/stream`));
    await sse.waitForComment(/connected/);
    const channel = redisKey("inbox", scope.tenantId, scope.environment, sub.id);
    const numsub = async () => Number(((await redis.pubsub("NUMSUB", channel)) as [string, number])[1]);
    expect(inboxListenerCount(sub.id)).toBe(1);
    expect(await numsub()).toBe(1);
    await sse.cancel();
    for (let i = 0; i < 150 && inboxListenerCount(sub.id) > 0; i++) await Bun.sleep(20);
    expect(inboxListenerCount(sub.id)).toBe(0);
    for (let i = 0; i < 50 && (await numsub()) > 0; i++) await Bun.sleep(20);
    expect(await numsub()).toBe(0);
  });

  test("a graceful server stop ends open streams instead of waiting for them forever", async () => {
    const sub = await subscriber();
    const other = startServer(0, "127.0.0.1");
    const res = await fetch(`http://127.0.0.1:${other.port}/v1/subscribers/${sub.id}/notifications/stream`, {
      headers: { authorization: `Bearer ${t.secretKey}` },
    });
    const sse = new SseReader(res);
    await sse.waitForComment(/connected/);
    const outcome = await Promise.race([other.stop().then(() => "stopped"), Bun.sleep(5_000).then(() => "hung")]);
    expect(outcome).toBe("stopped");
    await expect(sse.nextEvent(2_000)).rejects.toThrow(/stream ended/);
  });

  test("unknown subscriber 404; publishable key with a wrong subscriber hash 403, with the right one 200", async () => {
    expect((await openStream(`/v1/subscribers/nobody-${newId()}/notifications/stream`)).status).toBe(404);
    const sub = await subscriber();
    await sql`update tenants set developer_mode = true where id = ${t.tenant.id}`;
    const pk = (await createKey(t.tenant.id, { keyType: "publishable" })).raw;
    const [{ inbox_secret }] = (await sql`select inbox_secret from tenants where id = ${t.tenant.id}`) as any;
    const hash = (ext: string) => createHmac("sha256", inbox_secret).update(ext).digest("hex");
    const origin = "http://localhost:3000";
    const wrong = await openStream(
      `/v1/subscribers/${sub.external_id}/notifications/stream`,
      { origin, "x-subscriber-id": sub.external_id, "x-subscriber-hash": hash("not-me") },
      pk,
    );
    expect(wrong.status).toBe(403);
    const right = await openStream(
      `/v1/subscribers/${sub.external_id}/notifications/stream`,
      { origin, "x-subscriber-id": sub.external_id, "x-subscriber-hash": hash(sub.external_id) },
      pk,
    );
    expect(right.status).toBe(200);
    await reader(right).cancel();
  });
});
