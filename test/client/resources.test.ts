// The client library (client/) against a real API process, a real channel sender and workflow-run
// actor, the webhook dispatcher with a local receiver and a local DNS server: every resource method
// once with typed results, pagination over several pages, NmsError contents.
import { afterAll, beforeAll, describe, expect, expectTypeOf, test } from "bun:test";
import { createHmac } from "node:crypto";
import {
  Nms,
  NmsError,
  parseStandardWebhook,
  TemplateStatus,
  verifyStandardWebhook,
  verifyWebhookSignature,
  type GuideApiKeyWithSecret,
  type Notification,
  type SendingDomain,
  type Subscriber,
  type WorkflowRun,
} from "../../client";
import { channelSender } from "../../actors/channel-sender";
import { workflowRun } from "../../actors/workflow-run";
import { startDeliveryHost } from "../integration/delivery-support";
import { startWebhookHost } from "../integration/webhook-support";
import { startApiProcess, type ApiProcess } from "../support/api-process";
import { deleteActorKeys, makeDeadLetters, testRuntime } from "../support/dead-letters";
import { startFakeDns, type FakeDns } from "../support/fake-dns";
import { startReceiver, type Receiver } from "../support/webhook-receiver";
import { addSuppression } from "../../store/suppressions";
import { ADMIN_TOKEN } from "../support/fixtures";
import { waitFor } from "../support/runtime-redis";
import { deleteTenants } from "../support/tenant-cleanup";
import { SESSION_COOKIE } from "../../http/session";
import { sql, type Tx } from "../../store/db";
import { createSession } from "../../store/sessions";
import { insertUser } from "../../store/users";

const run = crypto.randomUUID().slice(0, 8);
// the API process's APP_URL: a session request that changes state must carry it as Origin
const APP_URL = "http://localhost:5999";
const blockedDomains = [`client-${run}-a.com`, `client-${run}-b.com`];

let api: ApiProcess;
let delivery: Awaited<ReturnType<typeof startDeliveryHost>>;
let dns: FakeDns;
let admin: Nms;
let live: Nms;
let sandbox: Nms;
let sandboxKey: string;
let tenantId: string;
let liveKeyId: string;
const tenantIds: string[] = [];

beforeAll(async () => {
  // the API process resolves sending domains through the local DNS server and may call webhook
  // receivers on 127.0.0.1
  dns = await startFakeDns();
  api = await startApiProcess({ APP_URL, DNS_SERVERS: dns.server, WEBHOOK_ALLOW_PRIVATE: "true" });
  delivery = await startDeliveryHost(0.001, [channelSender, workflowRun]);
  admin = new Nms({ baseUrl: api.url, adminToken: ADMIN_TOKEN });
  const tenant = await admin.tenants.create({ name: `client-${run}` });
  tenantIds.push(tenant.id);
  tenantId = tenant.id;
  liveKeyId = tenant.api_key.id;
  live = new Nms({ baseUrl: api.url, apiKey: tenant.api_key.raw_key });
  sandboxKey = (await live.apiKeys.create({ environment: "sandbox", label: `client ${run}` })).raw_key;
  sandbox = new Nms({ baseUrl: api.url, apiKey: sandboxKey });
});

afterAll(async () => {
  for (const d of blockedDomains) await admin?.blockedDomains.del(d).catch(() => undefined);
  await api?.stop();
  await delivery?.stop();
  await dns?.stop();
  await sql`delete from webhook_outbox where webhook_id in (select id from webhooks where tenant_id = any(${tenantIds}::uuid[]))`;
  await deleteTenants(tenantIds);
  await sql`delete from plans where id like ${`client-${run}-%`}`;
});

async function delivered(nms: Nms, id: string): Promise<Notification> {
  const n = await waitFor(async () => {
    const got = await nms.notifications.retrieve(id);
    return got.status === "delivered" ? got : null;
  }, 15_000, 50);
  if (!n) throw new Error(`notification ${id} was not delivered`);
  return n;
}

describe("admin: tenants", () => {
  test("tenants.create returns the tenant and its first production secret key, once", async () => {
    const t = await admin.tenants.create({ name: `client-${run}-second` });
    tenantIds.push(t.id);
    expect(t.name).toBe(`client-${run}-second`);
    expect(t.api_key.environment).toBe("production");
    expect(t.api_key.raw_key.startsWith("nk_live_")).toBe(true);
    expect(t.api_key.raw_key.startsWith(t.api_key.prefix)).toBe(true);
  });
});

describe("admin: tenant offboarding; retention settings", () => {
  test("tenants.offboard removes a tenant in the background and tenants.offboarding reports it completed", async () => {
    const t = await admin.tenants.create({ name: `client-${run}-offboarded` });
    tenantIds.push(t.id);
    const started = await admin.tenants.offboard(t.id);
    expect(started.tenant_id).toBe(t.id);
    expect(["running", "completed"]).toContain(started.status);
    const done = await waitFor(async () => {
      const o = await admin.tenants.offboarding(t.id);
      return o.status === "completed" ? o : null;
    }, 30_000, 100);
    expect(done?.completed_at).not.toBeNull();
  });

  test("retentionSettings.retrieve gives the defaults; update keeps fields left out", async () => {
    const before = await live.retentionSettings.retrieve();
    expect(before.notifications_days).toBe(30);
    expect(before.inbox_days).toBe(365);
    const after = await live.retentionSettings.update({ notifications_days: 14 });
    expect(after.notifications_days).toBe(14);
    expect(after.inbox_days).toBe(365);
    const err = await live.retentionSettings.update({ notifications_days: 0 }).catch((e) => e);
    expect(err.status).toBe(422);
    expect(err.details?.notifications_days).toBeDefined();
  });
});

describe("notifications", () => {
  test("create (202 pending), retrieve once delivered with its attempts, attempts()", async () => {
    const accepted = await sandbox.notifications.create({ channel: "sms", to: "+5511912345678", data: { content: `hello ${run}` } });
    expectTypeOf(accepted.status).toEqualTypeOf<string>();
    expect(accepted).toMatchObject({ channel: "sms", recipient: "+5511912345678", status: "pending" });
    const n = await delivered(sandbox, accepted.id);
    expect(n.id).toBe(accepted.id);
    expect(n.delivered_at).not.toBeNull();
    expect(n.attempts.length).toBe(1);
    const attempts = await sandbox.notifications.attempts(accepted.id);
    expect(attempts.map((a) => [a.attempt_number, a.status, a.provider])).toEqual([[1, "success", "sandbox"]]);
  });

  test("list: one page with meta, and `for await` walks every page (cursor)", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await sandbox.notifications.create({ channel: "email", to: `list-${i}@client-${run}.com`, data: { subject: "s", body: "b" } })).id);
    const page = await sandbox.notifications.list({ limit: 2 });
    expect(page.data.length).toBe(2);
    expect(page.meta.has_more).toBe(true);
    expect(typeof page.meta.cursor).toBe("string");

    const pages: string[][] = [];
    for await (const p of sandbox.notifications.list({ limit: 2, channel: "email" }).pages()) pages.push(p.data.map((n) => n.id));
    expect(pages.length).toBe(3);
    expect(pages.map((p) => p.length)).toEqual([2, 2, 1]);

    const walked: string[] = [];
    for await (const n of sandbox.notifications.list({ limit: 2, channel: "email" })) walked.push(n.id);
    expect(walked).toEqual([...ids].reverse()); // newest first, each once
  });

  test("a retry after a lost response carries the same Idempotency-Key: the server replays, one record", async () => {
    let tries = 0;
    // the request reaches the server and is processed; its answer is lost on the way back
    const losesFirstAnswer: typeof fetch = Object.assign(
      async (input: RequestInfo | URL, init?: RequestInit) => {
        const res = await fetch(input, init);
        if (++tries === 1) {
          await res.text();
          throw new TypeError("connection reset after the server answered");
        }
        return res;
      },
      { preconnect: fetch.preconnect },
    );
    const flaky = new Nms({ baseUrl: api.url, apiKey: sandboxKey, fetch: losesFirstAnswer });
    const to = `idem-${run}@client-${run}.com`;
    const n = await flaky.notifications.create({ channel: "email", to, data: { subject: "s", body: "b" } });
    expect(tries).toBe(2);
    const rows = await sql`select id from notifications where tenant_id = ${tenantId} and recipient = ${to}`;
    expect(rows.map((r) => r.id)).toEqual([n.id]);
  });

  test("list filters by status", async () => {
    const one = await sandbox.notifications.create({ channel: "sms", to: "+5511900000000", data: { content: "x" } });
    await delivered(sandbox, one.id);
    const all = await sandbox.notifications.list({ status: "delivered" }).toArray();
    expect(all.length).toBeGreaterThan(0);
    expect(all.every((n) => n.status === "delivered")).toBe(true);
  });
});

describe("templates", () => {
  test("create, retrieve, update, list (cursor pages), preview, validate, del", async () => {
    const slugs = ["welcome", "reset", "digest"].map((s) => `${s}-${run}`);
    for (const slug of slugs) {
      await sandbox.templates.create({
        slug,
        name: `Template ${slug}`,
        channel: "email",
        content: "Hello {{ name }}",
        variants: { subject: "Hi {{ name }}" },
      });
    }
    const t = await sandbox.templates.retrieve(slugs[0]!);
    expect(t).toMatchObject({ slug: slugs[0], status: "draft", variables: ["name"] });

    const updated = await sandbox.templates.update(t.id, { status: TemplateStatus.Active });
    expect(updated.status).toBe("active");

    const pages = [];
    for await (const p of sandbox.templates.list({ limit: 2, channel: "email" }).pages()) pages.push(p);
    expect(pages.length).toBe(2);
    expect(pages.flatMap((p) => p.data.map((x) => x.slug)).sort()).toEqual([...slugs].sort());
    expect((await sandbox.templates.list({ status: "active" })).data.map((x) => x.slug)).toEqual([slugs[0]]);

    const preview = await sandbox.templates.preview(slugs[0]!, { variables: { name: "Ana" } });
    expect(preview.rendered).toMatchObject({ body: "Hello Ana", subject: "Hi Ana" });
    expect(preview.validation.valid).toBe(true);

    const inline = await sandbox.templates.previewInline({ channel: "sms", content: "Code {{ code }}", variables: { code: "42" } });
    expect(inline.rendered.body).toBe("Code 42");

    const validation = await sandbox.templates.validate(slugs[1]!);
    expect(validation).toMatchObject({ valid: true, variables: ["name"] });
    const noSubject = await sandbox.templates.validateInline({ channel: "email", content: "Hi {{ x }}" });
    expect(noSubject.valid).toBe(true);
    expect(noSubject.warnings.length).toBeGreaterThan(0);

    await sandbox.templates.del(slugs[2]!);
    const gone = await sandbox.templates.retrieve(slugs[2]!).catch((e) => e);
    expect(gone).toBeInstanceOf(NmsError);
    expect(gone.status).toBe(404);
  });
});

describe("subscribers, preferences and inbox", () => {
  test("create/upsert, retrieve, update, list (offset pages), import, del", async () => {
    const created = await sandbox.subscribers.create({ external_id: `u1-${run}`, email: `u1@client-${run}.com`, name: "Ana" });
    expectTypeOf(created).toEqualTypeOf<Subscriber>();
    expect(created).toMatchObject({ external_id: `u1-${run}`, email: `u1@client-${run}.com`, name: "Ana" });
    expect(created.consent?.method).toBeTruthy();
    const upserted = await sandbox.subscribers.upsert({ external_id: `u1-${run}`, name: "Ana Maria" });
    expect(upserted.id).toBe(created.id);
    expect(upserted.name).toBe("Ana Maria");

    expect((await sandbox.subscribers.retrieve(`u1-${run}`)).id).toBe(created.id);
    const updated = await sandbox.subscribers.update(created.id, { locale: "pt-BR", custom_properties: { plan: "pro" } });
    expect(updated.custom_properties).toEqual({ plan: "pro" });

    const imported = await sandbox.subscribers.import(
      Array.from({ length: 4 }, (_, i) => ({ external_id: `imp${i}-${run}`, email: `imp${i}@client-${run}.com` })),
    );
    expect(imported.imported).toBe(4);
    expect(imported.subscribers.map((s) => s.external_id)).toEqual([0, 1, 2, 3].map((i) => `imp${i}-${run}`));

    const first = await sandbox.subscribers.list({ search: `client-${run}`, limit: 2 });
    expect(first.meta).toEqual({ total: 5, limit: 2, offset: 0 });
    const pages = [];
    for await (const p of sandbox.subscribers.list({ search: `client-${run}`, limit: 2 }).pages()) pages.push(p.data.length);
    expect(pages).toEqual([2, 2, 1]);
    const everyone = await sandbox.subscribers.list({ search: `client-${run}`, limit: 2 }).toArray();
    expect(new Set(everyone.map((s) => s.id)).size).toBe(5);

    await sandbox.subscribers.del(`imp3-${run}`);
    const erased = await sandbox.subscribers.retrieve(`imp3-${run}`).catch((e) => e);
    expect([erased.status, erased.code]).toEqual([404, "subscriber_not_found"]);
  });

  test("a failed import is one NmsError 422 naming the entry; nothing is written", async () => {
    const err = await sandbox.subscribers
      .import([{ external_id: `ok-${run}` }, { external_id: `bad-${run}`, email: "not an email" }])
      .catch((e) => e);
    expect(err).toBeInstanceOf(NmsError);
    expect(err.status).toBe(422);
    expect(err.code).toBe("validation_failed");
    expect(Object.keys(err.details)).toEqual(["subscribers[1].email"]);
    expect((err.body as { error: { index: number } }).error.index).toBe(1);
    expect(await sandbox.subscribers.retrieve(`ok-${run}`).catch((e) => e.status)).toBe(404);
  });

  test("preferences retrieve and update", async () => {
    const s = await sandbox.subscribers.create({ external_id: `prefs-${run}` });
    expect(await sandbox.subscribers.preferences.retrieve(s.id)).toEqual([]);
    const set = await sandbox.subscribers.preferences.update(s.id, [
      { category: "marketing", channel: "email", enabled: false },
      { category: "all", channel: "sms", enabled: true },
    ]);
    expect(set).toContainEqual({ category: "marketing", channel: "email", enabled: false });
    expect(await sandbox.subscribers.preferences.retrieve(s.external_id)).toEqual(set);
  });

  test("localization and preferences: templates.translations, preferenceCategories, preferenceCenter, preferences.effective", async () => {
    const tpl = await sandbox.templates.create({ slug: `tr-${run}`, name: "T", channel: "sms", content: "Oi {{ name }}", language: "pt_BR" });
    const tr = await sandbox.templates.translations.upsert(tpl.slug, "en-US", { content: "Hi {{ name }}" });
    expect(tr).toMatchObject({ locale: "en_US", content: "Hi {{ name }}", warnings: [] });
    expect((await sandbox.templates.translations.retrieve(tpl.id, "en_US")).content).toBe("Hi {{ name }}");
    expect((await sandbox.templates.translations.list(tpl.id)).map((t) => t.locale)).toEqual(["en_US"]);
    await sandbox.templates.translations.del(tpl.id, "en-US");
    expect(await sandbox.templates.translations.list(tpl.id)).toEqual([]);

    const cat = await sandbox.preferenceCategories.create({ key: `c-${run}`, name: "Offers", default_enabled_channels: ["email"] });
    expect(cat).toMatchObject({ required: false, default_enabled_channels: ["email"] });
    expect((await sandbox.preferenceCategories.list()).map((c) => c.key)).toContain(cat.key);
    expect((await sandbox.preferenceCategories.update(cat.key, { required: true })).required).toBe(true);
    expect((await sandbox.preferenceCategories.retrieve(cat.key)).required).toBe(true);

    const s = await sandbox.subscribers.create({ external_id: `pc-${run}` });
    const eff = await sandbox.subscribers.preferences.effective(s.id);
    expect(eff.find((c) => c.key === cat.key)!.channels[0]).toMatchObject({ enabled: true, locked: true, source: "required" });
    const link = await sandbox.preferenceCenter.link(s.external_id, { expires_in: 600 });
    expect(link.url).toContain("/preferences/");
    expect((await sandbox.preferenceCenter.updateSettings({ brand_color: "#112233" })).brand_color).toBe("#112233");
    expect((await sandbox.preferenceCenter.settings()).brand_color).toBe("#112233");
    await sandbox.preferenceCategories.del(cat.key);
    expect(await sandbox.preferenceCategories.retrieve(cat.key).catch((e) => e.status)).toBe(404);
  });

  test("inbox: list (offset pages), unreadCount, read, readAll", async () => {
    const s = await sandbox.subscribers.create({ external_id: `inbox-${run}` });
    const sent = [];
    for (let i = 0; i < 3; i++) {
      sent.push(await sandbox.notifications.create({ channel: "in_app", to: s.external_id, data: { title: `T${i}`, body: `B${i}` } }));
    }
    for (const n of sent) await delivered(sandbox, n.id);

    expect(await sandbox.subscribers.inbox.unreadCount(s.id)).toEqual({ count: 3 });
    const first = await sandbox.subscribers.inbox.list(s.id, { limit: 2 });
    expect(first.meta).toMatchObject({ total: 3, limit: 2, offset: 0, unread_count: 3 });
    const items = await sandbox.subscribers.inbox.list(s.id, { limit: 2 }).toArray();
    expect(items.map((i) => i.title).sort()).toEqual(["T0", "T1", "T2"]);

    const read = await sandbox.subscribers.inbox.read(s.id, items[0]!.id);
    expect(read.read).toBe(true);
    expect((await sandbox.subscribers.inbox.list(s.id, { unread_only: true })).data.length).toBe(2);
    expect(await sandbox.subscribers.inbox.readAll(s.id)).toEqual({ updated: 2 });
    expect(await sandbox.subscribers.inbox.unreadCount(s.external_id)).toEqual({ count: 0 });
  });

  test("inbox.stream: received and read events as they happen, resumed with last_event_id, closed by break or a signal", async () => {
    const s = await sandbox.subscribers.create({ external_id: `stream-${run}` });
    const sendOne = async (title: string) => {
      const n = await sandbox.notifications.create({ channel: "in_app", to: s.external_id, data: { title, body: "b" } });
      await delivered(sandbox, n.id);
      return n.id;
    };
    // an event from before the stream: resuming after it, nothing created later can fall between
    // the replay and the live subscription, however the connection and the sends interleave
    await sendOne("before");
    const [before] = await sql`select id from events where type = 'inbox.notification.received' and data->>'subscriber_id' = ${s.id}`;
    const events = sandbox.subscribers.inbox.stream(s.id, { last_event_id: before!.id });
    const first = events.next();
    const n1 = await sendOne("live");
    const received = (await first).value!;
    expect(received.type).toBe("inbox.notification.received");
    expect((received.data.item as { notification_id: string }).notification_id).toBe(n1);
    const item = await sandbox.subscribers.inbox.list(s.id, { unread_only: true }).firstPage();
    const itemId = item.data.find((i) => i.notification_id === n1)!.id;
    await sandbox.subscribers.inbox.read(s.id, itemId);
    const read = (await events.next()).value!;
    expect(read.type).toBe("inbox.notification.read");
    expect(read.data.item).toMatchObject({ id: itemId, read: true });
    await events.return(); // closes the connection

    // a new stream resumed after the received event starts with the read one
    for await (const e of sandbox.subscribers.inbox.stream(s.external_id, { last_event_id: received.id })) {
      expect([e.id, e.type]).toEqual([read.id, "inbox.notification.read"]);
      break;
    }
    // aborting the signal ends a waiting stream with the signal's reason
    const ac = new AbortController();
    const waiting = sandbox.subscribers.inbox.stream(s.id, {}, { signal: ac.signal }).next();
    setTimeout(() => ac.abort(new Error("closed by the test")), 50);
    expect(((await waiting.catch((e) => e)) as Error).message).toBe("closed by the test");
    const missing = await sandbox.subscribers.inbox.stream(`nobody-${run}`).next().catch((e) => e);
    expect([missing.status, missing.code]).toEqual([404, "subscriber_not_found"]);
  });

  test("publishable-key mode: X-Subscriber-Id / X-Subscriber-Hash reach the subscriber's own inbox", async () => {
    const settings = await sandbox.inboxEmbed.settings.update({ developer_mode: true });
    const pk = await sandbox.apiKeys.create({ key_type: "publishable", label: "widget" });
    expect(pk.raw_key.startsWith("pk_test_")).toBe(true);
    const externalId = `widget-${run}`;
    await sandbox.subscribers.create({ external_id: externalId });
    const browser = new Nms({
      baseUrl: api.url,
      apiKey: pk.raw_key,
      subscriberId: externalId,
      subscriberHash: createHmac("sha256", settings.inbox_secret).update(externalId).digest("hex"),
      headers: { origin: "http://localhost:5173" }, // a browser sets it; developer mode allows localhost
    });
    expect(await browser.subscribers.inbox.unreadCount(externalId)).toEqual({ count: 0 });
    const refused = await browser.subscribers.inbox.unreadCount(`inbox-${run}`).catch((e) => e);
    expect(refused).toBeInstanceOf(NmsError);
    expect(refused.status).toBe(403);
    await sandbox.inboxEmbed.settings.update({ developer_mode: false });
  });
});

describe("channels", () => {
  test("create, retrieve, list, update, test, del", async () => {
    const created = await sandbox.channels.create({
      channel: "email",
      provider: "smtp",
      credentials: { username: "u", password: "secret-pass" },
      settings: { host: "127.0.0.1", port: 2525, from_email: `noreply@client-${run}.com` },
    });
    expect(created).toMatchObject({ channel: "email", provider: "smtp", active: true });
    expect(created.credential_keys.sort()).toEqual(["password", "username"]);
    expect(JSON.stringify(created)).not.toContain("secret-pass");

    expect((await sandbox.channels.retrieve("email")).id).toBe(created.id);
    expect((await sandbox.channels.list()).map((c) => c.channel)).toEqual(["email"]);
    const paused = await sandbox.channels.update("email", { active: false });
    expect(paused.active).toBe(false);
    const tested = await sandbox.channels.test("email", { to: `t@client-${run}.com` });
    expect(tested.success).toBe(false); // inactive: the check answers without sending
    expect(tested.message).toContain("inactive");

    await sandbox.channels.create({ channel: "sms", provider: "sandbox" });
    const sms = await sandbox.channels.test("sms", { to: "+5511912345678" });
    expect(sms.success).toBe(true);
    expect(typeof sms.notification_id).toBe("string");

    await sandbox.channels.del("email");
    expect((await sandbox.channels.list()).map((c) => c.channel)).toEqual(["sms"]);
  });
});

describe("API keys", () => {
  test("reference shape: create, list, rotate, revoke", async () => {
    const k = await live.apiKeys.create({ label: "ci", permissions: ["read"] });
    expect(k).toMatchObject({ key_type: "secret", environment: "production", label: "ci", permissions: ["read"] });
    expect(k.raw_key.startsWith("nk_live_")).toBe(true);
    expect((await live.apiKeys.list()).map((x) => x.id)).toContain(k.id);

    const rotated = await live.apiKeys.rotate(k.id, { grace_period_hours: 1 });
    expect(rotated.rotated_from.id).toBe(k.id);
    expect(rotated.raw_key).not.toBe(k.raw_key);

    await live.apiKeys.revoke(rotated.id, { reason: "test over" });
    const revoked = new Nms({ baseUrl: api.url, apiKey: rotated.raw_key, maxRetries: 0 });
    const err = await revoked.notifications.list().firstPage().catch((e) => e);
    expect(err).toBeInstanceOf(NmsError);
    expect([err.status, err.code]).toEqual([401, "invalid_api_key"]);
  });

  test("guide shape: create, list (numbered pages), revoke", async () => {
    const made: GuideApiKeyWithSecret[] = [];
    for (const name of ["one", "two"]) made.push(await live.apiKeys.guide.create({ name: `${name}-${run}`, permissions: ["read", "write"] }));
    expect(made[0]!.key.startsWith("nk_live_")).toBe(true);
    const first = await live.apiKeys.guide.list({ per_page: 1 });
    expect(first.meta.page).toBe(1);
    expect(first.data.length).toBe(1);
    const all = await live.apiKeys.guide.list({ per_page: 1 }).toArray();
    expect(all.length).toBe(first.meta.total);
    expect(all.map((k) => k.id)).toEqual(expect.arrayContaining(made.map((k) => k.id)));
    for (const k of made) await live.apiKeys.guide.revoke(k.id);
    const after = await live.apiKeys.guide.list({ per_page: 100 }).toArray();
    expect(after.some((k) => made.some((m) => m.id === k.id))).toBe(false);
  });
});

describe("inbox embed", () => {
  test("settings retrieve/update, allowed origins create/list/del", async () => {
    const s = await live.inboxEmbed.settings.retrieve();
    expect(s).toMatchObject({ developer_mode: false, allowed_origins_count: 0 });
    expect((await live.inboxEmbed.settings.update({ developer_mode: true })).developer_mode).toBe(true);
    const o = await live.inboxEmbed.allowedOrigins.create({ origin: "https://app.example.com" });
    expect(o.origin).toBe("https://app.example.com");
    expect((await live.inboxEmbed.allowedOrigins.list()).map((x) => x.id)).toEqual([o.id]);
    expect((await live.inboxEmbed.settings.retrieve()).allowed_origins_count).toBe(1);
    await live.inboxEmbed.allowedOrigins.del(o.id);
    expect(await live.inboxEmbed.allowedOrigins.list()).toEqual([]);
    const bad = await live.inboxEmbed.allowedOrigins.create({ origin: "https://app.example.com/" }).catch((e) => e);
    expect([bad.status, bad.code, bad.details.origin]).toEqual([422, "validation_failed", ["must not end with a trailing slash"]]);
  });
});

describe("analytics", () => {
  test("overview, channels, timeseries, templates count what the sandbox sent", async () => {
    const viaTemplate = await sandbox.notifications.create({ channel: "email", to: `tpl@client-${run}.com`, template: `welcome-${run}`, data: { name: "Ana" } });
    await delivered(sandbox, viaTemplate.id);
    const overview = await sandbox.analytics.overview({ period: "24h" });
    expect(overview.period).toBe("24h");
    expect(overview.total).toBeGreaterThan(0);
    expect(overview.delivered).toBeGreaterThan(0);
    const channels = await sandbox.analytics.channels({ period: "1h" });
    expect(channels.map((c) => c.channel)).toContain("sms");
    const series = await sandbox.analytics.timeseries({ period: "24h" });
    expect(series.granularity).toBe("hour");
    expect(series.points.reduce((sum, p) => sum + p.total, 0)).toBe(overview.total);
    const top = await sandbox.analytics.templates({ limit: 5 });
    expect(top.find((r) => r.template === `welcome-${run}`)).toMatchObject({ total: 1, delivered: 1 });
    expect(top.length).toBeLessThanOrEqual(5);
  });
});

describe("admin: audit logs and blocked domains", () => {
  test("auditLogs.list with every filter, and retrieve by id", async () => {
    const before = new Date(Date.now() - 1000);
    const k = await live.apiKeys.create({ label: `audited-${run}` });
    const all = await admin.auditLogs.list({ tenant_id: tenantId });
    expect(all.count).toBe(all.audit_logs.length);
    const filtered = await admin.auditLogs.list({
      tenant_id: tenantId,
      action: "api_key.created",
      resource_type: "api_key",
      resource_id: k.id,
      actor_type: "api_key",
      actor_id: liveKeyId,
      start_date: before,
      end_date: new Date(Date.now() + 60_000),
      limit: 10,
    });
    expect(filtered.count).toBe(1);
    const entry = filtered.audit_logs[0]!;
    expect(entry).toMatchObject({ tenant_id: tenantId, action: "api_key.created", resource_id: k.id, actor_id: liveKeyId });
    expect(entry.inserted_at).toMatch(/\.\d{6}Z$/);
    expect(await admin.auditLogs.retrieve(entry.id)).toEqual(entry);
    const none = await admin.auditLogs.list({ tenant_id: tenantId, resource_id: k.id, end_date: before });
    expect(none.count).toBe(0);
    const asKey = await live.auditLogs.list({ tenant_id: tenantId }).catch((e) => e);
    expect([asKey.status, asKey.code]).toEqual([401, "invalid_admin_token"]);
  });

  test("blockedDomains create, check, list (cursor pages with search, manual first), del", async () => {
    for (const d of blockedDomains) {
      const created = await admin.blockedDomains.create(d);
      expect(created).toMatchObject({ domain: d, source: "manual" });
      expect(Number.isNaN(Date.parse(created.created_at))).toBe(false);
    }
    expect(await admin.blockedDomains.check(`x@${blockedDomains[0]}`)).toEqual({ email: `x@${blockedDomains[0]}`, blocked: true });
    const pages = [];
    for await (const p of admin.blockedDomains.list({ search: `client-${run}`, limit: 1 }).pages()) pages.push(p.data.map((d) => d.domain));
    // newest manual entry first: b was blocked after a
    expect(pages).toEqual([[blockedDomains[1]], [blockedDomains[0]]]);
    // without a search, the manual entries come before the 100k seeded ones
    const first = await admin.blockedDomains.list({ limit: 5 });
    expect(first.data[0]!.source).toBe("manual");
    expect(first.meta.has_more).toBe(true);
    expect(typeof first.meta.cursor).toBe("string");
    const dup = await admin.blockedDomains.create(blockedDomains[0]!).catch((e) => e);
    expect([dup.status, dup.code]).toEqual([409, "domain_already_blocked"]);
    for (const d of blockedDomains) await admin.blockedDomains.del(d);
    expect((await admin.blockedDomains.check(`x@${blockedDomains[0]}`)).blocked).toBe(false);
  });
});

describe("billing: plans and the subscription", () => {
  test("plans.admin create, retrieve, update, list; plans.list; subscription retrieve, change (upgrade now), cancel", async () => {
    const id = `client-${run}-pro`;
    const created = await admin.plans.admin.create({ id, name: "Pro", price_cents: 2900, limits: { notifications_per_month: 5000 } });
    expectTypeOf(created.limits.notifications_per_month).toEqualTypeOf<number | null>();
    expect(created).toMatchObject({ id, price_cents: 2900, currency: "usd", interval: "month", default: false });
    expect(created.limits).toEqual({ notifications_per_month: 5000, api_requests_per_minute: null, webhooks: null, domains: null, team_members: null, subscribers: null, retention_days: null });
    expect((await admin.plans.admin.retrieve(id)).name).toBe("Pro");
    const updated = await admin.plans.admin.update(id, { limits: { webhooks: 3 } });
    expect(updated.limits).toMatchObject({ notifications_per_month: 5000, webhooks: 3 });
    expect((await admin.plans.admin.list()).map((p) => p.id)).toContain(id);
    expect((await live.plans.list()).map((p) => p.id)).toContain(id);

    const before = await live.subscription.retrieve();
    expect(before).toMatchObject({ id: null, plan_id: "free", status: "active", gateway: "manual" });
    const subscribed = await live.subscription.change(id);
    expect(subscribed).toMatchObject({ plan_id: id, status: "active", gateway: "manual", effective_plan_id: id });
    expect(subscribed.limits.webhooks).toBe(3);
    const again = await live.subscription.change(id).catch((e) => e);
    expect(again).toBeInstanceOf(NmsError);
    expect((again as NmsError).status).toBe(409);
    const cancelled = await live.subscription.cancel({ reason: "client test", at_period_end: false });
    expect(cancelled).toMatchObject({ status: "cancelled", effective_plan_id: "free" });
  });
});

describe("dashboard session mode (cookie + X-Environment)", () => {
  async function signIn(role: "owner" | "admin" | "member") {
    const { user, session } = await sql.begin(async (t) => {
      const tx: Tx = t;
      const user = await insertUser(tx, { tenantId, email: `${role}-${run}@client-${run}.com`, role });
      const session = await createSession(tx, { userId: user.id, tenantId, ip: null, userAgent: null });
      return { user, session };
    });
    // In a browser `credentials: "include"` sends the cookie and the browser the Origin; here both by hand.
    const nms = new Nms({
      baseUrl: api.url,
      credentials: "include",
      environment: "sandbox",
      headers: { cookie: `${SESSION_COOKIE}=${session.token}`, origin: APP_URL },
    });
    return { user, nms };
  }

  test("me, teamMembers list/invite/update/del, and X-Environment scoping", async () => {
    const { user, nms } = await signIn("owner");
    expect(await nms.me.retrieve()).toEqual({ id: user.id, email: user.email, name: null, tenant_id: tenantId, tenant_name: `client-${run}`, role: "owner" });
    expect((await nms.teamMembers.list()).map((m) => m.email)).toEqual([user.email]);
    const invited = await nms.teamMembers.invite({ email: `new-${run}@client-${run}.com`, role: "member" });
    expect(invited).toMatchObject({ email: `new-${run}@client-${run}.com`, role: "member", last_login_at: null });
    expect((await nms.teamMembers.update(invited.id, { role: "admin" })).role).toBe("admin");
    await nms.teamMembers.del(invited.id);
    expect((await nms.teamMembers.list()).map((m) => m.id)).toEqual([user.id]);

    // environment: "sandbox" sees the sandbox key's templates, not production's
    expect((await nms.templates.list()).data.some((t) => t.slug === `welcome-${run}`)).toBe(true);
    expect((await live.templates.list()).data.some((t) => t.slug === `welcome-${run}`)).toBe(false);
  });
});

describe("dashboard: sign-in, providers, the team's audit log", () => {
  test("auth.providers, auth.requestMagicLink and auth.logout need no credentials", async () => {
    const anonymous = new Nms({ baseUrl: api.url });
    const providers = await anonymous.auth.providers();
    expect(Array.isArray(providers)).toBe(true); // none configured in this process
    expect(await anonymous.auth.requestMagicLink({ email: `someone-${run}@client-${run}.com` })).toEqual({ sent: true });
    const refused = await anonymous.auth.requestMagicLink({ email: "not-an-address" }).catch((e) => e);
    expect([refused.status, refused.code]).toEqual([422, "validation_failed"]);
    expect(await anonymous.auth.logout()).toBeUndefined(); // 204 also without a session
    expect(await anonymous.auth.session()).toBeNull();
  });

  test("providers.list describes each provider's fields with their JSON types", async () => {
    const providers = await live.providers.list();
    const smtp = providers.find((p) => p.name === "smtp")!;
    expect(smtp.channels).toEqual(["email"]);
    expect(smtp.setting_fields.find((f) => f.name === "port")).toMatchObject({ type: "integer", required: false });
    expect(smtp.credential_fields.map((f) => f.name)).toEqual(["username", "password"]);
  });

  test("teamAuditLogs.list: an owner's session reads the tenant's entries with filters", async () => {
    const session = await sql.begin(async (t) => {
      const tx: Tx = t;
      const user = await insertUser(tx, { tenantId, email: `auditor-${run}@client-${run}.com`, role: "owner" });
      return createSession(tx, { userId: user.id, tenantId, ip: null, userAgent: null });
    });
    const nms = new Nms({ baseUrl: api.url, credentials: "include", headers: { cookie: `${SESSION_COOKIE}=${session.token}`, origin: APP_URL } });
    expect((await nms.auth.session())?.tenant_id).toBe(tenantId);
    const { audit_logs, count } = await nms.teamAuditLogs.list({ action: "api_key.created", limit: 200 });
    expect(count).toBe(audit_logs.length);
    expect(audit_logs.length).toBeGreaterThan(0);
    expect(audit_logs.every((e) => e.tenant_id === tenantId && e.action === "api_key.created")).toBe(true);
    const err = await live.teamAuditLogs.list().catch((e) => e);
    expect([err.status, err.code]).toEqual([403, "session_required"]);
  });
});

describe("workflows and workflow runs", () => {
  test("create, retrieve, list, trigger (read back once completed), update = new version, cancel, del", async () => {
    await sandbox.templates.create({ slug: `wf-code-${run}`, name: "Code", channel: "sms", content: "Your code is {{ code }}" });
    const slug = `onboard-${run}`;
    const v1 = await sandbox.workflows.create({ slug, name: "Onboarding", steps: [{ type: "send", channel: "sms", template: `wf-code-${run}` }] });
    expect(v1).toMatchObject({ slug, name: "Onboarding", version: 1, active: true, steps: [{ type: "send", channel: "sms", template: `wf-code-${run}` }] });
    expect(await sandbox.workflows.retrieve(v1.id)).toEqual(v1);

    // trigger: 202 running; the workflow-run actor sends the step; read back once completed
    const started = await sandbox.workflows.trigger(slug, { to: "+5511955551234", data: { code: "4321" }, locale: "en" });
    expectTypeOf(started).toEqualTypeOf<WorkflowRun>();
    expect(started).toMatchObject({ workflow_id: v1.id, workflow_slug: slug, workflow_version: 1, recipient: "+5511955551234", status: "running" });
    const done = await waitFor(async () => {
      const r = await sandbox.workflowRuns.retrieve(started.id);
      return r.status === "running" ? null : r;
    }, 15_000);
    expect(done?.status).toBe("completed");
    const step = done!.step_results[0]!;
    expect(step).toMatchObject({ type: "send", step: 0, channel: "sms", status: "enqueued" });
    expect((await delivered(sandbox, step.notification_id!)).content).toEqual({ body: "Your code is 4321" });

    // the same Idempotency-Key is the same run
    const key = `trigger-${run}`;
    const once = await sandbox.workflows.trigger(slug, { recipient: "+5511955551235" }, { idempotencyKey: key });
    const twice = await sandbox.workflows.trigger(slug, { recipient: "+5511955551235" }, { idempotencyKey: key });
    expect(twice.id).toBe(once.id);

    // update: a new version (new id) with a long delay after the send, so its run stays running
    const v2 = await sandbox.workflows.update(v1.id, {
      name: "Onboarding v2",
      steps: [
        { type: "send", channel: "sms", template: `wf-code-${run}` },
        { type: "delay", duration: "7d" },
        { type: "fallback", channels: ["sms"], template: `wf-code-${run}` },
      ],
    });
    expect(v2).toMatchObject({ slug, version: 2, active: true });
    expect(v2.id).not.toBe(v1.id);
    expect((await sandbox.workflows.list({ slug })).data.map((w) => w.id)).toEqual([v2.id]);
    const versions = [];
    for await (const p of sandbox.workflows.list({ slug, include_inactive: true, limit: 1 }).pages()) versions.push(...p.data.map((w) => w.version));
    expect(versions).toEqual([2, 1]);

    const waiting = await sandbox.workflows.trigger(slug, { to: "+5511955551236", payload: { code: "1" } });
    const delayed = await waitFor(async () => {
      const r = await sandbox.workflowRuns.retrieve(waiting.id);
      return r.step_results.some((s) => s.type === "delay") ? r : null;
    }, 15_000);
    expect(delayed).toMatchObject({ status: "running", current_step: 1 }); // waiting in step 1, the delay
    const listed = await sandbox.workflowRuns.list({ workflow_id: v2.id, status: "running" });
    expect(listed.data.map((r) => r.id)).toEqual([waiting.id]);
    const runs = await sandbox.workflowRuns.list({ limit: 1 }).toArray();
    expect(runs.map((r) => r.id)).toEqual(expect.arrayContaining([started.id, once.id, waiting.id]));

    const cancelled = await sandbox.workflowRuns.cancel(waiting.id);
    expect(cancelled.status).toBe("cancelled");
    expect(cancelled.completed_at).not.toBeNull();
    const again = await sandbox.workflowRuns.cancel(waiting.id).catch((e) => e);
    expect([again.status, again.code]).toEqual([409, "run_not_cancellable"]);

    await sandbox.workflows.del(v2.id);
    expect((await sandbox.workflows.list({ slug })).data).toEqual([]);
    const gone = await sandbox.workflows.trigger(slug, { to: "+5511955551237" }).catch((e) => e);
    expect([gone.status, gone.code]).toEqual([404, "workflow_not_found"]);
  });
});

describe("webhooks", () => {
  let host: Awaited<ReturnType<typeof startWebhookHost>>;
  let receiver: Receiver;
  beforeAll(async () => {
    // the dispatcher in this process; at this scale a failed attempt's automatic retry is 15 s away
    host = await startWebhookHost({ timeScale: 0.05 });
    receiver = startReceiver();
  });
  afterAll(async () => {
    await receiver?.stop();
    await host?.stop();
  });

  const ok = () => new Response("ok");
  const down = () => new Response("down", { status: 503 });
  /** The requests the receiver got carrying this notification's notification.delivered event. */
  const requestsFor = (notificationId: string) =>
    receiver.received.filter((r) => r.json?.type === "notification.delivered" && r.json?.data?.notification?.id === notificationId);

  /** A delivered sandbox SMS; resolves with the id of the event the receiver got for it. */
  async function eventOf(content: string): Promise<string> {
    const n = await sandbox.notifications.create({ channel: "sms", to: "+5511955550000", data: { content } });
    await delivered(sandbox, n.id);
    const req = await waitFor(() => requestsFor(n.id)[0], 30_000, 20);
    if (!req) throw new Error(`no webhook request for notification ${n.id}`);
    return req.json.id;
  }

  async function deliveryOf(webhookId: string, eventId: string, status: "success" | "failed") {
    // bounded well above a quiet run's second: 15 s was passed on a loaded machine (load 20+ on 2 cores)
    const d = await waitFor(async () => (await sandbox.webhooks.deliveries(webhookId, { event_id: eventId, status })).data[0], 30_000);
    if (!d) throw new Error(`no ${status} delivery of event ${eventId}`);
    return d;
  }

  test("create (secret once), list, retrieve, test, deliveries, retry, replay, update, del; both signatures verify", async () => {
    const w = await sandbox.webhooks.create({ url: receiver.url, events: ["notification.delivered"], description: `client ${run}` });
    expect(w).toMatchObject({ url: receiver.url, events: ["notification.delivered"], active: true, description: `client ${run}`, disabled_reason: null });
    expect(w.signing_secret).toMatch(/^whsec_/);
    const secret = w.signing_secret;
    const listed = await sandbox.webhooks.list();
    expect(listed.map((x) => x.id)).toEqual([w.id]);
    expect(Object.keys(listed[0]!)).not.toContain("signing_secret");
    expect(await sandbox.webhooks.retrieve(w.id)).toEqual(listed[0]!);

    // a test send answers its outcome; the request carries both signatures
    const tested = await sandbox.webhooks.test(w.id, { event: "notification.delivered" });
    expect(tested).toMatchObject({ success: true, status_code: 200, error: null });
    const testRequest = receiver.received.find((r) => r.json?.type === "notification.test")!;
    expect(await verifyWebhookSignature(testRequest.body, testRequest.headers["x-service-signature"], secret)).toBe(true);
    expect(await verifyStandardWebhook(testRequest.body, testRequest.headers, secret)).toBe(true);
    expect(await verifyStandardWebhook(testRequest.body, testRequest.headers, `${secret}x`)).toBe(false);

    // a real event through the dispatcher, verified and parsed with the Standard Webhooks headers
    const e1 = await eventOf(`webhook 1 ${run}`);
    const r1 = receiver.received.find((r) => r.json?.id === e1)!;
    const parsed = await parseStandardWebhook(r1.body, new Headers(r1.headers), secret);
    expect([parsed.id, parsed.type]).toEqual([e1, "notification.delivered"]);
    expect((await deliveryOf(w.id, e1, "success")).attempt).toBe(1);

    // retry: the receiver failed attempt 1; a manual retry sends the event again, now
    receiver.respond = down;
    const e2 = await eventOf(`webhook 2 ${run}`);
    const failed = await deliveryOf(w.id, e2, "failed");
    expect(failed).toMatchObject({ attempt: 1, response_status: 503 });
    receiver.respond = ok;
    const retried = await sandbox.webhooks.retry(w.id, failed.id);
    expect(retried).toMatchObject({ event_id: e2, status: "pending" });
    expect((await deliveryOf(w.id, e2, "success")).attempt).toBe(retried.attempt);

    // replay: every event of the window without a successful or pending delivery is queued again
    receiver.respond = down;
    const e3 = await eventOf(`webhook 3 ${run}`);
    await deliveryOf(w.id, e3, "failed");
    receiver.respond = ok;
    const replayed = await sandbox.webhooks.replay(w.id, { since: new Date(w.created_at) });
    expect(replayed).toEqual({ queued: 1, truncated: false, last_event_at: expect.any(String) });
    await deliveryOf(w.id, e3, "success");

    // every delivery, two per page, newest first, none twice
    const pages = [];
    for await (const p of sandbox.webhooks.deliveries(w.id, { limit: 2 }).pages()) pages.push(p.data);
    const all = pages.flat();
    expect(pages.length).toBe(Math.ceil(all.length / 2));
    expect(new Set(all.map((d) => d.id)).size).toBe(all.length);
    expect(all.filter((d) => d.event_id === e2).map((d) => d.status)).toEqual(["success", "failed"]);

    const paused = await sandbox.webhooks.update(w.id, { active: false, description: null });
    expect(paused).toMatchObject({ id: w.id, active: false, description: null });
    await sandbox.webhooks.del(w.id);
    expect(await sandbox.webhooks.list()).toEqual([]);
    const gone = await sandbox.webhooks.retrieve(w.id).catch((e) => e);
    expect([gone.status, gone.code]).toEqual([404, "webhook_not_found"]);
  });
});

describe("sending domains", () => {
  type Records = SendingDomain["dns_records"];
  const publish = (r: Records) => {
    for (const k of ["txt", "spf", "dkim", "dmarc"] as const) dns.setTxt(r[k].name, r[k].value);
  };

  test("create, verify, health, check, alerts, list (cursor pages), update block_on_failure, del", async () => {
    const name = `mail.client-${run}.com`;
    const d = await live.domains.create({ domain: name });
    expect(d).toMatchObject({ domain: name, status: "pending", verified_at: null, block_on_failure: false, health: null });
    expect(d.dns_records.txt.name).toBe(`_nms-verify.${name}`);
    expect(await live.domains.retrieve(d.id)).toEqual(d);

    const unpublished = await live.domains.verify(d.id);
    expect(unpublished.status).toBe("pending");
    expect(unpublished.verification_error).toBeTruthy();
    publish(d.dns_records);
    const verified = await live.domains.verify(d.id);
    expect(verified.status).toBe("verified");
    expect(verified.verified_at).not.toBeNull();

    // never checked: health checks now; every record is published
    const health = await live.domains.health(d.id);
    expect([health.spf.status, health.dkim.status, health.dmarc.status]).toEqual(["pass", "pass", "pass"]);
    // the DKIM record goes away: a forced check sees it, and an alert opens
    dns.clear(d.dns_records.dkim.name);
    const checked = await live.domains.check(d.id);
    expect(checked.dkim).toMatchObject({ status: "missing", record: null });
    const alerts = await live.domains.alerts({ domain_id: d.id });
    expect(alerts.data.map((a) => [a.domain, a.check, a.status, a.resolved_at])).toEqual([[name, "dkim", "missing", null]]);
    expect(alerts.meta.has_more).toBe(false);
    const again = await live.domains.check(d.id, { maxRetries: 0 }).catch((e) => e);
    expect([again.status, again.code]).toEqual([429, "rate_limited"]);

    // the same Idempotency-Key is the same domain
    const key = `domain-${run}`;
    const second = await live.domains.create({ domain: `news.client-${run}.com` }, { idempotencyKey: key });
    expect((await live.domains.create({ domain: `news.client-${run}.com` }, { idempotencyKey: key })).id).toBe(second.id);
    const pages = [];
    for await (const p of live.domains.list({ limit: 1 }).pages()) pages.push(p.data.map((x) => x.domain));
    expect(pages).toEqual([[`news.client-${run}.com`], [name]]);

    expect((await live.domains.update(d.id, { block_on_failure: true })).block_on_failure).toBe(true);
    for (const x of [d, second]) await live.domains.del(x.id);
    expect((await live.domains.list()).data).toEqual([]);
    const gone = await live.domains.retrieve(d.id).catch((e) => e);
    expect(gone.status).toBe(404);
  });
});

describe("suppressions", () => {
  test("list (cursor pages, filters), del lifts an address and sends to it go out again", async () => {
    const email = `gone-${run}@client-${run}.com`;
    const endpoint = `https://push.client-${run}.example/send/abc/${run}`;
    const scope = { tenantId, environment: "sandbox" };
    await sql.begin(async (t) => {
      const tx: Tx = t;
      await addSuppression(tx, { ...scope, address: email, channel: "email", reason: "bounced", notificationId: null });
      await addSuppression(tx, { ...scope, address: endpoint, channel: "push", reason: "unregistered", notificationId: null });
    });
    const pages = [];
    for await (const p of sandbox.suppressions.list({ limit: 1 }).pages()) pages.push(p.data.map((x) => x.address));
    expect(pages).toEqual([[endpoint], [email]]);
    expect((await sandbox.suppressions.list({ reason: "bounced" })).data).toEqual([
      { address: email, channel: "email", reason: "bounced", notification_id: null, created_at: expect.any(String) },
    ]);
    expect((await sandbox.suppressions.list({ address: email.toUpperCase() })).data.map((x) => x.address)).toEqual([email]);
    expect((await sandbox.suppressions.list({ channel: "push" })).data.map((x) => x.address)).toEqual([endpoint]);

    const blocked = await sandbox.notifications.create({ channel: "email", to: email, data: { subject: "s", body: "b" } });
    expect((await waitFor(async () => {
      const n = await sandbox.notifications.retrieve(blocked.id);
      return n.status === "pending" || n.status === "queued" ? null : n;
    }, 15_000))?.status).toBe("suppressed");

    await sandbox.suppressions.del(email);
    await sandbox.suppressions.del(endpoint); // its slashes travel encoded in one path segment
    expect((await sandbox.suppressions.list()).data).toEqual([]);
    const missing = await sandbox.suppressions.del(email).catch((e) => e);
    expect(missing.status).toBe(404);
    const sent = await sandbox.notifications.create({ channel: "email", to: email, data: { subject: "s", body: "b" } });
    await delivered(sandbox, sent.id);
  });
});

describe("admin: dead letters", () => {
  test("list (one actor, next_cursor pages, totals), retrieve with the stack, redrive, del", async () => {
    const actor = `client-dl-${run}`;
    const runtime = testRuntime();
    try {
      await makeDeadLetters(runtime, actor, [
        { key: "k-1", n: 1 },
        { key: "k-2", n: 2 },
        { key: "k-3", n: 3 },
      ]);
      const first = await admin.deadLetters.list({ actor, limit: 2 });
      expect(first.meta).toMatchObject({ limit: 2, totals: { [actor]: 3 } });
      expect(typeof first.meta.next_cursor).toBe("string");
      const all = await admin.deadLetters.list({ actor, limit: 2 }).toArray();
      expect(all.map((d) => (d.message as { n: number }).n).sort()).toEqual([1, 2, 3]);
      expect(all.every((d) => d.actor === actor && d.stack === undefined)).toBe(true);

      const one = await admin.deadLetters.retrieve(actor, all[0]!.id);
      expect(one).toMatchObject({ id: all[0]!.id, actor, key: all[0]!.key });
      expect(one.stack).toContain("cannot handle");

      const redriven = await admin.deadLetters.redrive(actor, all[0]!.id);
      expect(redriven).toMatchObject({ id: all[0]!.id, actor, partition: all[0]!.partition });
      expect(redriven.entry_id).toMatch(/^\d+-\d+$/);
      await admin.deadLetters.del(actor, all[1]!.id);
      expect((await admin.deadLetters.list({ actor })).data.map((d) => d.id)).toEqual([all[2]!.id]);
      const gone = await admin.deadLetters.retrieve(actor, all[1]!.id).catch((e) => e);
      expect(gone.status).toBe(404);
      const asKey = await live.deadLetters.list().firstPage().catch((e) => e);
      expect([asKey.status, asKey.code]).toEqual([401, "invalid_admin_token"]);
    } finally {
      await runtime.close();
      await deleteActorKeys([actor]);
    }
  });
});

describe("NmsError", () => {
  test("carries status, code, message, details and the response's X-Request-Id", async () => {
    const err = await sandbox.notifications.create({ channel: "email" }).catch((e) => e);
    expect(err).toBeInstanceOf(NmsError);
    expect(err).toBeInstanceOf(Error);
    expect(err.name).toBe("NmsError");
    expect(err.status).toBe(422);
    expect(err.code).toBe("validation_failed");
    expect(err.message).toBeTruthy();
    expect(err.details).toEqual({ to: ["is required (or recipient)"] });
    expect(err.requestId).toMatch(/\S+/);
    expect(err.headers.get("x-request-id")).toBe(err.requestId);

    const missing = await sandbox.notifications.retrieve(crypto.randomUUID()).catch((e) => e);
    expect([missing.status, missing.code, missing.details]).toEqual([404, "notification_not_found", undefined]);

    const anonymous = new Nms({ baseUrl: api.url });
    const unauth = await anonymous.channels.list().catch((e) => e);
    expect([unauth.status, unauth.code]).toEqual([401, "invalid_api_key"]);
  });

  test("no server: status 0, code connection_error, no request id", async () => {
    const nowhere = new Nms({ baseUrl: "http://127.0.0.1:9", apiKey: "nk_test_x", maxRetries: 0 });
    const err = await nowhere.channels.list().catch((e) => e);
    expect(err).toBeInstanceOf(NmsError);
    expect([err.status, err.code]).toEqual([0, "connection_error"]);
    expect(err.requestId).toBeUndefined();
  });
});

describe("audiences and the delivery policy (issue 22)", () => {
  test("topics: create, list, retrieve, members added/listed/removed, delete", async () => {
    const key = `client-${run}`;
    await sandbox.subscribers.create({ external_id: `${key}-m1` });
    const t = await sandbox.topics.create({ key, name: "Client topic" });
    expect(t).toMatchObject({ key, name: "Client topic", subscriber_count: 0 });
    expect((await sandbox.topics.list({ limit: 100 })).data.map((x) => x.key)).toContain(key);
    expect(await sandbox.topics.addSubscribers(key, [`${key}-m1`, "nobody"])).toEqual({ added: 1, already: 0, not_found: ["nobody"] });
    expect((await sandbox.topics.retrieve(key)).subscriber_count).toBe(1);
    expect((await sandbox.topics.listSubscribers(key)).data.map((s) => s.external_id)).toEqual([`${key}-m1`]);
    expect(await sandbox.topics.removeSubscribers(key, [`${key}-m1`])).toEqual({ removed: 1, already: 0, not_found: [] });
    await sandbox.topics.del(key);
    const gone = await sandbox.topics.retrieve(key).catch((e) => e);
    expect([gone.status, gone.code]).toEqual([404, "topic_not_found"]);
  });

  test("broadcasts: bulk trigger, trigger to a topic, retrieve, cancel", async () => {
    const slug = `client-bcast-${run}`;
    await sandbox.workflows.create({ slug, name: "b", steps: [{ type: "send", channel: "in_app", template: "x" }] });
    const runs = await sandbox.broadcasts.triggerBulk(slug, { events: [{ recipient: "a-1", locale: "pt_BR" }, { recipient: "a-2" }] });
    expect(runs.map((r) => r.recipient)).toEqual(["a-1", "a-2"]);
    await sandbox.topics.create({ key: `${slug}-t`, name: "t" });
    const b = await sandbox.broadcasts.trigger(slug, { to: { topic: `${slug}-t` }, data: { x: 1 }, locale: "en" });
    expect(b).toMatchObject({ topic: `${slug}-t`, workflow_slug: slug, status: "fanning_out", recipients: null });
    const got = await sandbox.broadcasts.retrieve(b.id);
    expect(got.id).toBe(b.id);
    // no broadcast host runs here: the fan-out has not started, so it can be cancelled
    if (got.status === "fanning_out") expect((await sandbox.broadcasts.cancel(b.id)).status).toBe("cancelled");
    const again = await sandbox.broadcasts.cancel(b.id).catch((e) => e);
    expect([again.status, again.code]).toEqual([409, "broadcast_not_cancellable"]);
  });

  test("deliverySettings: retrieve the defaults, update, 422 with details", async () => {
    expect(await sandbox.deliverySettings.retrieve()).toMatchObject({ timezone: "UTC", quiet_hours: null, frequency_caps: [] });
    const s = await sandbox.deliverySettings.update({ timezone: "Europe/Lisbon", quiet_hours: { start: "22:00", end: "07:00", channels: ["sms"] }, frequency_caps: [{ channel: "push", limit: 2, window: "1h" }] });
    expect(s).toMatchObject({ timezone: "Europe/Lisbon", frequency_caps: [{ channel: "push", limit: 2, window: "1h" }] });
    const bad = await sandbox.deliverySettings.update({ timezone: "Nowhere/Else" }).catch((e) => e);
    expect([bad.status, bad.code, Object.keys(bad.details)]).toEqual([422, "validation_failed", ["timezone"]]);
  });
});
