// Validation of the workflow step types of issue 21 through app.handle: digest, throttle, `if` on any
// step, delay `until`; 422 validation_failed with details keyed `steps[i].field`, nothing created.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sql } from "../../store/db";
import { call, createTenant } from "../support/fixtures";

let T: Awaited<ReturnType<typeof createTenant>>;
const SEND = { type: "send", channel: "in_app", template: "t" };
let seq = 0;
const slug = () => `v-${++seq}`;
const post = (steps: unknown[]) => call("POST", "/v1/workflows", { key: T.sandboxKey, body: { slug: slug(), name: "n", steps } });

beforeAll(async () => {
  T = await createTenant();
});
afterAll(async () => {
  await sql`delete from events where tenant_id = ${T.tenant.id}`;
  await sql`delete from tenants where id = ${T.tenant.id}`;
});

async function rejects(steps: unknown[], field: string, message?: RegExp) {
  const before = await sql`select count(*)::int as n from workflows where tenant_id = ${T.tenant.id}`;
  const r = await post(steps);
  expect(r.status).toBe(422);
  expect(r.body.error.code).toBe("validation_failed");
  expect(Object.keys(r.body.error.details)).toContain(field);
  if (message) expect(r.body.error.details[field].join(" ")).toMatch(message);
  const after = await sql`select count(*)::int as n from workflows where tenant_id = ${T.tenant.id}`;
  expect(after[0]!.n).toBe(before[0]!.n);
}

async function accepts(steps: unknown[]) {
  const r = await post(steps);
  expect(r.status).toBe(201);
  return r.body.data;
}

describe("digest", () => {
  test("window: required, <N>m|<N>h|<N>d, at most 24h (24h and 1440m accepted, 25h and 2d refused)", async () => {
    await rejects([{ type: "digest" }, SEND], "steps[0].window", /required/);
    await rejects([{ type: "digest", window: "soon" }, SEND], "steps[0].window", /<N>m/);
    await rejects([{ type: "digest", window: 5 }, SEND], "steps[0].window", /string/);
    for (const over of ["25h", "2d", "1441m"]) await rejects([{ type: "digest", window: over }, SEND], "steps[0].window", /24 hours/);
    for (const ok of ["24h", "1440m", "1d", "1m"]) expect((await accepts([{ type: "digest", window: ok }, SEND])).steps[0]).toEqual({ type: "digest", window: ok });
  });

  test("max_events: an integer 2-1000; key: a valid Liquid string of at most 255 characters", async () => {
    for (const bad of [1, 1001, 2.5]) await rejects([{ type: "digest", window: "1h", max_events: bad }, SEND], "steps[0].max_events");
    await rejects([{ type: "digest", window: "1h", max_events: "5" }, SEND], "steps[0].max_events", /integer/);
    await rejects([{ type: "digest", window: "1h", key: "{{ data.thread" }, SEND], "steps[0].key", /Liquid/);
    await rejects([{ type: "digest", window: "1h", key: 7 }, SEND], "steps[0].key", /string/);
    await rejects([{ type: "digest", window: "1h", key: "k".repeat(256) }, SEND], "steps[0].key", /255/);
    const ok = await accepts([{ type: "digest", window: "1h", key: "{{ data.thread_id }}", max_events: 2 }, SEND]);
    expect(ok.steps[0]).toEqual({ type: "digest", window: "1h", key: "{{ data.thread_id }}", max_events: 2 });
    expect((await accepts([{ type: "digest", window: "1h", max_events: 1000 }, SEND])).steps[0].max_events).toBe(1000);
  });

  test("unknown fields are refused by name; one digest step per workflow", async () => {
    await rejects([{ type: "digest", window: "1h", limit: 3 }, SEND], "steps[0].limit", /not allowed in a digest step/);
    await rejects([{ type: "digest", window: "1h" }, { type: "digest", window: "1h" }, SEND], "steps[1].type", /one digest step/);
  });
});

describe("throttle", () => {
  test("limit: required integer 1-1000; window: required duration at most 7 days; key optional Liquid", async () => {
    await rejects([{ type: "throttle", window: "1h" }, SEND], "steps[0].limit", /required/);
    for (const bad of [0, 1001, 1.5]) await rejects([{ type: "throttle", limit: bad, window: "1h" }, SEND], "steps[0].limit");
    await rejects([{ type: "throttle", limit: 3 }, SEND], "steps[0].window", /required/);
    await rejects([{ type: "throttle", limit: 3, window: "8d" }, SEND], "steps[0].window", /7 days/);
    await rejects([{ type: "throttle", limit: 3, window: "1h", key: "{% if %}" }, SEND], "steps[0].key", /Liquid/);
    await rejects([{ type: "throttle", limit: 3, window: "1h", max_events: 3 }, SEND], "steps[0].max_events", /not allowed in a throttle step/);
    const ok = await accepts([{ type: "throttle", limit: 1000, window: "7d", key: "{{ data.kind }}" }, SEND]);
    expect(ok.steps[0]).toEqual({ type: "throttle", limit: 1000, window: "7d", key: "{{ data.kind }}" });
    expect((await accepts([{ type: "throttle", limit: 1, window: "1m" }, SEND])).steps[0].limit).toBe(1);
  });
});

describe("if on any step", () => {
  test("must be an object with one known operator (nested ones too)", async () => {
    await rejects([{ ...SEND, if: "true" }], "steps[0].if", /JSON Logic/);
    await rejects([{ ...SEND, if: [1] }], "steps[0].if", /JSON Logic/);
    await rejects([{ ...SEND, if: {} }], "steps[0].if", /exactly one operator/);
    await rejects([{ ...SEND, if: { "==": [1, 1], "!=": [1, 2] } }], "steps[0].if", /exactly one operator/);
    await rejects([{ ...SEND, if: { frobnicate: [1] } }], "steps[0].if", /unknown operator 'frobnicate'/);
    await rejects([{ ...SEND, if: { and: [{ "==": [1, 1] }, { method: ["x", "toString"] }] } }], "steps[0].if", /unknown operator 'method'/);
    await rejects([SEND, { type: "delay", duration: "1h", if: { bogus: 1 } }], "steps[1].if", /unknown operator/);
  });

  test("is accepted on every step type and returned as given", async () => {
    const rule = { "!": { var: "steps.0.read" } };
    const ok = await accepts([
      { ...SEND, if: { "==": [{ var: "data.plan" }, "pro"] } },
      { type: "delay", duration: "1h", if: rule },
      { type: "fallback", channels: ["email"], template: "t", if: rule },
      { type: "digest", window: "1h", if: rule },
      { type: "throttle", limit: 1, window: "1h", if: rule },
      { type: "send", channel: "email", template: "t", if: rule },
    ]);
    expect(ok.steps.map((s: any) => s.if)).toEqual([{ "==": [{ var: "data.plan" }, "pro"] }, rule, rule, rule, rule, rule]);
  });
});

describe("delay until", () => {
  test("HH:MM 00:00-23:59, not together with duration; duration or until is required", async () => {
    for (const bad of ["9:00", "24:00", "09:60", "0900", "09:00:00", 900]) await rejects([{ type: "delay", until: bad }, SEND], "steps[0].until", /HH:MM/);
    await rejects([{ type: "delay", until: "09:00", duration: "1h" }, SEND], "steps[0].until", /one of duration or until/);
    await rejects([{ type: "delay" }, SEND], "steps[0].duration", /required/);
    for (const ok of ["00:00", "09:00", "23:59"]) expect((await accepts([{ type: "delay", until: ok }, SEND])).steps[0]).toEqual({ type: "delay", until: ok });
  });

  test("SPEC's delay is unchanged: duration alone, as before", async () => {
    expect((await accepts([{ type: "delay", duration: "7d" }, SEND])).steps[0]).toEqual({ type: "delay", duration: "7d" });
  });
});
