// The sends of one claim batch stay together through the suppression check and the provider call, so
// one outcome statement records them all: only a send's first batched statement needs to wait for company.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { config } from "../../config";
import { senderMessage } from "../../domain/delivery/channel-sender-mail";
import { sendAttempt } from "../../domain/delivery/send-attempt";
import { sql } from "../../store/db";
import { call, createTenant } from "../support/fixtures";
import { connect, deletePrefix } from "../support/runtime-redis";
import { deleteTenants } from "../support/tenant-cleanup";
import { expectNoLiveSender } from "./delivery-support";

let T: Awaited<ReturnType<typeof createTenant>>;
const ctx = () => ({ deliveries: 1, async schedule() { return Date.now(); } });
const saved = { claim: config.deliveryBatchBusyWaitMs, outcome: config.outcomeBatchBusyWaitMs };

beforeAll(async () => {
  await expectNoLiveSender(); // this file is the only consumer of its messages
  T = await createTenant();
});

afterAll(async () => {
  config.deliveryBatchBusyWaitMs = saved.claim;
  config.outcomeBatchBusyWaitMs = saved.outcome;
  await deleteTenants([T.tenant.id]);
  const r = connect();
  await deletePrefix(r, config.redisPrefix);
  await r.quit();
});

async function accept(to: string): Promise<string> {
  const r = await call("POST", "/v1/notifications", { key: T.sandboxKey, body: { channel: "sms", to, data: { content: "cohort" } } });
  expect(r.status).toBe(202);
  return r.body.data.id as string;
}

const message = (id: string) => senderMessage({ id, tenantId: T.tenant.id, environment: "sandbox", channel: "sms" }, 1);

test("six sends claimed in one batch are recorded by one outcome statement, though the outcome batch does not wait", async () => {
  // no busy waits: the six sends start in one turn and share a claim batch; the outcome batch goes after its
  // own 2 ms, so it gets all six only if they reach it together
  config.outcomeBatchBusyWaitMs = 0;
  config.deliveryBatchBusyWaitMs = 0;
  const warm = await accept("+5511977770000"); // the channel's target, limits and settings cached
  await sendAttempt(message(warm), ctx());
  const ids: string[] = [];
  for (let i = 1; i <= 6; i++) ids.push(await accept(`+551197777000${i}`));
  await Promise.all(ids.map((id) => sendAttempt(message(id), ctx())));
  const rows = await sql<{ notification_id: string; tx: string }[]>`
    select notification_id, xmin::text as tx from notification_attempts where notification_id = any(${ids}::uuid[])`;
  expect(rows.map((r) => r.notification_id).sort()).toEqual([...ids].sort());
  // one transaction wrote every attempt row: the claim batch's cohort reached the outcome batch together
  expect(new Set(rows.map((r) => r.tx)).size).toBe(1);
  const states = await sql<{ status: string }[]>`select status from notifications where id = any(${ids}::uuid[])`;
  expect(states.map((s) => s.status)).toEqual(Array(6).fill("delivered"));
});
