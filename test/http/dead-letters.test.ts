// /api/internal/dead-letters (admin token) over real dead letters: list newest first across actors
// with a cursor, show with the stack, redrive onto the partition of its key with a fresh delivery
// count (exactly once, even after an interrupted redrive), drop; errors as the standard body.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { compareEntryIds, partitionOf, type Runtime } from "../../runtime";
import { ADMIN_TOKEN, call } from "../support/fixtures";
import { deleteActorKeys, makeDeadLetters, recordingHost, testRuntime, waitFor } from "../support/dead-letters";

const suffix = Math.random().toString(36).slice(2, 8);
const A = `dl-api-a-${suffix}`;
const B = `dl-api-b-${suffix}`;
let runtime: Runtime;

beforeAll(async () => {
  runtime = testRuntime();
  await makeDeadLetters(runtime, A, [
    { key: "order-1", n: 1 },
    { key: "order-2", n: 2 },
    { key: "order-3", n: 3 },
  ]);
  await makeDeadLetters(runtime, B, [{ key: "user-9", n: 9 }]);
});
afterAll(async () => {
  await runtime.close();
  await deleteActorKeys([A, B]);
});

const byIdDescending = (a: string, b: string) => compareEntryIds(b, a);
const admin = (method: string, path: string) => call(method, path, { key: ADMIN_TOKEN });
const mine = (items: any[]) => items.filter((d) => d.actor === A || d.actor === B);

describe("GET /api/internal/dead-letters", () => {
  test("needs the admin token", async () => {
    for (const key of [undefined, "nk_not_admin"]) {
      const r = await call("GET", "/api/internal/dead-letters", key ? { key } : {});
      expect(r.status).toBe(401);
      expect(r.body.error.code).toBe("invalid_admin_token");
    }
  });

  test("one actor's dead letters, newest first, with what failed and why", async () => {
    const r = await admin("GET", `/api/internal/dead-letters?actor=${A}`);
    expect(r.status).toBe(200);
    expect(r.body.meta).toEqual({ limit: 50, next_cursor: null, totals: { [A]: 3 } });
    // the three keys are in different partitions, handled in parallel: dead-letter order is not send order
    expect(r.body.data.map((d: any) => d.message.n).sort()).toEqual([1, 2, 3]);
    const ids = r.body.data.map((d: any) => d.id);
    expect([...ids].sort(byIdDescending)).toEqual(ids);
    const third = r.body.data.find((d: any) => d.key === "order-3");
    expect(third).toEqual({
      id: expect.stringMatching(/^\d+-\d+$/),
      actor: A,
      partition: partitionOf("order-3", runtime.partitions),
      message_id: expect.stringMatching(/^\d+-\d+$/),
      key: "order-3",
      message: { key: "order-3", n: 3 },
      error: "cannot handle order-3#3",
      deliveries: 1,
      failed_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
  });

  test("every actor's, paged with a cursor: no item twice, none skipped", async () => {
    const seen: any[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const r = await admin("GET", `/api/internal/dead-letters?limit=1${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
      expect(r.status).toBe(200);
      expect(r.body.data.length).toBeLessThanOrEqual(1);
      expect(r.body.meta.totals[A]).toBe(3);
      seen.push(...r.body.data);
      cursor = r.body.meta.next_cursor;
      pages++;
    } while (cursor && pages < 500);
    const ours = mine(seen);
    expect(ours.map((d) => `${d.actor}:${d.message.n}`).sort()).toEqual([`${A}:1`, `${A}:2`, `${A}:3`, `${B}:9`]);
    expect(new Set(seen.map((d) => `${d.actor}/${d.id}`)).size).toBe(seen.length);
    // newest first over both actors
    const ids = ours.map((d) => d.id);
    expect([...ids].sort(byIdDescending)).toEqual(ids);
  });

  test("a bad actor name, cursor or limit is a 422 with details", async () => {
    for (const q of ["actor=no%20spaces", "cursor=garbage", "limit=0", "limit=501"]) {
      const r = await admin("GET", `/api/internal/dead-letters?${q}`);
      expect(r.status).toBe(422);
      expect(r.body.error.code).toBe("validation_failed");
      expect(Object.keys(r.body.error.details)).toHaveLength(1);
    }
  });
});

describe("GET /api/internal/dead-letters/:actor/:id", () => {
  test("shows one with its error stack; unknown ids are 404, malformed ones 422", async () => {
    const list = await admin("GET", `/api/internal/dead-letters?actor=${B}`);
    const id = list.body.data[0].id;
    const r = await admin("GET", `/api/internal/dead-letters/${B}/${id}`);
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ id, actor: B, key: "user-9", message: { key: "user-9", n: 9 }, error: "cannot handle user-9#9" });
    expect(r.body.data.stack).toContain("cannot handle user-9#9");
    const missing = await admin("GET", `/api/internal/dead-letters/${B}/1-0`);
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe("dead_letter_not_found");
    expect((await admin("GET", `/api/internal/dead-letters/${B}/not-an-id`)).status).toBe(422);
  });
});

describe("POST /api/internal/dead-letters/:actor/:id/redrive", () => {
  test("the message goes back to the partition of its key with a fresh delivery count; the dead letter is gone", async () => {
    const list = await admin("GET", `/api/internal/dead-letters?actor=${A}`);
    const target = list.body.data.find((d: any) => d.key === "order-2");
    const r = await admin("POST", `/api/internal/dead-letters/${A}/${target.id}/redrive`);
    expect(r.status).toBe(200);
    const p = partitionOf("order-2", runtime.partitions);
    expect(r.body.data).toEqual({ id: target.id, actor: A, partition: p, entry_id: expect.stringMatching(/^\d+-\d+$/) });
    expect(r.body.data.entry_id).not.toBe(target.message_id);
    // it sits in the partition stream, marked with the dead letter it came from
    const [entry] = await runtime.redis.xrange(runtime.keys.stream(A, p), r.body.data.entry_id, r.body.data.entry_id);
    expect(entry![1]).toEqual(["k", "order-2", "m", JSON.stringify({ key: "order-2", n: 2 }), "r", target.id]);
    expect((await admin("GET", `/api/internal/dead-letters/${A}/${target.id}`)).status).toBe(404);
    expect((await admin("POST", `/api/internal/dead-letters/${A}/${target.id}/redrive`)).status).toBe(404);

    // an actor that now succeeds runs it once, as a first delivery
    const host = await recordingHost(runtime, A);
    try {
      expect(await waitFor(() => host.seen.length >= 1, 10_000)).toBe(true);
      expect(host.seen).toEqual([{ msg: { key: "order-2", n: 2 }, deliveries: 1, messageId: r.body.data.entry_id }]);
    } finally {
      await host.stop();
    }
    const after = await admin("GET", `/api/internal/dead-letters?actor=${A}`);
    expect(after.body.meta.totals[A]).toBe(2);
  });

  test("an interrupted redrive (appended, not yet deleted) is completed without a second copy", async () => {
    const list = await admin("GET", `/api/internal/dead-letters?actor=${A}`);
    const target = list.body.data.find((d: any) => d.key === "order-1");
    const p = partitionOf("order-1", runtime.partitions);
    const stream = runtime.keys.stream(A, p);
    const lengthBefore = await runtime.redis.xlen(stream);
    // the first step of a redrive whose process died before deleting the dead letter
    const [appended] = await runtime.redis.nmsRuntime_redriveDeadLetter(stream, runtime.keys.redriven(A, p), target.id, "order-1", JSON.stringify(target.message), 60_000);
    const r = await admin("POST", `/api/internal/dead-letters/${A}/${target.id}/redrive`);
    expect(r.status).toBe(200);
    expect(r.body.data.entry_id).toBe(appended);
    expect(await runtime.redis.xlen(stream)).toBe(lengthBefore + 1);
    expect((await admin("GET", `/api/internal/dead-letters/${A}/${target.id}`)).status).toBe(404);
  });
});

describe("DELETE /api/internal/dead-letters/:actor/:id", () => {
  test("drops it without delivering it; a second drop is 404", async () => {
    const list = await admin("GET", `/api/internal/dead-letters?actor=${A}`);
    const target = list.body.data.find((d: any) => d.key === "order-3");
    const p = partitionOf("order-3", runtime.partitions);
    const lengthBefore = await runtime.redis.xlen(runtime.keys.stream(A, p));
    const r = await admin("DELETE", `/api/internal/dead-letters/${A}/${target.id}`);
    expect(r.status).toBe(204);
    expect(r.text).toBe("");
    expect(await runtime.redis.xlen(runtime.keys.stream(A, p))).toBe(lengthBefore);
    const again = await admin("DELETE", `/api/internal/dead-letters/${A}/${target.id}`);
    expect(again.status).toBe(404);
    expect(again.body.error.code).toBe("dead_letter_not_found");
    expect((await admin("GET", `/api/internal/dead-letters?actor=${A}`)).body.meta.totals[A]).toBe(0);
  });
});
