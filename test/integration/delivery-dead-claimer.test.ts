// A notification whose attempt was claimed by a sender process of this machine that is gone
// (claimed_by, migration 0750) is recorded as lost and retried at once, not after STALE_CLAIM_MS;
// a claimer that may be alive keeps its claim until it goes stale (domain/delivery/lost-attempts.ts).
import { afterAll, expect, test } from "bun:test";
import { hostname } from "node:os";
import { readlinkSync } from "node:fs";
import { config } from "../../config";
import { sql } from "../../store/db";
import { call, createTenant } from "../support/fixtures";
import { connect, deletePrefix, sleep, waitFor } from "../support/runtime-redis";
import { startDeliveryHost, waitForEnqueued } from "./delivery-support";

const ns = /\[(\d+)\]/.exec(readlinkSync("/proc/self/ns/pid"))![1];
let stopHost: (() => Promise<void>) | null = null;
const sleepers: ReturnType<typeof Bun.spawn>[] = [];
afterAll(async () => {
  await stopHost?.();
  for (const s of sleepers) s.kill("SIGKILL");
  await Promise.all(sleepers.map((s) => s.exited));
  const r = connect();
  await deletePrefix(r, config.redisPrefix);
  await r.quit();
});

async function claimedNotification(key: string, claimer: string): Promise<string> {
  const r = await call("POST", "/v1/notifications", { key, body: { channel: "sms", to: "+5511912340077", data: { content: "x" } } });
  expect(r.status).toBe(202);
  expect(await waitForEnqueued(r.body.data.id)).toBe(true);
  // as a sender leaves it when killed between its claim and the provider's answer
  await sql`update notifications set attempt_count = 1, claimed_at = now(), claimed_by = ${claimer} where id = ${r.body.data.id}`;
  return r.body.data.id;
}

const lostAttempt = async (id: string) =>
  (await sql`select status, error->>'code' as error_code from notification_attempts where notification_id = ${id} and attempt_number = 1`)[0] as { status: string; error_code: string } | undefined;

test("a claim by a dead process of this machine is recorded lost at once; a claim by a live one is left alone", async () => {
  const t = await createTenant();
  const gone = Bun.spawn(["true"]);
  await gone.exited;
  const alive = Bun.spawn(["sleep", "60"]);
  sleepers.push(alive);
  const deadId = await claimedNotification(t.sandboxKey, `${hostname()}-${gone.pid}-abc123@${ns}`);
  const liveId = await claimedNotification(t.sandboxKey, `${hostname()}-${alive.pid}-abc123@${ns}`);

  const delivery = await startDeliveryHost();
  stopHost = () => delivery.stop();
  // STALE_CLAIM_MS is 30 s: within a few seconds only the proven-dead claim can be settled
  expect(await waitFor(() => lostAttempt(deadId), 8_000)).toBeTruthy();
  expect((await lostAttempt(deadId))!.status).toBe("failure");
  expect((await lostAttempt(deadId))!.error_code).toBe("outcome_unknown");
  await sleep(500);
  expect(await lostAttempt(liveId)).toBeUndefined();
  const [live] = await sql`select status, attempt_count from notifications where id = ${liveId}`;
  expect(live).toEqual({ status: "pending", attempt_count: 1 });
});
