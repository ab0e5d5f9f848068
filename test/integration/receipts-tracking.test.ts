// Open and click tracking in a real email received by the SMTP fake, unregistered push recipients
// (FCM UNREGISTERED, Web Push 410) suppressed, and erasure of engagement data.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTrackingToken } from "../../domain/receipts/tracking-token";
import { clearFcmTokenCache } from "../../providers/push/fcm";
import { sql } from "../../store/db";
import { addSuppression } from "../../store/suppressions";
import { app, call, createTenant } from "../support/fixtures";
import * as fakeFcm from "../support/fake-fcm";
import * as fakeSmtp from "../support/fake-smtp";
import * as fakeWebpush from "../support/fake-webpush";
import { sleep, waitFor } from "../support/runtime-redis";
import { deleteTenants } from "../support/tenant-cleanup";
import webpush from "web-push";
import { startDeliveryHost, waitForStatus } from "./delivery-support";

let delivery: Awaited<ReturnType<typeof startDeliveryHost>>;
let smtp: fakeSmtp.FakeSmtp;
let fcm: fakeFcm.FakeFcm;
let push: fakeWebpush.FakeWebpush;
let T: Awaited<ReturnType<typeof createTenant>>;
const RECIPIENT = `reader-${crypto.randomUUID().slice(0, 8)}@example.com`;
const HTML =
  '<html><body><p>Hi <a href="https://acme.test/offer?a=1&amp;b=2">the offer</a>, ' +
  '<a href="mailto:help@acme.test">write to us</a> or <a href="https://acme.test/help">get help</a>.</p></body></html>';

async function send(key: string, body: Record<string, unknown>, want: string[]) {
  const r = await call("POST", "/v1/notifications", { key, body });
  expect(r.status).toBe(202);
  const row = await waitForStatus(r.body.data.id, want);
  expect(want).toContain(row!.status);
  return row!;
}

/** The text/html part of a raw MIME message, transfer-decoded (nodemailer uses quoted-printable or base64). */
function htmlPart(raw: string): string {
  const m = /Content-Type: text\/html[^\r\n]*\r\n(?:[^\r\n]+\r\n)*?Content-Transfer-Encoding: ([\w-]+)\r\n(?:[^\r\n]+\r\n)*\r\n([\s\S]*?)\r\n--/i.exec(raw);
  if (!m) throw new Error(`no text/html part in:\n${raw}`);
  const [, encoding, body] = m;
  if (encoding!.toLowerCase() === "base64") return Buffer.from(body!.replace(/\s+/g, ""), "base64").toString("utf8");
  if (encoding!.toLowerCase() === "quoted-printable") {
    const bytes = body!.replace(/=\r\n/g, "").replace(/=([0-9A-F]{2})/gi, (_, h: string) => String.fromCharCode(parseInt(h, 16)));
    return Buffer.from(bytes, "latin1").toString("utf8");
  }
  return body!;
}

const visit = (url: string, ua = "Mozilla/5.0 (Macintosh) Mail") => {
  const u = new URL(url);
  return call("GET", `${u.pathname}${u.search}`, { headers: { "user-agent": ua, "x-test-client-ip": "203.0.113.44" } });
};

beforeAll(async () => {
  delivery = await startDeliveryHost();
  [smtp, fcm, push] = await Promise.all([fakeSmtp.start(), fakeFcm.start(), fakeWebpush.start()]);
  T = await createTenant();
  // the sandbox environment gets its own email channel, with tracking on
  const r = await call("POST", "/v1/channels", {
    key: T.sandboxKey,
    body: {
      channel: "email",
      provider: "smtp",
      credentials: {},
      settings: { host: smtp.host, port: smtp.port, secure: false, from_email: "news@acme.test", track_opens: true, track_clicks: true },
    },
  });
  expect(r.status).toBe(201);
});

afterAll(async () => {
  await delivery.stop();
  await Promise.all([smtp.stop(), fcm.stop(), push.stop()]);
  clearFcmTokenCache();
  await deleteTenants([T.tenant.id]);
});

describe("open and click tracking through the public routes", () => {
  let id: string;
  let pixel: string;
  let links: string[];

  test("the email as received has a pixel and its http(s) links rewritten; mailto stays", async () => {
    const n = await send(T.sandboxKey, { channel: "email", to: RECIPIENT, data: { subject: "News", html_body: HTML, content: "Hi" } }, ["sent"]);
    id = n.id;
    const [msg] = await smtp.waitForMessages(1);
    const html = htmlPart(msg!.raw);
    expect(html).not.toContain("https://acme.test/offer");
    expect(html).toContain('href="mailto:help@acme.test"');
    links = [...html.matchAll(/href="([^"]*\/track\/click\/[^"]+)"/g)].map((m) => m[1]!);
    expect(links).toHaveLength(2);
    pixel = /<img src="([^"]*\/track\/open\/[^"]+)"/.exec(html)![1]!;
    // nothing in the URLs names the notification in clear
    for (const u of [...links, pixel]) expect(u).not.toContain(id);
  });

  test("the pixel: a real 1x1 GIF, never cached; the first open delivers and opens, a second changes nothing", async () => {
    const r = await visit(pixel);
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toBe("image/gif");
    expect(r.headers.get("cache-control")).toContain("no-store");
    const res = await app().handle(new Request(`http://localhost${new URL(pixel).pathname}`));
    const gif = Buffer.from(await res.arrayBuffer());
    expect(gif.subarray(0, 6).toString("latin1")).toBe("GIF89a");
    expect([gif.readUInt16LE(6), gif.readUInt16LE(8)]).toEqual([1, 1]);

    const [row] = await sql`select status, opened_at, delivered_at from notifications where id = ${id}`;
    expect(row!.status).toBe("delivered");
    expect(row!.opened_at).toBeInstanceOf(Date);
    const opened = await sql`select data from events where type = 'notification.opened' and data -> 'notification' ->> 'id' = ${id}`;
    expect(opened).toHaveLength(1);
    expect(opened[0]!.data).toMatchObject({ ip: "203.0.113.44", user_agent: "Mozilla/5.0 (Macintosh) Mail" });
  });

  test("a click: 302 to the original URL (entities decoded), recorded with its URL; each click counts", async () => {
    const first = await visit(links[0]!);
    expect(first.status).toBe(302);
    expect(first.headers.get("location")).toBe("https://acme.test/offer?a=1&b=2");
    const second = await visit(links[1]!);
    expect(second.headers.get("location")).toBe("https://acme.test/help");
    await visit(links[1]!);
    const eng = await sql`select kind, link_index, url, ip, user_agent from notification_engagements where notification_id = ${id} order by created_at, id`;
    expect(eng.map((e) => [e.kind, e.link_index, e.url])).toEqual([
      ["open", null, null],
      ["click", 0, "https://acme.test/offer?a=1&b=2"],
      ["click", 1, "https://acme.test/help"],
      ["click", 1, "https://acme.test/help"],
    ]);
    expect(eng[1]!.ip).toBe("203.0.113.44");
    const clicked = await sql`select data from events where type = 'notification.clicked' and data -> 'notification' ->> 'id' = ${id} order by created_at, id`;
    expect(clicked.map((c) => c.data.url)).toEqual(["https://acme.test/offer?a=1&b=2", "https://acme.test/help", "https://acme.test/help"]);
    const o = await call("GET", "/v1/analytics/overview?period=1h", { key: T.sandboxKey });
    expect(o.body.data).toMatchObject({ delivered: 1, opened: 1, clicked: 1 });
  });

  test("no open redirect: a tampered token, an open token on the click route, a link the message does not have", async () => {
    const token = links[0]!.split("/track/click/")[1]!;
    const tampered = token.slice(0, -2) + (token.endsWith("AA") ? "AB" : "AA");
    for (const bad of [`/track/click/${tampered}`, `/track/click/${pixel.split("/track/open/")[1]}`, "/track/click/https%3A%2F%2Fevil.test", `/track/open/${token}`]) {
      const r = await call("GET", bad);
      expect(r.status).toBe(400);
      expect(r.body.error.code).toBe("invalid_token");
      expect(r.headers.get("location")).toBeNull();
    }
    const beyond = await call("GET", `/track/click/${createTrackingToken("click", id, 7)}`);
    expect(beyond.status).toBe(404);
    expect(beyond.body.error.code).toBe("link_not_found");
  });

  test("erasure erases engagement: clicks, opens, their timestamps and the subscriber's suppression rows", async () => {
    const s = await call("POST", "/v1/subscribers", { key: T.sandboxKey, body: { external_id: `u-${crypto.randomUUID()}`, email: RECIPIENT } });
    expect(s.status).toBeLessThan(300);
    await addSuppression(sql, { tenantId: T.tenant.id, environment: "sandbox", address: RECIPIENT, channel: "email", reason: "complained", notificationId: id });
    const del = await call("DELETE", `/v1/subscribers/${s.body.data.id}`, { key: T.sandboxKey });
    expect(del.status).toBeLessThan(300);
    expect(await sql`select 1 from notification_engagements where notification_id = ${id}`).toHaveLength(0);
    expect(await sql`select 1 from suppressions where tenant_id = ${T.tenant.id} and address = ${RECIPIENT}`).toHaveLength(0);
    const [row] = await sql`select recipient, opened_at, clicked_at from notifications where id = ${id}`;
    expect(row).toEqual({ recipient: "[erased]", opened_at: null, clicked_at: null });
    const ev = await sql`select data from events where type in ('notification.opened', 'notification.clicked') and data -> 'notification' ->> 'id' = ${id}`;
    for (const e of ev) expect(e.data).not.toHaveProperty("ip");
    // the links are gone with the content; the pixel still answers but records nothing
    expect((await visit(links[0]!)).status).toBe(404);
    expect((await visit(pixel)).status).toBe(200);
    expect(await sql`select 1 from notification_engagements where notification_id = ${id}`).toHaveLength(0);
  });
});

describe("unregistered push recipients join the suppression list", () => {
  test("FCM UNREGISTERED: failed, listed as unregistered, the next send suppressed without reaching FCM", async () => {
    const account = await fcm.createServiceAccount({ projectId: "demo-project" });
    const r = await call("POST", "/v1/channels", {
      key: T.secretKey,
      body: { channel: "push", provider: "fcm", credentials: { service_account: account }, settings: { project_id: "demo-project", base_url: fcm.url, token_url: fcm.tokenUrl } },
    });
    expect(r.status).toBe(201);
    const token = `fcm-token-${crypto.randomUUID()}`;
    fcm.script({ kind: "error", status: 404, code: "UNREGISTERED" });
    const n = await send(T.secretKey, { channel: "push", to: token, data: { title: "Hi", body: "there" } }, ["failed"]);
    expect(n.error.code).toBe("fcm_unregistered");
    const list = await call("GET", `/v1/suppressions?address=${encodeURIComponent(token)}`, { key: T.secretKey });
    expect(list.body.data).toEqual([{ address: token, channel: "push", reason: "unregistered", notification_id: n.id, created_at: expect.any(String) }]);
    const sends = fcm.requests.filter((q) => q.kind === "send").length;
    const next = await send(T.secretKey, { channel: "push", to: token, data: { title: "Hi", body: "again" } }, ["suppressed"]);
    expect(next.suppressed_reason).toBe("unregistered");
    expect(fcm.requests.filter((q) => q.kind === "send").length).toBe(sends);
  });

  test("Web Push 410: the subscription is listed by its endpoint; the next send is suppressed", async () => {
    const vapid = webpush.generateVAPIDKeys();
    const r = await call("POST", "/v1/channels", {
      key: T.sandboxKey,
      body: { channel: "push", provider: "webpush", credentials: { vapid_public_key: vapid.publicKey, vapid_private_key: vapid.privateKey }, settings: { subject: "mailto:ops@acme.test" } },
    });
    expect(r.status).toBe(201);
    const sub = push.createSubscription();
    push.expireSubscription(sub);
    const n = await send(T.sandboxKey, { channel: "push", to: JSON.stringify(sub), data: { title: "Hi", body: "there" } }, ["failed"]);
    expect(n.error.code).toBe("subscription_expired");
    const path = `/v1/suppressions/${encodeURIComponent(sub.endpoint)}`;
    const list = await call("GET", `/v1/suppressions?reason=unregistered&channel=push`, { key: T.sandboxKey });
    expect(list.body.data.map((s: any) => s.address)).toEqual([sub.endpoint]);
    const deliveries = push.requests.length;
    const next = await send(T.sandboxKey, { channel: "push", to: JSON.stringify(sub), data: { title: "Hi", body: "again" } }, ["suppressed"]);
    expect(next.suppressed_reason).toBe("unregistered");
    expect(push.requests.length).toBe(deliveries);
    // an endpoint URL as a path parameter: its slashes encoded
    expect((await call("DELETE", path, { key: T.sandboxKey })).status).toBe(204);
  });

  test("the entry commits with the `failed` status: no reader ever sees the one without the other", async () => {
    const U = await createTenant();
    const vapid = webpush.generateVAPIDKeys();
    const r = await call("POST", "/v1/channels", {
      key: U.sandboxKey,
      body: { channel: "push", provider: "webpush", credentials: { vapid_public_key: vapid.publicKey, vapid_private_key: vapid.privateKey }, settings: { subject: "mailto:ops@acme.test" } },
    });
    expect(r.status).toBe(201);
    const sub = push.createSubscription();
    push.expireSubscription(sub);
    const seen = async (id: string) =>
      (await sql`select n.status, exists (select 1 from suppressions s where s.tenant_id = n.tenant_id and s.environment = n.environment
        and s.address = ${sub.endpoint}) as listed from notifications n where n.id = ${id}`)[0]!;
    // the list's inserts wait behind this lock: an entry written after the status (outside its
    // transaction) would leave `failed` readable without it for as long as the lock is held
    const lock = await sql.reserve();
    let id = "";
    const gaps: unknown[] = [];
    try {
      await lock`begin`;
      await lock`lock table suppressions in share mode`;
      const before = push.requests.length;
      const accepted = await call("POST", "/v1/notifications", { key: U.sandboxKey, body: { channel: "push", to: JSON.stringify(sub), data: { title: "Hi", body: "locked" } } });
      expect(accepted.status).toBe(202);
      id = accepted.body.data.id;
      expect(await waitFor(() => push.requests.length > before, 10_000)).toBe(true);
      // the push service has answered 410: watch the row for a while with the insert held
      const until = Date.now() + 1000;
      while (Date.now() < until) {
        const row = await seen(id);
        if (row.status === "failed" && !row.listed) gaps.push(row);
        await sleep(20);
      }
    } finally {
      await lock`rollback`;
      lock.release();
    }
    expect(gaps).toEqual([]);
    expect((await waitForStatus(id, ["failed"]))!.status).toBe("failed");
    expect(await seen(id)).toEqual({ status: "failed", listed: true });
    await deleteTenants([U.tenant.id]);
  });
});
