// The micro-batcher's group commit and its "retry each row alone" option: a failed batch of several
// items is re-run item by item, each caller gets its own result or error, and nothing else is retried.
import { expect, test } from "bun:test";
import { MicroBatcher } from "../../store/micro-batcher";

/** A writer that refuses any batch holding "bad", and records every batch it was given. */
function writer() {
  const batches: string[][] = [];
  const run = async (items: string[]) => {
    batches.push([...items]);
    if (items.includes("bad")) throw new Error(`refused ${items.join(",")}`);
    return items.map((i) => i.toUpperCase());
  };
  return { batches, run };
}

const settle = (p: Promise<string>) => p.then((value) => ({ value }), (err: Error) => ({ error: err.message }));

test("with retryEachAlone, one bad row fails only its own caller; its neighbours are written alone", async () => {
  const w = writer();
  const b = new MicroBatcher(w.run, { maxSize: 10, maxWaitMs: 5, maxConcurrent: 1, retryEachAlone: true, name: "test" });
  const out = await Promise.all(["a", "bad", "c"].map((i) => settle(b.submit(i))));
  expect(out).toEqual([{ value: "A" }, { error: "refused bad" }, { value: "C" }]);
  expect(w.batches).toEqual([["a", "bad", "c"], ["a"], ["bad"], ["c"]]);
});

test("without it, every item of a failed batch gets the batch's error and nothing is retried", async () => {
  const w = writer();
  const b = new MicroBatcher(w.run, { maxSize: 10, maxWaitMs: 5, maxConcurrent: 1 });
  const out = await Promise.all(["a", "bad", "c"].map((i) => settle(b.submit(i))));
  expect(out).toEqual([{ error: "refused a,bad,c" }, { error: "refused a,bad,c" }, { error: "refused a,bad,c" }]);
  expect(w.batches).toHaveLength(1);
});

test("a failed batch of one item is not run a second time", async () => {
  const w = writer();
  const b = new MicroBatcher(w.run, { maxSize: 10, maxWaitMs: 1, maxConcurrent: 1, retryEachAlone: true });
  expect(await settle(b.submit("bad"))).toEqual({ error: "refused bad" });
  expect(w.batches).toEqual([["bad"]]);
});

test("concurrent submits share one batch, and each gets the result at its own index", async () => {
  const w = writer();
  const b = new MicroBatcher(w.run, { maxSize: 3, maxWaitMs: 50, maxConcurrent: 1, retryEachAlone: true });
  expect(await Promise.all(["x", "y", "z"].map((i) => b.submit(i)))).toEqual(["X", "Y", "Z"]);
  expect(w.batches).toEqual([["x", "y", "z"]]);
});

test("under steady traffic a batch waits busyWaitMs for company; the first item after a quiet spell waits maxWaitMs", async () => {
  const w = writer();
  // maxWaitMs 1 vs busyWaitMs 3 s: which wait applied shows in how the items are grouped
  const b = new MicroBatcher(w.run, { maxSize: 10, maxWaitMs: 1, busyWaitMs: 3000, busyWindowMs: 60_000, maxConcurrent: 1 });
  expect(await b.submit("first")).toBe("FIRST"); // nothing ran before it: it went after 1 ms
  await Bun.sleep(5); // that batch has finished (a finishing batch takes what queued meanwhile at once)
  // the previous batch is recent: this batch waits (up to 3 s) and takes the item sent 50 ms later too
  const second = b.submit("second");
  await Bun.sleep(50);
  const third = b.submit("third");
  expect(await Promise.all([second, third])).toEqual(["SECOND", "THIRD"]);
  expect(w.batches).toEqual([["first"], ["second", "third"]]);
  // with a busy window already over, the first item goes alone after maxWaitMs again
  const quiet = new MicroBatcher(w.run, { maxSize: 10, maxWaitMs: 1, busyWaitMs: 3000, busyWindowMs: 0, maxConcurrent: 1 });
  await quiet.submit("a");
  await Bun.sleep(5);
  const started = performance.now();
  await quiet.submit("b");
  expect(performance.now() - started).toBeLessThan(2500); // not the 3 s busy wait
});

test("a batcher fed by another batcher's results needs no wait of its own: one batch's callers arrive together", async () => {
  // the accept path (subscriber look-up, then the insert) and a send (claim, then the suppression check):
  // only the first step waits for company; the second goes after 1 ms and still gets the whole cohort
  const first = writer();
  const second = writer();
  let busy = 500;
  const lookUp = new MicroBatcher(first.run, { maxSize: 10, maxWaitMs: 1, busyWaitMs: () => busy, busyWindowMs: 60_000, maxConcurrent: 1 });
  const insert = new MicroBatcher(second.run, { maxSize: 10, maxWaitMs: 1, maxConcurrent: 1 });
  const accept = async (item: string) => insert.submit((await lookUp.submit(item)).toLowerCase());
  await accept("prime"); // a recent batch: the next one waits busyWaitMs (read when it opens)
  const spread: Promise<string>[] = [];
  for (const item of ["a", "b", "c", "d"]) {
    spread.push(accept(item));
    await Bun.sleep(20); // arrivals 20 ms apart, far longer than the insert's own 1 ms wait
  }
  expect(await Promise.all(spread)).toEqual(["A", "B", "C", "D"]);
  expect(first.batches).toEqual([["prime"], ["a", "b", "c", "d"]]);
  expect(second.batches).toEqual([["prime"], ["a", "b", "c", "d"]]);
  // the wait is read at each new batch: a setting changed at run time applies to the next one
  busy = 1;
  const late: Promise<string>[] = [];
  for (const item of ["e", "f"]) {
    late.push(accept(item));
    await Bun.sleep(40);
  }
  await Promise.all(late);
  expect(second.batches.slice(2)).toEqual([["e"], ["f"]]);
});

test("startAt: a batch waiting out a long busy wait goes once that many items wait, and still takes up to maxSize", async () => {
  const w = writer();
  // busyWaitMs 3 s: only startAt can start the second batch before that
  const b = new MicroBatcher(w.run, { maxSize: 10, maxWaitMs: 1, busyWaitMs: 3000, busyWindowMs: 60_000, maxConcurrent: 1, startAt: () => 3 });
  expect(await b.submit("prime")).toBe("PRIME");
  await Bun.sleep(5);
  const started = performance.now();
  const cohort = ["a", "b"].map((i) => b.submit(i));
  await Bun.sleep(30);
  expect(w.batches).toHaveLength(1); // two of three: still waiting for company
  cohort.push(b.submit("c"));
  expect(await Promise.all(cohort)).toEqual(["A", "B", "C"]);
  expect(performance.now() - started).toBeLessThan(2500); // the third item started it, not the 3 s wait
  expect(w.batches).toEqual([["prime"], ["a", "b", "c"]]);
  // the batch starts in the very submit that reaches startAt; what comes after waits for it and goes next, together
  const whole = new MicroBatcher(w.run, { maxSize: 4, maxWaitMs: 1, busyWaitMs: 3000, busyWindowMs: 60_000, maxConcurrent: 1, startAt: 2 });
  await whole.submit("p");
  await Bun.sleep(5);
  // four in one turn: the second starts a batch of two; the other two wait for it (maxConcurrent 1), then go at once
  const four = ["w", "x", "y", "z"].map((i) => whole.submit(i));
  expect(await Promise.all(four)).toEqual(["W", "X", "Y", "Z"]);
  expect(w.batches.slice(2)).toEqual([["p"], ["w", "x"], ["y", "z"]]);
});
