// Workflows in the subscriber's language (issue 28): a digest renders its send step in the
// recipient's locale, and a trigger's `locale` (single, bulk, topic) counts when the subscriber has none.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { fanOutPage } from "../../domain/broadcasts/broadcasts";
import { sql } from "../../store/db";
import { call, createTenant } from "../support/fixtures";
import { waitFor } from "../support/runtime-redis";
import { createWorkflow, dropTenant, startWorkflowHost, trigger, waitForRun } from "./workflow-support";

let T: Awaited<ReturnType<typeof createTenant>>;
let host: Awaited<ReturnType<typeof startWorkflowHost>>;
const uniq = () => crypto.randomUUID().slice(0, 8);

const notificationsOf = (runId: string) => sql`select locale, content from notifications where idempotency_key like ${`wfrun:${runId}:%`} order by created_at, id`;

async function subscriber(locale: string | null) {
  const r = await call("POST", "/v1/subscribers", { key: T.sandboxKey, body: { external_id: `loc-${uniq()}`, email: `loc-${uniq()}@example.com`, locale } });
  expect(r.status).toBe(201);
  return r.body.data as { id: string; external_id: string };
}

/** A template with a pt_BR base and an `en` translation, published. */
async function bilingual(slug: string, channel: "in_app" | "email", base: [string, string], en: [string, string]) {
  const variant = channel === "email" ? "subject" : "title";
  const r = await call("POST", "/v1/templates", {
    key: T.sandboxKey,
    body: { slug, name: slug, channel, language: "pt_BR", status: "active", content: base[1], variants: { [variant]: base[0] } },
  });
  expect(r.status).toBe(201);
  const tr = await call("PUT", `/v1/templates/${slug}/translations/en`, { key: T.sandboxKey, body: { content: en[1], variants: { [variant]: en[0] } } });
  expect(tr.status).toBe(201);
}

beforeAll(async () => {
  T = await createTenant();
  await bilingual(
    "loc-digest",
    "in_app",
    ["{{ digest.count }} novos comentários", "Você tem {{ digest.count }} novos comentários: {% for e in digest.events %}{{ e.comment }};{% endfor %}"],
    ["{{ digest.count }} new comments", "You have {{ digest.count }} new comments: {% for e in digest.events %}{{ e.comment }};{% endfor %}"],
  );
  await bilingual("loc-hello", "in_app", ["Olá", "Olá, {{ name }}"], ["Hello", "Hello, {{ name }}"]);
  await bilingual("loc-mail", "email", ["Bem-vinda", "Bem-vinda, {{ name }}"], ["Welcome", "Welcome, {{ name }}"]);
  await createWorkflow(T.sandboxKey, { slug: "loc-hello", name: "Hello", steps: [{ type: "send", channel: "in_app", template: "loc-hello" }] });
  await createWorkflow(T.sandboxKey, { slug: "loc-mail", name: "Mail", steps: [{ type: "send", channel: "email", template: "loc-mail" }] });
  host = await startWorkflowHost({ timeScale: 0.001 });
});

afterAll(async () => {
  await host?.stop();
  await dropTenant(T.tenant.id);
});

describe("a digest in the subscriber's locale", () => {
  test("an en subscriber's digest renders the en translation with digest.count; a pt-BR one's the base; each records its locale", async () => {
    await createWorkflow(T.sandboxKey, {
      slug: "loc-digest",
      name: "Digest",
      steps: [{ type: "digest", window: "1h", max_events: 3 }, { type: "send", channel: "in_app", template: "loc-digest" }],
    });
    for (const [locale, want, locRecorded] of [
      ["en", "You have 3 new comments: c1;c2;c3;", "en"],
      ["pt-BR", "Você tem 3 novos comentários: c1;c2;c3;", "pt_BR"],
    ] as const) {
      const sub = await subscriber(locale);
      const ids: string[] = [];
      for (let i = 1; i <= 3; i++) {
        ids.push((await trigger(T.sandboxKey, "loc-digest", { to: sub.external_id, data: { comment: `c${i}` } })).id);
        // arrival order is the order the runs reach the step: wait for each to be placed
        expect(await waitFor(async () => (await sql`select 1 from workflow_digest_members where run_id = ${ids[i - 1]!}`).length === 1, 10_000, 10)).toBe(true);
      }
      const leader = await waitForRun(ids[0]!, 30_000);
      expect(leader.status).toBe("completed");
      expect(leader.step_results[0]).toMatchObject({ type: "digest", status: "completed", event_count: 3 });
      const [n] = await notificationsOf(ids[0]!);
      expect(n!.locale).toBe(locRecorded);
      expect(JSON.stringify(n!.content)).toContain(want);
      expect(JSON.stringify(n!.content)).toContain(locale === "en" ? "3 new comments" : "3 novos comentários");
      const detail = await call("GET", `/v1/notifications/${leader.step_results[1].notification_id}`, { key: T.sandboxKey });
      expect(detail.body.data.locale).toBe(locRecorded);
    }
  }, 60_000);
});

describe("a trigger's locale", () => {
  async function sentBy(runId: string) {
    const run = await waitForRun(runId, 20_000);
    expect(run.status).toBe("completed");
    const [n] = await notificationsOf(runId);
    return n as { locale: string; content: Record<string, string> };
  }

  test("counts when the subscriber has none, for a literal address too; the subscriber's own locale wins", async () => {
    const none = await subscriber(null);
    const a = await trigger(T.sandboxKey, "loc-hello", { to: none.external_id, data: { name: "Ana" }, locale: "en-US" });
    expect(await sentBy(a.id)).toMatchObject({ locale: "en", content: { body: "Hello, Ana", title: "Hello" } });

    const br = await subscriber("pt-BR");
    const b = await trigger(T.sandboxKey, "loc-hello", { to: br.external_id, data: { name: "Bia" }, locale: "en" });
    expect(await sentBy(b.id)).toMatchObject({ locale: "pt_BR", content: { body: "Olá, Bia" } });

    const c = await trigger(T.sandboxKey, "loc-mail", { to: `lit-${uniq()}@example.com`, data: { name: "Cris" }, locale: "en" });
    const mail = await sentBy(c.id);
    expect(mail.locale).toBe("en");
    expect(JSON.stringify(mail.content)).toContain("Welcome, Cris");

    // no locale anywhere: the template's language
    const d = await trigger(T.sandboxKey, "loc-hello", { to: none.external_id, data: { name: "Davi" } });
    expect(await sentBy(d.id)).toMatchObject({ locale: "pt_BR", content: { body: "Olá, Davi" } });
  }, 60_000);

  test("bulk: each event's own locale", async () => {
    const s1 = await subscriber(null);
    const s2 = await subscriber(null);
    const r = await call("POST", "/v1/workflows/loc-hello/trigger/bulk", {
      key: T.sandboxKey,
      body: { events: [{ to: s1.external_id, data: { name: "Eva" }, locale: "en" }, { to: s2.external_id, data: { name: "Fábio" } }] },
    });
    expect(r.status).toBe(202);
    const [e1, e2] = r.body.data as { id: string }[];
    expect(await sentBy(e1!.id)).toMatchObject({ locale: "en", content: { body: "Hello, Eva" } });
    expect(await sentBy(e2!.id)).toMatchObject({ locale: "pt_BR", content: { body: "Olá, Fábio" } });
  }, 60_000);

  test("topic: the broadcast keeps the locale for every run it fans out", async () => {
    const plain = await subscriber(null);
    const own = await subscriber("pt_PT");
    const key = `loc-topic-${uniq()}`;
    expect((await call("POST", "/v1/topics", { key: T.sandboxKey, body: { key, name: "Locale topic" } })).status).toBe(201);
    const m = await call("POST", `/v1/topics/${key}/subscribers`, { key: T.sandboxKey, body: { subscribers: [plain.external_id, own.external_id] } });
    expect(m.status).toBeLessThan(300);
    const t = await call("POST", "/v1/workflows/loc-hello/trigger", { key: T.sandboxKey, body: { to: { topic: key }, data: { name: "Gil" }, locale: "en" } });
    expect(t.status).toBe(202);
    const [b] = await sql`select locale from broadcasts where id = ${t.body.data.id}`;
    expect(b!.locale).toBe("en");
    // fanned out here rather than by the broadcast actor (not on this host)
    while ((await fanOutPage(t.body.data.id)).more);
    const runs = await sql`select id, subscriber_id, locale from workflow_runs where idempotency_key like ${`bcast:${t.body.data.id}:%`}`;
    expect(runs).toHaveLength(2);
    for (const run of runs) {
      expect(run.locale).toBe("en");
      const n = await sentBy(run.id);
      // pt_PT -> pt -> the base (pt_BR): the subscriber's own locale wins over the trigger's
      if (run.subscriber_id === own.id) expect(n).toMatchObject({ locale: "pt_BR", content: { body: "Olá, Gil" } });
      else expect(n).toMatchObject({ locale: "en", content: { body: "Hello, Gil" } });
    }
  }, 60_000);

  test("422 with details for a locale that is not one (single, bulk, topic); nothing started", async () => {
    const sub = await subscriber(null);
    const before = (await sql`select count(*)::int as n from workflow_runs where tenant_id = ${T.tenant.id}`)[0]!.n;
    for (const bad of ["brazilian", 42, null, "pt_BR_x"]) {
      const r = await call("POST", "/v1/workflows/loc-hello/trigger", { key: T.sandboxKey, body: { to: sub.external_id, data: {}, locale: bad } });
      expect(r.status).toBe(422);
      expect(r.body.error.details.locale).toEqual(["must be a locale such as pt_BR, pt, en or en-US"]);
    }
    const bulk = await call("POST", "/v1/workflows/loc-hello/trigger/bulk", {
      key: T.sandboxKey,
      body: { events: [{ to: sub.external_id, locale: "en" }, { to: sub.external_id, locale: "x" }] },
    });
    expect(bulk.status).toBe(422);
    expect(Object.keys(bulk.body.error.details)).toEqual(["events[1].locale"]);
    const topic = await call("POST", "/v1/workflows/loc-hello/trigger", { key: T.sandboxKey, body: { to: { topic: "whatever" }, locale: "???" } });
    expect(topic.status).toBe(422);
    expect(topic.body.error.details.locale).toBeDefined();
    const after = (await sql`select count(*)::int as n from workflow_runs where tenant_id = ${T.tenant.id}`)[0]!.n;
    expect(after).toBe(before);
  });
});
