// Provider failover through the channel sender on a real runtime host (issue 23, docs/routing.md), against
// local SendGrid fakes: failover on a 500 and on a timeout (at once, no back-off), an open circuit is not
// called at all, half-open after the cool-down then closed by a success, two processes share one circuit,
// and a caller-fault 4xx never opens it. TIME_SCALE is 1 here: a back-off wait would be 30 s.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { fileURLToPath } from "node:url";
import { config } from "../../config";
import { sql } from "../../store/db";
import { redis } from "../../store/redis";
import { redisKeys } from "../../store/redis-keys";
import { call, createTenant } from "../support/fixtures";
import * as fakeSendgrid from "../support/fake-sendgrid";
import { attemptsOf, startDeliveryHost, waitForStatus } from "./delivery-support";

let delivery: Awaited<ReturnType<typeof startDeliveryHost>>;
let primary: fakeSendgrid.FakeSendgrid;
let backup: fakeSendgrid.FakeSendgrid;
const settingsBefore = { ...config.circuit };
const ROOT = fileURLToPath(new URL("../..", import.meta.url));

beforeAll(async () => {
  [primary, backup] = await Promise.all([fakeSendgrid.start(), fakeSendgrid.start()]);
  delivery = await startDeliveryHost(1);
});

afterAll(async () => {
  Object.assign(config.circuit, settingsBefore);
  await delivery.stop();
  await Promise.all([primary.stop(), backup.stop()]);
});

afterEach(() => {
  primary.reset();
  backup.reset();
  Object.assign(config.circuit, settingsBefore);
});

const sends = (fake: fakeSendgrid.FakeSendgrid) => fake.requests.filter((r) => r.kind === "send").length;

/** A tenant whose email channel sends through `primary`, with `backup` as its one failover provider. */
async function tenantWithFailover(primarySettings: Record<string, unknown> = {}) {
  const t = await createTenant();
  const r = await call("POST", "/v1/channels", {
    key: t.secretKey,
    body: {
      channel: "email",
      provider: "sendgrid",
      credentials: { api_key: "SG.primary-key" },
      settings: { from_email: "hello@acme.test", base_url: primary.url, ...primarySettings },
      failover: [{ provider: "sendgrid", credentials: { api_key: "SG.backup-key" }, settings: { from_email: "hello@acme.test", base_url: backup.url } }],
    },
  });
  if (r.status !== 201) throw new Error(`setup: ${r.status} ${r.text}`);
  return { ...t, channelId: r.body.data.id as string };
}

async function send(key: string, to = "ana@example.com") {
  const r = await call("POST", "/v1/notifications", { key, body: { channel: "email", to, data: { subject: "Hi", content: "Hello" } } });
  expect(r.status).toBe(202);
  return r.body.data.id as string;
}

async function providers(key: string) {
  return (await call("GET", "/v1/channels/email", { key })).body.data.providers as { provider: string; role: string; circuit: string; failures: number; last_error: string | null; opened_at: string | null }[];
}

async function events(tenantId: string, type: string) {
  return await sql`select data from events where tenant_id = ${tenantId} and type = ${type} order by created_at`;
}

describe("failover", () => {
  test("the primary answers 500: the same notification goes out through the backup at once (attempt 2, no back-off)", async () => {
    const t = await tenantWithFailover();
    primary.script({ kind: "server_error", status: 500 });
    const id = await send(t.secretKey);
    // TIME_SCALE is 1: a back-off would wait 30 s, longer than this wait
    const row = await waitForStatus(id, ["sent", "failed"], 25_000);
    expect(row!.status).toBe("sent");
    expect(sends(primary)).toBe(1);
    expect(sends(backup)).toBe(1);
    const attempts = await attemptsOf(id);
    expect(attempts.map((a) => [a.attempt_number, a.status, a.provider])).toEqual([
      [1, "failure", "sendgrid"],
      [2, "success", "sendgrid"],
    ]);
    const p = await providers(t.secretKey);
    expect(p.map((x) => [x.role, x.circuit, x.failures])).toEqual([
      ["primary", "closed", 1],
      ["failover", "closed", 0],
    ]);
    expect(p[0]!.last_error).toContain("500");
  });

  test("the primary times out: the backup sends it", async () => {
    const t = await tenantWithFailover({ timeout_ms: 300 });
    primary.script({ kind: "hang", ms: 3000 });
    const id = await send(t.secretKey);
    const row = await waitForStatus(id, ["sent", "failed"], 15_000);
    expect(row!.status).toBe("sent");
    expect(sends(backup)).toBe(1);
    const attempts = await attemptsOf(id);
    expect(attempts[0]!.error.code).toBe("timeout");
    expect(attempts.length).toBe(2);
  });

  test("5 failures in a row open the circuit: the event, then the next sends skip the primary (no call at all)", async () => {
    const t = await tenantWithFailover();
    primary.always({ kind: "server_error", status: 503 });
    for (let i = 0; i < 5; i++) expect((await waitForStatus(await send(t.secretKey), ["sent", "failed"], 15_000))!.status).toBe("sent");
    expect(sends(primary)).toBe(5);
    const p = await providers(t.secretKey);
    expect(p[0]!.circuit).toBe("open");
    expect(p[0]!.failures).toBe(5);
    expect(p[0]!.opened_at).not.toBeNull();
    const opened = await events(t.tenant.id, "channel.provider.circuit_opened");
    expect(opened.length).toBe(1);
    expect(opened[0]!.data).toMatchObject({ channel: "email", provider: "sendgrid", role: "primary", circuit: "open", failures: 5 });
    expect(JSON.stringify(opened[0]!.data)).not.toContain("SG.primary-key");

    const id = await send(t.secretKey);
    expect((await waitForStatus(id, ["sent", "failed"], 15_000))!.status).toBe("sent");
    expect(sends(primary)).toBe(5); // not called
    const attempts = await attemptsOf(id);
    expect(attempts.map((a) => [a.attempt_number, a.status])).toEqual([[1, "success"]]);
  });

  test("after the cool-down one probe half-opens the circuit; its success closes it (event circuit_closed)", async () => {
    const t = await tenantWithFailover();
    primary.always({ kind: "server_error", status: 500 });
    for (let i = 0; i < 5; i++) await waitForStatus(await send(t.secretKey), ["sent", "failed"], 15_000);
    expect((await providers(t.secretKey))[0]!.circuit).toBe("open");
    primary.always(undefined); // the primary is back
    // within the cool-down: still the backup
    await waitForStatus(await send(t.secretKey), ["sent"], 15_000);
    expect(sends(primary)).toBe(5);
    // the 30 s cool-down has passed (moved back on the circuit rather than waited out)
    const circuitKey = redisKeys.circuit(t.tenant.id, "production", "email", t.channelId);
    await redis.hset(circuitKey, "opened_at", String(Date.now() - config.circuit.cooldownMs - 1000));
    const id = await send(t.secretKey);
    expect((await waitForStatus(id, ["sent", "failed"], 15_000))!.status).toBe("sent");
    expect(sends(primary)).toBe(6); // the probe
    const p = await providers(t.secretKey);
    expect(p[0]!.circuit).toBe("closed");
    expect(p[0]!.failures).toBe(0);
    const closed = await events(t.tenant.id, "channel.provider.circuit_closed");
    expect(closed.length).toBe(1);
    expect(closed[0]!.data).toMatchObject({ provider: "sendgrid", role: "primary", circuit: "closed" });
    // closed again: the primary takes the next one
    await waitForStatus(await send(t.secretKey), ["sent"], 15_000);
    expect(sends(primary)).toBe(7);
  });

  test("two sender processes share one circuit: 4 failures recorded by another process + 1 here open it", async () => {
    const t = await tenantWithFailover();
    const child = Bun.spawn(["node_modules/.bin/bun", "test/support/circuit-worker.ts"], {
      cwd: ROOT,
      env: { ...process.env, CW_TENANT: t.tenant.id, CW_CHANNEL: "email", CW_ENTRY: t.channelId, CW_PROVIDER: "sendgrid", CW_FAILURES: "4" },
      stdout: "pipe",
      stderr: "inherit",
    });
    expect(await child.exited).toBe(0);
    expect(await new Response(child.stdout).text()).toContain("done");
    expect((await providers(t.secretKey))[0]!).toMatchObject({ circuit: "closed", failures: 4 });
    primary.script({ kind: "server_error", status: 500 });
    await waitForStatus(await send(t.secretKey), ["sent"], 15_000);
    expect((await providers(t.secretKey))[0]!.circuit).toBe("open");
    await waitForStatus(await send(t.secretKey), ["sent"], 15_000);
    expect(sends(primary)).toBe(1);
  });

  test("a caller-fault 4xx (a refused address) fails the notification without retry and never opens the circuit", async () => {
    const t = await tenantWithFailover();
    primary.always({ kind: "error", status: 400, message: "Does not contain a valid address." });
    for (let i = 0; i < 6; i++) expect((await waitForStatus(await send(t.secretKey), ["sent", "failed"], 15_000))!.status).toBe("failed");
    expect(sends(primary)).toBe(6);
    expect(sends(backup)).toBe(0);
    const p = await providers(t.secretKey);
    expect(p[0]!).toMatchObject({ circuit: "closed", failures: 0 });
    expect((await events(t.tenant.id, "channel.provider.circuit_opened")).length).toBe(0);
  });
});
