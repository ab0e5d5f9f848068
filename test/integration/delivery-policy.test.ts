// The delivery policy through the whole system (issue 22): GET/PUT /v1/settings/delivery, the
// channel sender and workflow-run actors on one host over real Redis and PostgreSQL at TIME_SCALE
// 0.02 (a hold of 2 min lasts 2.4 s): quiet hours hold an sms as `scheduled` and release it, a
// critical one passes, the subscriber's timezone wins over the tenant's; a cap of 3 per hour across
// two workflows and the direct API admits exactly 3 of 20 concurrent sends, the rest suppressed
// (frequency_capped) without a provider call.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sql } from "../../store/db";
import { call, createTenant } from "../support/fixtures";
import { sleep } from "../support/runtime-redis";
import { createWorkflow, dropTenant, startWorkflowHost, trigger, wipeRedis } from "./workflow-support";

let T: Awaited<ReturnType<typeof createTenant>>;
let host: Awaited<ReturnType<typeof startWorkflowHost>>;
const key = () => T.sandboxKey;

const hhmm = (d: Date) => d.toISOString().slice(11, 16);
const sms = (to: string, extra: Record<string, unknown> = {}) => call("POST", "/v1/notifications", { key: key(), body: { channel: "sms", to, data: { content: "hi" }, ...extra } });
const detail = async (id: string) => (await call("GET", `/v1/notifications/${id}`, { key: key() })).body.data;

async function waitUntil<T>(fn: () => Promise<T | null | undefined | false>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error("timed out");
    await sleep(20);
  }
}

beforeAll(async () => {
  T = await createTenant();
  host = await startWorkflowHost({ timeScale: 0.02 });
});

afterAll(async () => {
  await host?.stop();
  await wipeRedis();
  await dropTenant(T.tenant.id);
});

describe("GET/PUT /v1/settings/delivery", () => {
  test("defaults, a full policy replaced and read back", async () => {
    const g = await call("GET", "/v1/settings/delivery", { key: key() });
    expect(g.status).toBe(200);
    expect(g.body.data).toEqual({ timezone: "UTC", quiet_hours: null, frequency_caps: [], updated_at: null });
    const body = { timezone: "america/sao_paulo", quiet_hours: { start: "22:00", end: "08:00", channels: ["sms", "push", "whatsapp"] }, frequency_caps: [{ channel: "push", limit: 3, window: "1h" }] };
    const p = await call("PUT", "/v1/settings/delivery", { key: key(), body });
    expect(p.status).toBe(200);
    expect(p.body.data).toMatchObject({ ...body, timezone: "America/Sao_Paulo" });
    expect((await call("GET", "/v1/settings/delivery", { key: key() })).body.data).toEqual(p.body.data);
  });

  test("422 validation_failed with details per field; nothing changes", async () => {
    const before = (await call("GET", "/v1/settings/delivery", { key: key() })).body.data;
    const cases: [Record<string, unknown>, string][] = [
      [{ timezone: "Mars/Olympus" }, "timezone"],
      [{ quiet_hours: { start: "25:00", end: "08:00", channels: ["sms"] } }, "quiet_hours.start"],
      [{ quiet_hours: { start: "22:00", end: "8", channels: ["sms"] } }, "quiet_hours.end"],
      [{ quiet_hours: { start: "22:00", end: "22:00", channels: ["sms"] } }, "quiet_hours.end"],
      [{ quiet_hours: { start: "22:00", end: "08:00", channels: [] } }, "quiet_hours.channels"],
      [{ quiet_hours: { start: "22:00", end: "08:00", channels: ["fax"] } }, "quiet_hours.channels[0]"],
      [{ quiet_hours: "night" }, "quiet_hours"],
      [{ frequency_caps: [{ channel: "sms", limit: 0, window: "1h" }] }, "frequency_caps[0].limit"],
      [{ frequency_caps: [{ channel: "sms", limit: 3, window: "1w" }] }, "frequency_caps[0].window"],
      [{ frequency_caps: [{ channel: "sms", limit: 3, window: "31d" }] }, "frequency_caps[0].window"],
      [{ frequency_caps: [{ channel: "sms", limit: 3, window: "1h" }, { channel: "pager", limit: 1, window: "1h" }] }, "frequency_caps[1].channel"],
      [{ frequency_caps: {} }, "frequency_caps"],
      [{ surprise: 1 }, "surprise"],
    ];
    for (const [body, field] of cases) {
      const r = await call("PUT", "/v1/settings/delivery", { key: key(), body });
      expect(r.status).toBe(422);
      expect(r.body.error.code).toBe("validation_failed");
      expect(Object.keys(r.body.error.details)).toContain(field);
    }
    expect((await call("GET", "/v1/settings/delivery", { key: key() })).body.data).toEqual(before);
  });
});

describe("quiet hours", () => {
  test("an sms inside them is held as scheduled with scheduled_for and sent when they end; a critical one passes; the subscriber's zone wins", async () => {
    const now = new Date();
    // quiet from a minute ago to two minutes ahead (UTC): a hold of 1-2 min, 1.2-2.4 s at TIME_SCALE 0.02
    const q = { start: hhmm(new Date(now.getTime() - 60_000)), end: hhmm(new Date(now.getTime() + 120_000)), channels: ["sms"] };
    expect((await call("PUT", "/v1/settings/delivery", { key: key(), body: { timezone: "UTC", quiet_hours: q } })).status).toBe(200);
    // a subscriber 12 hours away is outside them
    await call("POST", "/v1/subscribers", { key: key(), body: { external_id: "far", phone: "+5511900000001", timezone: "Pacific/Kiritimati" } });

    const held = await sms("+5511900000002");
    const critical = await sms("+5511900000003", { critical: true });
    const far = await sms("+5511900000001");
    expect(held.status).toBe(202);

    const scheduled = await waitUntil(async () => {
      const d = await detail(held.body.data.id);
      return d.status === "scheduled" ? d : null;
    });
    expect(scheduled.scheduled_for.slice(11, 16)).toBe(q.end);
    expect(Date.parse(scheduled.scheduled_for)).toBeGreaterThan(Date.now());
    expect(scheduled.attempts).toEqual([]);
    // the list view shows it as the detail does, and its status filter finds it (and pending does not)
    const listed = (await call("GET", "/v1/notifications?channel=sms&limit=100", { key: key() })).body.data.find((n: any) => n.id === held.body.data.id);
    expect(listed).toMatchObject({ status: "scheduled", scheduled_for: scheduled.scheduled_for });
    const byScheduled = (await call("GET", "/v1/notifications?status=scheduled&limit=100", { key: key() })).body.data.map((n: any) => n.id);
    expect(byScheduled).toContain(held.body.data.id);
    const byPending = (await call("GET", "/v1/notifications?status=pending&limit=100", { key: key() })).body.data.map((n: any) => n.id);
    expect(byPending).not.toContain(held.body.data.id);
    const c = await waitUntil(async () => {
      const d = await detail(critical.body.data.id);
      return ["sent", "delivered"].includes(d.status) ? d : null;
    });
    expect(c.critical).toBe(true);
    await waitUntil(async () => ["sent", "delivered"].includes((await detail(far.body.data.id)).status));
    // still held while the critical and the far one went out
    expect((await detail(held.body.data.id)).status).toBe("scheduled");

    const released = await waitUntil(async () => {
      const d = await detail(held.body.data.id);
      return ["sent", "delivered"].includes(d.status) ? d : null;
    }, 30_000);
    expect(released.attempts.length).toBe(1);
    expect(released.scheduled_for).toBe(scheduled.scheduled_for);
    const relisted = (await call("GET", "/v1/notifications?channel=sms&limit=100", { key: key() })).body.data.find((n: any) => n.id === held.body.data.id);
    expect(["sent", "delivered"]).toContain(relisted.status);
    await call("PUT", "/v1/settings/delivery", { key: key(), body: {} });
  }, 60_000);
});

describe("critical workflow steps", () => {
  test("critical on a send or fallback step must be a boolean (422 with the step's field)", async () => {
    for (const [steps, field] of [
      [[{ type: "send", channel: "sms", template: "t", critical: "yes" }], "steps[0].critical"],
      [[{ type: "send", channel: "sms", template: "t" }, { type: "fallback", channels: ["email"], template: "t", critical: 1 }], "steps[1].critical"],
      [[{ type: "delay", duration: "1m", critical: true }], "steps[0].critical"],
    ] as const) {
      const r = await call("POST", "/v1/workflows", { key: key(), body: { slug: "crit-bad", name: "c", steps } });
      expect(r.status).toBe(422);
      expect(r.body.error.code).toBe("validation_failed");
      expect(Object.keys(r.body.error.details)).toContain(field);
    }
    const ok = await call("POST", "/v1/workflows", { key: key(), body: { slug: "crit-ok", name: "c", steps: [{ type: "send", channel: "sms", template: "t", critical: true }] } });
    expect(ok.status).toBe(201);
    expect(ok.body.data.steps[0].critical).toBe(true);
  });

  test("a critical step's sms passes quiet hours while the same workflow's plain step is held", async () => {
    expect((await call("POST", "/v1/templates", { key: key(), body: { slug: "otp-sms", name: "o", channel: "sms", content: "Code {{ code }}", status: "active" } })).status).toBe(201);
    await createWorkflow(key(), { slug: "otp", name: "otp", steps: [{ type: "send", channel: "sms", template: "otp-sms", critical: true }] });
    await createWorkflow(key(), { slug: "promo", name: "promo", steps: [{ type: "send", channel: "sms", template: "otp-sms" }] });
    await call("POST", "/v1/subscribers", { key: key(), body: { external_id: "night-owl", phone: "+5511900000020" } });
    const now = new Date();
    const q = { start: hhmm(new Date(now.getTime() - 60_000)), end: hhmm(new Date(now.getTime() + 120_000)), channels: ["sms"] };
    expect((await call("PUT", "/v1/settings/delivery", { key: key(), body: { timezone: "UTC", quiet_hours: q } })).status).toBe(200);
    const otp = await trigger(key(), "otp", { to: "night-owl", data: { code: "123456" } });
    const promo = await trigger(key(), "promo", { to: "night-owl", data: { code: "no" } });
    const stepNotification = async (runId: string) =>
      (await sql`select id from notifications where tenant_id = ${T.tenant.id} and idempotency_key = ${`wfrun:${runId}:step:0`}`)[0]?.id as string | undefined;
    const otpId = await waitUntil(() => stepNotification(otp.id));
    const promoId = await waitUntil(() => stepNotification(promo.id));
    const sent = await waitUntil(async () => {
      const d = await detail(otpId);
      return ["sent", "delivered"].includes(d.status) ? d : null;
    });
    expect(sent.critical).toBe(true);
    expect(sent.scheduled_for).toBeNull();
    const heldPromo = await waitUntil(async () => {
      const d = await detail(promoId);
      return d.status === "scheduled" ? d : null;
    });
    expect(heldPromo.critical).toBe(false);
    await call("PUT", "/v1/settings/delivery", { key: key(), body: {} });
    // released at the end of the window all the same (the test owns what it starts)
    await waitUntil(async () => ["sent", "delivered"].includes((await detail(promoId)).status), 30_000);
  }, 60_000);
});

describe("frequency caps", () => {
  test("a cap of 3 per hour across two workflows and the direct API admits exactly 3 of 20 concurrent sends", async () => {
    expect((await call("POST", "/v1/templates", { key: key(), body: { slug: "cap-sms", name: "c", channel: "sms", content: "Hello {{ n }}", status: "active" } })).status).toBe(201);
    await createWorkflow(key(), { slug: "cap-a", name: "a", steps: [{ type: "send", channel: "sms", template: "cap-sms" }] });
    await createWorkflow(key(), { slug: "cap-b", name: "b", steps: [{ type: "send", channel: "sms", template: "cap-sms" }] });
    const sub = (await call("POST", "/v1/subscribers", { key: key(), body: { external_id: "capped", phone: "+5511900000010" } })).body.data;
    expect((await call("PUT", "/v1/settings/delivery", { key: key(), body: { frequency_caps: [{ channel: "sms", limit: 3, window: "1h" }] } })).status).toBe(200);

    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        i % 3 === 0 ? trigger(key(), "cap-a", { to: "capped", data: { n: i } }) : i % 3 === 1 ? trigger(key(), "cap-b", { to: "capped", data: { n: i } }) : sms("+5511900000010"),
      ),
    );
    const rows = await waitUntil(async () => {
      const r = await sql`select id, status, suppressed_reason, provider_message_id, idempotency_key from notifications where tenant_id = ${T.tenant.id} and subscriber_id = ${sub.id}`;
      return r.length === 20 && r.every((x) => x.status !== "pending") ? r : null;
    }, 40_000);
    const sent = rows.filter((r) => ["sent", "delivered"].includes(r.status));
    const capped = rows.filter((r) => r.status === "suppressed");
    expect(sent.length).toBe(3);
    expect(capped.length).toBe(17);
    expect(capped.every((r) => r.suppressed_reason === "frequency_capped" && r.provider_message_id === null)).toBe(true);
    // no provider call for a capped one: no attempt row
    const attempts = await sql`select count(*)::int as n from notification_attempts where notification_id = any(${capped.map((r) => r.id)}::uuid[])`;
    expect(attempts[0]!.n).toBe(0);
    // both workflows and the direct API were counted together
    expect(rows.filter((r) => r.idempotency_key?.startsWith("wfrun:")).length).toBe(14);
    // a critical send passes the full cap, direct or from a critical workflow step
    const crit = await sms("+5511900000010", { critical: true });
    await waitUntil(async () => ["sent", "delivered"].includes((await detail(crit.body.data.id)).status));
    await createWorkflow(key(), { slug: "cap-critical", name: "c", steps: [{ type: "send", channel: "sms", template: "cap-sms", critical: true }] });
    const run = await trigger(key(), "cap-critical", { to: "capped", data: { n: 99 } });
    const critRow = await waitUntil(async () => {
      const [r] = await sql`select status, critical from notifications where tenant_id = ${T.tenant.id} and idempotency_key = ${`wfrun:${run.id}:step:0`}`;
      return r && r.status !== "pending" ? r : null;
    });
    expect(critRow).toMatchObject({ critical: true });
    expect(["sent", "delivered"]).toContain(critRow.status);
  }, 90_000);
});
