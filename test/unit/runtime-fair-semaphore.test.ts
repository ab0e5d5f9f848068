// The host's fair slots (runtime/fair-semaphore.ts), its in-flight room (Capacity) and the background
// Loop (runtime/loop.ts): pure code, no Redis. Shares, busy threshold, hand-over, shedding, resuming; loops.
import { describe, expect, test } from "bun:test";
import { FairSemaphore, UNLIMITED } from "../../runtime/fair-semaphore";
import { Capacity } from "../../runtime/host-state";
import { Loop } from "../../runtime/loop";
import { deferDelayMs } from "../../runtime/mailboxes";

const share = (s: number, busy: number) => ({ share: s, busyThreshold: busy });

describe("FairSemaphore", () => {
  test("a lone group takes every slot below the busy threshold, then only its share", () => {
    const s = new FairSemaphore(10);
    const p = share(3, 8);
    let taken = 0;
    while (s.tryAcquire("a", p)) taken++;
    expect(taken).toBe(8); // work-conserving up to the threshold, the last 2 slots stay for others
    expect(s.tryAcquire("b", p)).toBe(true); // b is under its share
    expect(s.tryAcquire("b", p)).toBe(true);
    expect(s.running).toBe(10);
    expect(s.tryAcquire("c", p)).toBe(false); // no slot left at all
  });

  test("a freed slot goes to the eligible group running the fewest, oldest waiter first", async () => {
    const s = new FairSemaphore(2);
    expect(s.tryAcquire("a")).toBe(true);
    expect(s.tryAcquire("a")).toBe(true);
    const order: string[] = [];
    const a3 = s.acquire("a").then(() => order.push("a3"));
    const b1 = s.acquire("b").then(() => order.push("b1"));
    const b2 = s.acquire("b").then(() => order.push("b2"));
    expect(s.waiting).toBe(3);
    s.release("a"); // a runs 1, b runs 0: b goes first although a waited longer
    await b1;
    expect(order).toEqual(["b1"]);
    s.release("a"); // a 0, b 1: a's waiter
    await a3;
    s.release("b");
    await b2;
    expect(order).toEqual(["b1", "a3", "b2"]);
    expect(s.running).toBe(2);
  });

  test("a group at its share waits while the host is busy even when slots are free, and runs once it is not", async () => {
    const s = new FairSemaphore(4);
    const p = share(1, 2);
    expect(s.tryAcquire("x", UNLIMITED)).toBe(true);
    expect(s.tryAcquire("a", p)).toBe(true); // running 2 = busy
    let granted = false;
    const w = s.acquire("a", p).then((ok) => (granted = ok));
    await Promise.resolve();
    expect(granted).toBe(false);
    expect(s.waitingOf("a")).toBe(1);
    s.release("x"); // running 1 < busy threshold: a may exceed its share again
    await w;
    expect(granted).toBe(true);
    expect(s.runningOf("a")).toBe(2);
  });

  test("shed gives up the newest waits of groups at their share (keeping `keep`), never of groups under it", async () => {
    const s = new FairSemaphore(2);
    const p = share(1, 1);
    expect(s.tryAcquire("a", p)).toBe(true);
    expect(s.tryAcquire("b", p)).toBe(true);
    const results: boolean[] = [];
    const waits = [1, 2, 3, 4].map((i) => s.acquire("a", p).then((ok) => (results[i] = ok)));
    const c = s.acquire("c", p); // under its share: never shed
    expect(s.shed(10, () => 1)).toBe(3);
    await Promise.all(waits.slice(1));
    expect(results.slice(2)).toEqual([false, false, false]);
    expect(s.waitingOf("a")).toBe(1);
    expect(s.waitingOf("c")).toBe(1);
    s.release("b");
    expect(await c).toBe(true); // c (running 0) before a (running 1)
    s.release("a");
    expect(await waits[0]).toBe(true);
  });

  test("shed leaves a group that is busy rather than stuck: its queue may be old, but its slots keep coming free", async () => {
    const s = new FairSemaphore(2);
    const p = share(2, 2);
    expect(s.tryAcquire("a", p)).toBe(true);
    expect(s.tryAcquire("a", p)).toBe(true);
    void s.acquire("a", p);
    const w2 = s.acquire("a", p);
    expect(s.shed(10, () => 0, 60_000)).toBe(0); // nothing has waited a minute
    await Bun.sleep(40);
    s.release("a"); // the first waiter gets the slot; the second has waited 40 ms
    expect(s.shed(10, () => 0, 20)).toBe(0); // a slot came free just now: busy, not stuck
    await Bun.sleep(40);
    expect(s.shed(10, () => 0, 20)).toBe(1); // no release for 40 ms: stuck
    expect(await w2).toBe(false);
  });

  test("stuckWaiting counts the waiters of stuck groups only: not a busy group's, not a group's under its share", async () => {
    const s = new FairSemaphore(10);
    const p = share(1, 1);
    expect(s.tryAcquire("stuck", p)).toBe(true);
    void s.acquire("stuck", p);
    void s.acquire("stuck", p);
    expect(s.tryAcquire("busy", p)).toBe(true);
    void s.acquire("busy", p);
    void s.acquire("under", share(5, 100)); // gets a slot at once: never waits
    expect(s.stuckWaiting(20)).toBe(0); // nobody has waited 20 ms yet
    await Bun.sleep(40);
    s.release("busy"); // its waiter takes the slot; the busy group just freed one
    void s.acquire("busy", p);
    expect(s.stuckWaiting(20)).toBe(2); // only the two waiters of "stuck"
    expect(s.stuckWaiting(60_000)).toBe(0);
  });

  test("release without a slot is a bug and says so", () => {
    expect(() => new FairSemaphore(1).release("nobody")).toThrow(/without a slot/);
  });
});

describe("Capacity", () => {
  async function waiting(c: Capacity) {
    let resumed = false;
    void c.wait().then(() => (resumed = true));
    await Promise.resolve();
    return () => resumed;
  }

  test("waiting readers resume at half of maxInFlight", async () => {
    const c = new Capacity(100, 10);
    c.add(100);
    const resumed = await waiting(c);
    c.done(49);
    await Promise.resolve();
    expect(resumed()).toBe(false);
    c.done(1);
    await Promise.resolve();
    expect(resumed()).toBe(true);
  });

  test("messages pinned in stuck groups do not count against the resume point, which stays a batch below the maximum", async () => {
    const c = new Capacity(100, 10);
    c.add(100);
    const resumed = await waiting(c);
    c.setPinned(70); // 70 can never start: half of the other 30 is not the point, a batch of room is
    c.done(9);
    await Promise.resolve();
    expect(resumed()).toBe(false);
    c.done(1);
    await Promise.resolve();
    expect(resumed()).toBe(true);
    c.add(10);
    const again = await waiting(c);
    c.setPinned(0); // the group answered again: back to half
    c.done(30);
    await Promise.resolve();
    expect(again()).toBe(false);
    c.setPinned(25); // the watchdog's count alone can free the readers
    await Promise.resolve();
    expect(again()).toBe(true);
  });

  test("pinnedFull: readers wait and the stuck groups' messages alone exceed the resume point (only deferral can free them)", async () => {
    const c = new Capacity(100, 10);
    c.add(100);
    expect(c.pinnedFull).toBe(false); // no reader waits
    await waiting(c);
    c.setPinned(90);
    expect(c.pinnedFull).toBe(false); // the other 10 finishing wakes the readers
    c.setPinned(91);
    expect(c.pinnedFull).toBe(true);
  });

  test("reads reserve their room: reservations at once never pass maxInFlight, and what a read did not fill is given back", async () => {
    const c = new Capacity(100, 10);
    expect([c.reserve(40), c.reserve(40), c.reserve(40), c.reserve(40)]).toEqual([40, 40, 20, 0]);
    expect(c.room(10)).toBe(0);
    const resumed = await waiting(c);
    // the first read came back with 5 entries: 5 in flight and 60 still reserved, above the resume point (50)
    c.add(5);
    c.release(40);
    await Promise.resolve();
    expect(resumed()).toBe(false);
    // the second came back empty: 5 + 20, readers resume
    c.release(40);
    await Promise.resolve();
    expect(resumed()).toBe(true);
    expect(c.reserve(100)).toBe(75);
  });

  test("with a batch of half the maximum or more, pinned messages change nothing", async () => {
    const c = new Capacity(6, 10);
    c.add(6);
    const resumed = await waiting(c);
    c.setPinned(5);
    c.done(2);
    await Promise.resolve();
    expect(resumed()).toBe(false);
    c.done(1);
    await Promise.resolve();
    expect(resumed()).toBe(true);
  });
});

describe("deferDelayMs", () => {
  test("1 s doubling per deferral, capped at 30 s, within ±25%", () => {
    expect(deferDelayMs(1, () => 0.5)).toBe(1000);
    expect(deferDelayMs(3, () => 0.5)).toBe(4000);
    expect(deferDelayMs(10, () => 0.5)).toBe(30_000);
    expect(deferDelayMs(1, () => 0)).toBe(750);
    expect(deferDelayMs(1, () => 1)).toBe(1250);
  });
});

function captureLog() {
  const lines: { level: string; obj: any; msg?: string }[] = [];
  const at = (level: string) => (obj: unknown, msg?: string) => void lines.push({ level, obj, msg });
  return { lines, log: { info: at("info"), warn: at("warn"), error: at("error"), debug: at("debug") } };
}

describe("Loop", () => {
  test("a run that throws or rejects is logged and counted, and the loop keeps its cadence", async () => {
    const { lines, log } = captureLog();
    let runs = 0;
    const loop = new Loop({ name: "flaky", everyMs: 5, log }, async () => {
      runs++;
      if (runs === 1) throw new Error("boom");
      if (runs === 2) return Promise.reject(new Error("rejected"));
    }).start();
    while (runs < 5) await Bun.sleep(5);
    await loop.stop();
    expect(loop.failures).toBe(2);
    expect(lines.filter((l) => l.level === "error").map((l) => l.obj.err.message)).toEqual(["boom", "rejected"]);
    expect(lines[0]!.obj.loop).toBe("flaky");
  });

  test("a run that never settles is logged at its deadline and the next run starts anyway", async () => {
    const { lines, log } = captureLog();
    let runs = 0;
    const loop = new Loop({ name: "hangs once", everyMs: 5, runDeadlineMs: 30, log }, () => {
      runs++;
      return runs === 1 ? new Promise(() => {}) : Promise.resolve();
    }).start();
    while (runs < 3) await Bun.sleep(5);
    await loop.stop();
    expect(loop.failures).toBe(1);
    expect(lines.some((l) => l.level === "error" && /did not settle/.test(l.msg ?? ""))).toBe(true);
  });

  test("a run that reports more work is followed at once; overdue() tells a loop that stopped running", async () => {
    const { log } = captureLog();
    let runs = 0;
    const loop = new Loop({ name: "batches", everyMs: 10_000, log }, async () => ++runs < 4).start();
    while (runs < 4) await Bun.sleep(2);
    expect(runs).toBe(4); // three "more" answers chained without the 10 s pause
    expect(loop.overdue(performance.now())).toBe(false);
    expect(loop.overdue(performance.now() + 10_000 * 6 + 2000)).toBe(true);
    await loop.stop();
  });
});
