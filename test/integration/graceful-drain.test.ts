// Graceful drain: a channel-sender process that gets SIGTERM while provider calls are in flight
// finishes them and records their outcomes before it exits (status 0, inside start.ts's 30 s), so
// no attempt is left `outcome_unknown`; what it did not start waits for the next sender, which
// delivers everything accepted, each notification with exactly one provider call.
import { afterAll, expect, test } from "bun:test";
import { spawn, type ChildProcess } from "node:child_process";
import { join } from "node:path";
import { config } from "../../config";
import { sql } from "../../store/db";
import { call, createTenant } from "../support/fixtures";
import * as fakeTwilio from "../support/fake-twilio";
import { connect, deletePrefix, sleep, waitFor } from "../support/runtime-redis";
import { PROCESS_START_MS, stopChild } from "../support/spawn-ready";

const root = join(import.meta.dir, "..", "..");
const SID = "AC" + "5".repeat(32);
const children: ChildProcess[] = [];
let tw: fakeTwilio.FakeTwilio | null = null;
afterAll(async () => {
  // every sender is gone before the file ends: a live one would take the next files' messages
  await Promise.all(children.map((c) => stopChild(c)));
  await tw?.stop();
  const r = connect();
  await deletePrefix(r, config.redisPrefix);
  await r.quit();
});

async function startSender(): Promise<ChildProcess> {
  const child = spawn(join(root, "node_modules", ".bin", "bun"), ["scripts/start.ts", "--only", "channel-sender"], {
    cwd: root,
    // this run's prefix: app.handle enqueues there
    env: { ...process.env, LOG_LEVEL: "warn", REDIS_PREFIX: config.redisPrefix },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  let output = "";
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`sender did not start:\n${output}`)), PROCESS_START_MS);
    child.stdout!.on("data", (c: Buffer) => {
      output += c.toString();
      if (output.includes("ready:")) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.stderr!.on("data", (c: Buffer) => (output += c.toString()));
    child.once("exit", (code) => reject(new Error(`sender exited ${code}:\n${output}`)));
  });
  return child;
}

test("SIGTERM under load: in-flight provider calls finish and are recorded; nothing is lost or sent twice", async () => {
  tw = await fakeTwilio.start();
  // every provider call takes a while, so the signal lands while many are in flight
  tw.always({ kind: "hang", ms: 300 });
  const t = await createTenant();
  const channel = await call("POST", "/v1/channels", {
    key: t.secretKey,
    body: {
      channel: "sms",
      provider: "twilio",
      credentials: { account_sid: SID, auth_token: "drain-token" },
      settings: { from: "+14155550100", base_url: tw.url, rate_limit_per_second: 100000 },
    },
  });
  expect(channel.status).toBe(201);

  const first = await startSender();
  const TOTAL = 400;
  const ids: string[] = [];
  let next = 0;
  const accept = async () => {
    while (next < TOTAL) {
      const n = next++;
      const r = await call("POST", "/v1/notifications", { key: t.secretKey, body: { channel: "sms", to: "+5511912340001", data: { content: `drain ${n}` } } });
      expect(r.status).toBe(202);
      ids.push(r.body.data.id);
    }
  };
  const load = Promise.all(Array.from({ length: 16 }, accept));
  // the first calls have reached the provider (and more are queued behind them): stop the sender now
  await tw.waitForRequests(40, { timeoutMs: 20_000 });
  const exited = new Promise<number | null>((resolve) => first.once("exit", (code) => resolve(code)));
  first.kill("SIGTERM");
  await load;
  expect(await exited).toBe(0);

  const unknown = async () =>
    (await sql`select count(*)::int as n from notification_attempts where notification_id = any(${ids}::uuid[]) and error->>'code' = 'outcome_unknown'`)[0]!.n;
  // every call the stopped sender made has its outcome recorded: none is left for the stale-claim path
  const claimedWithoutOutcome = await sql`
    select n.id from notifications n
    where n.id = any(${ids}::uuid[]) and n.attempt_count > 0 and n.status = 'pending'
      and not exists (select 1 from notification_attempts a where a.notification_id = n.id and a.attempt_number = n.attempt_count)`;
  expect(claimedWithoutOutcome.map((r) => r.id)).toEqual([]);
  expect(await unknown()).toBe(0);
  const callsBySender1 = tw.requests.length;
  expect(callsBySender1).toBeGreaterThanOrEqual(40);

  await startSender();
  const terminal = async () =>
    (await sql`select count(*)::int as n from notifications where id = any(${ids}::uuid[]) and status in ('sent', 'delivered', 'failed', 'bounced', 'suppressed')`)[0]!.n;
  expect(await waitFor(async () => (await terminal()) === TOTAL, 60_000, 200)).toBe(true);
  const statuses = await sql`select status, count(*)::int as n from notifications where id = any(${ids}::uuid[]) group by status`;
  expect(statuses.map((r) => [r.status, r.n])).toEqual([["sent", TOTAL]]);
  expect(await unknown()).toBe(0);
  // one provider call per notification: the fake saw each body exactly once
  await sleep(200);
  const bodies = tw.requests.map((r) => r.form?.Body);
  expect(bodies.length).toBe(TOTAL);
  expect(new Set(bodies).size).toBe(TOTAL);
}, 120_000);
