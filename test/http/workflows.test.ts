// /v1/workflows and /v1/workflow-runs through app.handle (SPEC "Workflow", "Workflow version", Limits,
// Endpoints "Workflows"): each validation rule with its inclusive limits, versions, soft delete,
// trigger (404, aliases, Idempotency-Key), the run list and detail, cancel, scope isolation.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { config } from "../../config";
import { sql } from "../../store/db";
import { call, createKey, createTenant } from "../support/fixtures";
import { connect, deletePrefix } from "../support/runtime-redis";

let T: Awaited<ReturnType<typeof createTenant>>;
let other: Awaited<ReturnType<typeof createTenant>>;

const SEND = { type: "send", channel: "sms", template: "code" };
const post = (body: unknown, key = T.sandboxKey) => call("POST", "/v1/workflows", { key, body });
let slugSeq = 0;
const slug = (p = "wf") => `${p}-${++slugSeq}`;

beforeAll(async () => {
  T = await createTenant();
  other = await createTenant();
});

afterAll(async () => {
  for (const t of [T, other]) {
    await sql`delete from events where tenant_id = ${t.tenant.id}`;
    await sql`delete from tenants where id = ${t.tenant.id}`;
  }
  // trigger enqueues jobs no host reads here
  const r = connect();
  await deletePrefix(r, config.redisPrefix);
  await r.quit();
});

/** Expects 422 validation_failed whose details hold `field` (and nothing was created). */
async function rejects(body: Record<string, unknown>, field: string, message?: RegExp) {
  const before = await sql`select count(*)::int as n from workflows where tenant_id = ${T.tenant.id}`;
  const r = await post(body);
  expect(r.status).toBe(422);
  expect(r.body.error.code).toBe("validation_failed");
  expect(Object.keys(r.body.error.details)).toContain(field);
  if (message) expect(r.body.error.details[field].join(" ")).toMatch(message);
  const after = await sql`select count(*)::int as n from workflows where tenant_id = ${T.tenant.id}`;
  expect(after[0]!.n).toBe(before[0]!.n);
  return r.body.error.details;
}

describe("validation (422 validation_failed, details keyed by field, nothing created)", () => {
  test("slug: required, 1-100 characters of a-z 0-9 - _ (100 accepted, 101 refused)", async () => {
    await rejects({ name: "n", steps: [SEND] }, "slug", /required/);
    await rejects({ slug: "", name: "n", steps: [SEND] }, "slug");
    await rejects({ slug: "Has-Upper", name: "n", steps: [SEND] }, "slug", /lowercase/);
    await rejects({ slug: "with space", name: "n", steps: [SEND] }, "slug");
    await rejects({ slug: "a".repeat(101), name: "n", steps: [SEND] }, "slug", /100/);
    await rejects({ slug: 5, name: "n", steps: [SEND] }, "slug", /string/);
    expect((await post({ slug: "a".repeat(99) + "z", name: "n", steps: [SEND] })).status).toBe(201);
    expect((await post({ slug: "a-b_c-9", name: "n", steps: [SEND] })).status).toBe(201);
  });

  test("name: required, 1-255 characters (255 accepted, 256 refused)", async () => {
    await rejects({ slug: slug(), steps: [SEND] }, "name", /required/);
    await rejects({ slug: slug(), name: "", steps: [SEND] }, "name");
    await rejects({ slug: slug(), name: "   ", steps: [SEND] }, "name", /blank/);
    await rejects({ slug: slug(), name: "n".repeat(256), steps: [SEND] }, "name", /255/);
    expect((await post({ slug: slug(), name: "n".repeat(255), steps: [SEND] })).status).toBe(201);
  });

  test("steps: required, 1 to 10 (10 accepted, 11 and 0 refused)", async () => {
    await rejects({ slug: slug(), name: "n" }, "steps", /required/);
    await rejects({ slug: slug(), name: "n", steps: [] }, "steps", /at least 1/);
    await rejects({ slug: slug(), name: "n", steps: Array(11).fill(SEND) }, "steps", /at most 10/);
    const ten = await post({ slug: slug(), name: "n", steps: Array(10).fill(SEND) });
    expect(ten.status).toBe(201);
    expect(ten.body.data.steps).toHaveLength(10);
  });

  test("step type: required and one of send, delay, fallback", async () => {
    await rejects({ slug: slug(), name: "n", steps: [SEND, {}] }, "steps[1].type", /required/);
    await rejects({ slug: slug(), name: "n", steps: [SEND, { type: "wait", duration: "1m" }] }, "steps[1].type", /send, delay, fallback/);
  });

  test("send needs a known channel and a template", async () => {
    await rejects({ slug: slug(), name: "n", steps: [{ type: "send", template: "t" }] }, "steps[0].channel", /required/);
    await rejects({ slug: slug(), name: "n", steps: [{ type: "send", channel: "fax", template: "t" }] }, "steps[0].channel", /email, whatsapp, sms, in_app, push/);
    await rejects({ slug: slug(), name: "n", steps: [{ type: "send", channel: "sms" }] }, "steps[0].template", /required/);
    for (const channel of ["email", "whatsapp", "sms", "in_app", "push"]) {
      expect((await post({ slug: slug(), name: "n", steps: [{ type: "send", channel, template: "t" }] })).status).toBe(201);
    }
  });

  test("delay: <N>m|<N>h|<N>d, N a positive integer, at most 7 days (10080m, 168h, 7d accepted; one more refused)", async () => {
    const d = (duration: unknown) => ({ slug: slug(), name: "n", steps: [SEND, { type: "delay", duration }] });
    await rejects({ slug: slug(), name: "n", steps: [{ type: "delay" }] }, "steps[0].duration", /required/);
    for (const bad of ["0m", "-1h", "1.5h", "1s", "1w", "m", "10", " 1m", "1M", ""]) {
      await rejects(d(bad), "steps[1].duration", /<N>m/);
    }
    await rejects(d(60), "steps[1].duration", /string/);
    for (const over of ["10081m", "169h", "8d"]) await rejects(d(over), "steps[1].duration", /7 days/);
    for (const ok of ["1m", "10080m", "168h", "7d", "1d", "90m"]) expect((await post(d(ok))).status).toBe(201);
  });

  test("fallback: a non-empty list of known channels, a template, condition only not_delivered", async () => {
    const f = (step: Record<string, unknown>) => ({ slug: slug(), name: "n", steps: [SEND, { type: "fallback", ...step }] });
    await rejects(f({ template: "t" }), "steps[1].channels", /required/);
    await rejects(f({ channels: [], template: "t" }), "steps[1].channels", /at least one/);
    await rejects(f({ channels: "sms", template: "t" }), "steps[1].channels", /array/);
    await rejects(f({ channels: ["sms", "pigeon"], template: "t" }), "steps[1].channels[1]", /email, whatsapp/);
    await rejects(f({ channels: ["sms", "sms"], template: "t" }), "steps[1].channels", /twice/);
    await rejects(f({ channels: ["sms"] }), "steps[1].template", /required/);
    await rejects(f({ channels: ["sms"], template: "t", condition: "delivered" }), "steps[1].condition", /not_delivered/);
    expect((await post(f({ channels: ["sms", "email"], template: "t", condition: "not_delivered" }))).status).toBe(201);
    expect((await post(f({ channels: ["whatsapp"], template: "t" }))).status).toBe(201);
  });

  test("unknown step types and unknown fields are refused by name; every failure is reported at once", async () => {
    const details = await rejects(
      {
        slug: "Bad Slug",
        name: "",
        color: "blue",
        steps: [
          { type: "send", channel: "sms", template: "t", duration: "1m" },
          { type: "delay", duration: "8d", channel: "sms" },
          { type: "fallback", channels: [], template: "t", condition: "x" },
          { type: "branch" },
        ],
      },
      "steps[1].duration",
    );
    expect(Object.keys(details).sort()).toEqual(
      ["color", "name", "slug", "steps[0].duration", "steps[1].channel", "steps[1].duration", "steps[2].channels", "steps[2].condition", "steps[3].type"].sort(),
    );
    expect(details.color).toEqual(["is not allowed"]);
    expect(details["steps[0].duration"]).toEqual(["is not allowed in a send step"]);
  });
});

describe("definitions and versions", () => {
  test("create: 201 with version 1, active true, id, slug, name, steps, inserted_at, updated_at", async () => {
    const steps = [SEND, { type: "delay", duration: "2h" }, { type: "fallback", channels: ["email"], template: "t" }];
    const r = await post({ slug: "welcome", name: "Welcome", steps });
    expect(r.status).toBe(201);
    expect(Object.keys(r.body.data).sort()).toEqual(["active", "id", "inserted_at", "name", "slug", "steps", "updated_at", "version"]);
    expect(r.body.data).toMatchObject({ slug: "welcome", name: "Welcome", steps, version: 1, active: true });
    const again = await post({ slug: "welcome", name: "Other", steps: [SEND] });
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({ code: "conflict", details: { slug: ["is already taken"] } });
    // another scope may use the same slug
    expect((await post({ slug: "welcome", name: "Welcome", steps: [SEND] }, T.secretKey)).status).toBe(201);
    expect((await post({ slug: "welcome", name: "Welcome", steps: [SEND] }, other.sandboxKey)).status).toBe(201);
  });

  test("PUT creates a new record (new id, version + 1, active) and deactivates the previous; the slug may change", async () => {
    const v1 = (await post({ slug: "onboard", name: "Onboard", steps: [SEND] })).body.data;
    const put = await call("PUT", `/v1/workflows/${v1.id}`, { key: T.sandboxKey, body: { name: "Onboard 2", steps: [SEND, { type: "delay", duration: "1d" }] } });
    expect(put.status).toBe(200);
    const v2 = put.body.data;
    expect(v2).toMatchObject({ slug: "onboard", name: "Onboard 2", version: 2, active: true });
    expect(v2.id).not.toBe(v1.id);
    const old = await call("GET", `/v1/workflows/${v1.id}`, { key: T.sandboxKey });
    expect(old.status).toBe(200);
    expect(old.body.data).toMatchObject({ id: v1.id, version: 1, active: false, name: "Onboard" });
    // the old version can no longer be updated or deleted: the active one can
    const stale = await call("PUT", `/v1/workflows/${v1.id}`, { key: T.sandboxKey, body: { name: "x", steps: [SEND] } });
    expect(stale.status).toBe(409);
    const renamed = await call("PUT", `/v1/workflows/${v2.id}`, { key: T.sandboxKey, body: { slug: "onboarding", name: "Onboarding", steps: [SEND] } });
    expect(renamed.status).toBe(200);
    expect(renamed.body.data).toMatchObject({ slug: "onboarding", version: 3, active: true });
    // the old slug is free again, and a taken slug is 409
    expect((await post({ slug: "onboard", name: "New", steps: [SEND] })).status).toBe(201);
    const taken = await call("PUT", `/v1/workflows/${renamed.body.data.id}`, { key: T.sandboxKey, body: { slug: "onboard", name: "x", steps: [SEND] } });
    expect(taken.status).toBe(409);
    expect(taken.body.error.details).toEqual({ slug: ["is already taken"] });
    // a failed PUT changes nothing: version 3 is still the active one
    expect((await call("GET", `/v1/workflows/${renamed.body.data.id}`, { key: T.sandboxKey })).body.data.active).toBe(true);
    const bad = await call("PUT", `/v1/workflows/${renamed.body.data.id}`, { key: T.sandboxKey, body: { name: "x", steps: [{ type: "delay", duration: "9d" }] } });
    expect(bad.status).toBe(422);
    expect(Object.keys(bad.body.error.details)).toEqual(["steps[0].duration"]);
  });

  test("DELETE is a soft delete (204): the version stays readable, inactive; trigger is 404", async () => {
    const v1 = (await post({ slug: "bye", name: "Bye", steps: [SEND] })).body.data;
    const del = await call("DELETE", `/v1/workflows/${v1.id}`, { key: T.sandboxKey });
    expect(del.status).toBe(204);
    expect(del.text).toBe("");
    expect((await call("GET", `/v1/workflows/${v1.id}`, { key: T.sandboxKey })).body.data).toMatchObject({ active: false, version: 1 });
    const t = await call("POST", "/v1/workflows/bye/trigger", { key: T.sandboxKey, body: { to: "+5511912345678" } });
    expect(t.status).toBe(404);
    expect(t.body.error.code).toBe("workflow_not_found");
    expect((await call("DELETE", `/v1/workflows/${v1.id}`, { key: T.sandboxKey })).status).toBe(409);
  });

  test("GET by id: any version of the scope; unknown, malformed or foreign ids are 404 workflow_not_found", async () => {
    const w = (await post({ slug: slug("get"), name: "n", steps: [SEND] })).body.data;
    for (const [key, id] of [[T.sandboxKey, crypto.randomUUID()], [T.sandboxKey, "nope"], [other.sandboxKey, w.id], [T.secretKey, w.id]] as const) {
      const r = await call("GET", `/v1/workflows/${id}`, { key });
      expect(r.status).toBe(404);
      expect(r.body.error.code).toBe("workflow_not_found");
    }
  });

  test("list: active versions, newest first, cursor paging; slug filter and include_inactive", async () => {
    const L = await createTenant();
    const key = L.sandboxKey;
    const a = (await post({ slug: "a", name: "A", steps: [SEND] }, key)).body.data;
    await post({ slug: "b", name: "B", steps: [SEND] }, key);
    await post({ slug: "c", name: "C", steps: [SEND] }, key);
    await call("PUT", `/v1/workflows/${a.id}`, { key, body: { name: "A2", steps: [SEND] } });
    const all = await call("GET", "/v1/workflows", { key });
    expect(all.status).toBe(200);
    expect(all.body.data.map((w: any) => [w.slug, w.version])).toEqual([["a", 2], ["c", 1], ["b", 1]]);
    expect(all.body.meta).toEqual({ cursor: null, has_more: false });
    const p1 = await call("GET", "/v1/workflows?limit=2", { key });
    expect(p1.body.data).toHaveLength(2);
    expect(p1.body.meta.has_more).toBe(true);
    const p2 = await call("GET", `/v1/workflows?limit=2&cursor=${p1.body.meta.cursor}`, { key });
    expect(p2.body.data.map((w: any) => w.slug)).toEqual(["b"]);
    const bySlug = await call("GET", "/v1/workflows?slug=a&include_inactive=true", { key });
    expect(bySlug.body.data.map((w: any) => [w.version, w.active])).toEqual([[2, true], [1, false]]);
    expect((await call("GET", "/v1/workflows?include_inactive=maybe", { key })).status).toBe(422);
    expect((await call("GET", "/v1/workflows?limit=0", { key })).status).toBe(422);
    await sql`delete from tenants where id = ${L.tenant.id}`;
  });

  test("a read-only key lists but cannot create", async () => {
    const ro = await createKey(T.tenant.id, { environment: "sandbox", permissions: ["read"] });
    expect((await call("GET", "/v1/workflows", { key: ro.raw })).status).toBe(200);
    const r = await post({ slug: slug(), name: "n", steps: [SEND] }, ro.raw);
    expect(r.status).toBe(403);
    expect(r.body.error.code).toBe("insufficient_permissions");
  });
});

describe("trigger and runs", () => {
  let wf: any;
  beforeAll(async () => {
    wf = (await post({ slug: "trig", name: "Trigger me", steps: [SEND, { type: "delay", duration: "1h" }] })).body.data;
  });

  test("202 with the run: running, current_step 0, empty step_results, the active version; aliases to/payload", async () => {
    const r = await call("POST", "/v1/workflows/trig/trigger", { key: T.sandboxKey, body: { to: "+5511912345678", payload: { name: "Ana" } } });
    expect(r.status).toBe(202);
    expect(Object.keys(r.body.data).sort()).toEqual(
      ["completed_at", "current_step", "data", "id", "recipient", "started_at", "status", "step_results", "workflow_id", "workflow_slug", "workflow_version"].sort(),
    );
    expect(r.body.data).toMatchObject({
      workflow_id: wf.id,
      workflow_version: 1,
      workflow_slug: "trig",
      recipient: "+5511912345678",
      status: "running",
      current_step: 0,
      step_results: [],
      data: { name: "Ana" },
      completed_at: null,
    });
    const [ev] = await sql`select data from events where type = 'workflow.triggered' and data->>'run_id' = ${r.body.data.id}`;
    expect(ev!.data).toEqual({ run_id: r.body.data.id, workflow_id: wf.id, workflow_slug: "trig", workflow_version: 1, recipient: "+5511912345678", status: "running" });
  });

  test("recipient is required (recipient or to); data must be an object; unknown slug is 404", async () => {
    const miss = await call("POST", "/v1/workflows/trig/trigger", { key: T.sandboxKey, body: { data: {} } });
    expect(miss.status).toBe(422);
    expect(miss.body.error.details).toEqual({ recipient: ["is required (or to)"] });
    const blank = await call("POST", "/v1/workflows/trig/trigger", { key: T.sandboxKey, body: { to: " ", data: [] } });
    expect(blank.status).toBe(422);
    expect(Object.keys(blank.body.error.details).sort()).toEqual(["data", "to"]);
    const unknown = await call("POST", "/v1/workflows/nope/trigger", { key: T.sandboxKey, body: { to: "+5511912345678" } });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe("workflow_not_found");
    // the same slug in another environment or tenant is not this one
    expect((await call("POST", "/v1/workflows/trig/trigger", { key: other.sandboxKey, body: { to: "+5511912345678" } })).status).toBe(404);
  });

  test("Idempotency-Key: a repeated trigger replays the first run and starts no second one", async () => {
    const key = `idem-${crypto.randomUUID()}`;
    const body = { recipient: "+5511912340099", data: { n: 1 } };
    const a = await call("POST", "/v1/workflows/trig/trigger", { key: T.sandboxKey, body, headers: { "idempotency-key": key } });
    const b = await call("POST", "/v1/workflows/trig/trigger", { key: T.sandboxKey, body, headers: { "idempotency-key": key } });
    expect(a.status).toBe(202);
    expect(b.status).toBe(202);
    expect(b.headers.get("idempotent-replayed")).toBe("true");
    expect(b.body.data.id).toBe(a.body.data.id);
    const runs = await sql`select id from workflow_runs where tenant_id = ${T.tenant.id} and recipient = '+5511912340099'`;
    expect(runs).toHaveLength(1);
  });

  test("runs: list newest first with meta, filters status and workflow_id; detail; 404 for unknown or foreign", async () => {
    const R = await createTenant();
    const w1 = (await post({ slug: "r1", name: "R1", steps: [SEND] }, R.sandboxKey)).body.data;
    const w2 = (await post({ slug: "r2", name: "R2", steps: [SEND] }, R.sandboxKey)).body.data;
    const ids: string[] = [];
    for (const s of ["r1", "r2", "r1"]) ids.push((await call("POST", `/v1/workflows/${s}/trigger`, { key: R.sandboxKey, body: { to: "+5511912345678" } })).body.data.id);
    await sql`update workflow_runs set status = 'completed', completed_at = now() where id = ${ids[0]!}`;
    const list = await call("GET", "/v1/workflow-runs", { key: R.sandboxKey });
    expect(list.status).toBe(200);
    expect(list.body.data.map((r: any) => r.id)).toEqual([...ids].reverse());
    expect(list.body.meta).toEqual({ cursor: null, has_more: false });
    const page = await call("GET", "/v1/workflow-runs?limit=2", { key: R.sandboxKey });
    expect(page.body.meta.has_more).toBe(true);
    const rest = await call("GET", `/v1/workflow-runs?limit=2&cursor=${page.body.meta.cursor}`, { key: R.sandboxKey });
    expect(rest.body.data.map((r: any) => r.id)).toEqual([ids[0]]);
    const byWf = await call("GET", `/v1/workflow-runs?workflow_id=${w2.id}`, { key: R.sandboxKey });
    expect(byWf.body.data.map((r: any) => r.id)).toEqual([ids[1]]);
    const done = await call("GET", `/v1/workflow-runs?status=completed&workflow_id=${w1.id}`, { key: R.sandboxKey });
    expect(done.body.data.map((r: any) => r.id)).toEqual([ids[0]]);
    expect((await call("GET", "/v1/workflow-runs?status=paused", { key: R.sandboxKey })).status).toBe(422);
    expect((await call("GET", "/v1/workflow-runs?workflow_id=abc", { key: R.sandboxKey })).status).toBe(422);
    expect((await call("GET", "/v1/workflow-runs?limit=101", { key: R.sandboxKey })).status).toBe(422);
    const one = await call("GET", `/v1/workflow-runs/${ids[1]}`, { key: R.sandboxKey });
    expect(one.body.data).toMatchObject({ id: ids[1], workflow_id: w2.id, step_results: [] });
    for (const [key, id] of [[R.sandboxKey, crypto.randomUUID()], [R.sandboxKey, "x"], [T.sandboxKey, ids[1]!]] as const) {
      const r = await call("GET", `/v1/workflow-runs/${id}`, { key });
      expect(r.status).toBe(404);
      expect(r.body.error.code).toBe("workflow_run_not_found");
    }
    await sql`delete from events where tenant_id = ${R.tenant.id}`;
    await sql`delete from tenants where id = ${R.tenant.id}`;
  });

  test("cancel: 200 cancelled with completed_at; a terminal run is 409 run_not_cancellable; unknown is 404", async () => {
    const run = (await call("POST", "/v1/workflows/trig/trigger", { key: T.sandboxKey, body: { to: "+5511912345678" } })).body.data;
    const c = await call("POST", `/v1/workflow-runs/${run.id}/cancel`, { key: T.sandboxKey });
    expect(c.status).toBe(200);
    expect(c.body.data).toMatchObject({ id: run.id, status: "cancelled", step_results: [] });
    expect(c.body.data.completed_at).toBeTruthy();
    for (const status of ["cancelled", "completed", "failed"]) {
      const r = (await call("POST", "/v1/workflows/trig/trigger", { key: T.sandboxKey, body: { to: "+5511912345678" } })).body.data;
      await sql`update workflow_runs set status = ${status}, completed_at = now() where id = ${r.id}`;
      const again = await call("POST", `/v1/workflow-runs/${r.id}/cancel`, { key: T.sandboxKey });
      expect(again.status).toBe(409);
      expect(again.body.error).toEqual({ code: "run_not_cancellable", message: `The run is already ${status}` });
    }
    const missing = await call("POST", `/v1/workflow-runs/${crypto.randomUUID()}/cancel`, { key: T.sandboxKey });
    expect(missing.status).toBe(404);
    expect((await call("POST", `/v1/workflow-runs/${run.id}/cancel`, { key: other.sandboxKey })).status).toBe(404);
  });
});

test("the OpenAPI document lists every workflow route with its error responses", async () => {
  const r = await call("GET", "/openapi.json");
  const paths = r.body.paths;
  expect(Object.keys(paths)).toEqual(expect.arrayContaining(["/v1/workflows", "/v1/workflows/{id}", "/v1/workflows/{slug}/trigger", "/v1/workflow-runs", "/v1/workflow-runs/{id}", "/v1/workflow-runs/{id}/cancel"]));
  expect(Object.keys(paths["/v1/workflows/{slug}/trigger"].post.responses).sort()).toEqual(["202", "400", "401", "403", "404", "409", "413", "415", "422", "429"]);
  expect(Object.keys(paths["/v1/workflow-runs/{id}/cancel"].post.responses)).toContain("409");
});
