// The relay puts a message on the dispatcher's stream before its transaction commits (store/webhooks.ts
// takeOutbox), so a dispatcher can record the attempt first: its marker must still go, never stay behind.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { sql } from "../../store/db";
import { takeOutbox } from "../../store/webhooks";
import { writeAttemptRecords, type AttemptRecord } from "../../store/webhook-deliveries";
import { createTenant } from "../support/fixtures";
import { cleanupTenants, createLocalWebhook, emit } from "./webhook-support";

let T: Awaited<ReturnType<typeof createTenant>>;
let webhookId = "";

beforeAll(async () => {
  T = await createTenant();
  webhookId = (await createLocalWebhook(T.secretKey, "http://127.0.0.1:9/hook", ["notification.sent"])).id;
});

afterAll(async () => {
  await cleanupTenants([T.tenant.id]);
});

const markers = async (eventId: string) =>
  (await sql<{ attempt: number }[]>`select attempt from webhook_due where webhook_id = ${webhookId} and event_id = ${eventId} order by attempt`).map((r) => r.attempt);

function record(eventId: string, status: "success" | "failed", nextRetryAt: Date | null): AttemptRecord {
  return {
    id: crypto.randomUUID(),
    webhookId,
    tenantId: T.tenant.id,
    eventId,
    eventType: "notification.sent",
    attempt: 1,
    kind: "auto",
    status,
    responseStatus: status === "success" ? 200 : 500,
    responseBody: null,
    durationMs: 3,
    error: null,
    nextRetryAt,
  };
}

/**
 * Relays the event's outbox row; while the relay's transaction is still open (its message published, its
 * marker not committed), a dispatcher records attempt 1. Resolves once both have committed.
 */
async function recordBeforeRelayCommits(eventId: string, rec: AttemptRecord) {
  let recording: Promise<unknown> | null = null;
  await takeOutbox(1000, async (rows) => {
    expect(rows.some((r) => r.event_id === eventId)).toBe(true);
    recording = sql.begin((tx) => writeAttemptRecords(tx, [rec], { afterMs: 86_400_000, reason: "test" }));
    // the dispatcher's transaction gets every chance to finish before the relay's COMMIT
    await Bun.sleep(300);
  });
  await recording;
}

test("attempt 1 recorded before the relay committed its marker: the marker does not stay behind", async () => {
  const [eventId] = await emit(T.tenant.id, "production", "notification.sent", 1);
  await recordBeforeRelayCommits(eventId!, record(eventId!, "success", null));
  expect(await markers(eventId!)).toEqual([]);
  const [d] = await sql`select attempt, status from webhook_deliveries where webhook_id = ${webhookId} and event_id = ${eventId!}`;
  expect(d).toMatchObject({ attempt: 1, status: "success" });
});

test("a failed attempt 1 recorded before the relay committed: only the retry's marker (attempt 2) remains", async () => {
  const [eventId] = await emit(T.tenant.id, "production", "notification.sent", 1);
  await recordBeforeRelayCommits(eventId!, record(eventId!, "failed", new Date(Date.now() + 60_000)));
  expect(await markers(eventId!)).toEqual([2]);
});
