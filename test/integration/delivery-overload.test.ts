// Overload (issue: delivery stalled silently under overload): bursts well past a sender host's
// drain rate, with the reconciler scanning every 100 ms and calling anything older than 300 ms
// stale. Every notification must end terminal soon after the load stops, each with exactly one
// provider call, with no deadlock, no failed scan and no stalled reader along the way.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { channelSender } from "../../actors/channel-sender";
import { startReconciler } from "../../jobs/reconciler";
import { config } from "../../config";
import { createRuntime, type RuntimeLogger } from "../../runtime";
import { sql } from "../../store/db";
import { call, createTenant } from "../support/fixtures";
import * as fakeTwilio from "../support/fake-twilio";
import { connect, deletePrefix, sleep } from "../support/runtime-redis";

const SID = "AC" + "0123456789abcdef".repeat(2);
let tw: fakeTwilio.FakeTwilio;

beforeAll(async () => {
  tw = await fakeTwilio.start();
});

afterAll(async () => {
  await tw.stop();
  const r = connect();
  await deletePrefix(r, config.redisPrefix);
  await r.quit();
});

function warnings(): { lines: string[]; logger: RuntimeLogger } {
  const lines: string[] = [];
  const make = (): RuntimeLogger => {
    const keep = (level: string) => (obj: any, msg?: string) => void lines.push(`${level}: ${msg ?? ""} ${obj?.err?.message ?? ""}`);
    return { info() {}, debug() {}, warn: keep("warn"), error: keep("error"), child: () => make() };
  };
  return { lines, logger: make() };
}

test("bursts past the drain rate with an eager reconciler: all terminal within 60 s of the load's end, one provider call each, no deadlock", async () => {
  const t = await createTenant();
  const ch = await call("POST", "/v1/channels", {
    key: t.secretKey,
    body: { channel: "sms", provider: "twilio", credentials: { account_sid: SID, auth_token: "tok" }, settings: { from: "+14155550100", base_url: tw.url, rate_limit_per_second: 100_000 } },
  });
  expect(ch.status).toBe(201);
  tw.always({ kind: "hang", ms: 4 }); // every provider call takes a few ms

  // a small host: 8 slots, so the accept side outruns it several times over
  const { lines, logger } = warnings();
  const runtime = createRuntime({ redisUrl: config.redisUrl, prefix: config.redisPrefix, partitions: config.partitions, timeScale: 0.001, logger });
  const host = runtime.startHost({ actors: [channelSender], leaseMs: 3000, blockMs: 100, timerPollMs: 20, concurrency: 8, maxInFlight: 400 });
  await host.ready;
  const reconciler = startReconciler({ everyMs: 100, staleAfterMs: 300, tenantId: t.tenant.id });

  const ids: string[] = [];
  let seq = 0;
  const burst = async (n: number) => {
    const one = async () => {
      const r = await call("POST", "/v1/notifications", { key: t.secretKey, body: { channel: "sms", to: `+55119${String(20000000 + seq++)}`, data: { content: "x" } } });
      expect(r.status).toBe(202);
      ids.push(r.body.data.id);
    };
    for (let i = 0; i < n; i += 64) await Promise.all(Array.from({ length: Math.min(64, n - i) }, one));
  };
  try {
    for (let b = 0; b < 3; b++) {
      await burst(1000);
      await sleep(300);
    }
    const backlog = await sql`select count(*)::int as n from notifications where tenant_id = ${t.tenant.id} and status = 'pending'`;
    expect(backlog[0]!.n).toBeGreaterThan(100); // the load did outrun the host

    const deadline = Date.now() + 60_000;
    let left = ids.length;
    while (left > 0 && Date.now() < deadline) {
      await sleep(200);
      [{ n: left }] = (await sql`select count(*)::int as n from notifications where tenant_id = ${t.tenant.id} and status = 'pending'`) as any;
    }
    expect(left).toBe(0);
    const byStatus = await sql`select status, count(*)::int as n from notifications where tenant_id = ${t.tenant.id} group by status`;
    expect([...byStatus]).toEqual([{ status: "sent", n: 3000 }]);
    // exactly one attempt and one provider call per notification: the reconciler re-enqueued nothing it should not have
    const [att] = await sql`select count(*)::int as n, max(attempt_number)::int as max from notification_attempts where tenant_id = ${t.tenant.id}`;
    expect(att).toEqual({ n: 3000, max: 1 });
    expect(tw.requests.filter((r) => r.kind === "send")).toHaveLength(3000);
    expect(reconciler.failures).toBe(0);
    expect(lines.filter((l) => /deadlock|stalled|did not settle|overdue/.test(l))).toEqual([]);
    expect(host.stats().loopFailures).toBe(0);
  } finally {
    await reconciler.stop();
    tw.releaseHanging();
    await host.stop();
    await runtime.close();
  }
}, 120_000);
