// Running what a host read: one serial mailbox per actor key, a fair share of the host's slots,
// a deadline per handler run, retries with back-off, dead letters, and deferral of shed messages.
import PQueue from "p-queue";
import type { Actor, ActorContext, RuntimeLogger, TimerOptions } from "./actor";
import { decodeFields, encodeTimerPayload } from "./codec";
import { UNLIMITED, type GroupPolicy } from "./fair-semaphore";
import { GROUP, runMarkOf } from "./keys";
import { retryDelayFor } from "./retry";
import type { AckBuffer } from "./acks";
import { errorOf, observe, type ActorRunner, type HostCore, type PartitionWorker } from "./host-state";

interface Delivery {
  id: string;
  msg: unknown;
  json: string;
  deliveries: number;
  /** the timer that produced this entry, when one did (deferrals count themselves in it) */
  timerId: string | undefined;
}

interface Mailbox {
  queue: PQueue;
  size: number;
}

/** A handler run in progress, watched for its deadline. */
interface Running {
  startedAt: number;
  deadlineMs: number;
  expire(): void;
}

/** stopped: the partition stopped before the handler started; it is left pending for the next owner. */
type RunOutcome = "ok" | "shed" | "stopped" | { err: unknown };

export class HandlerDeadlineError extends Error {
  constructor(readonly deadlineMs: number) {
    super(`handler did not settle within its deadline of ${deadlineMs} ms`);
    this.name = "HandlerDeadlineError";
  }
}

class HandlerContext implements ActorContext {
  private _log?: RuntimeLogger;
  private controller?: AbortController;
  constructor(
    private readonly core: HostCore,
    private readonly runner: ActorRunner,
    readonly key: string,
    readonly messageId: string,
    readonly deliveries: number,
    readonly partition: number,
  ) {}
  get timeScale(): number {
    return this.core.runtime.timeScale;
  }
  get hostId(): string {
    return this.core.id;
  }
  schedule<N>(timerId: string, delayMs: number, msg: N, opts?: TimerOptions) {
    return this.core.runtime.schedule(this.runner.actor as Actor<N>, timerId, delayMs, msg, opts);
  }
  cancel(timerId: string) {
    return this.core.runtime.cancel(this.runner.actor, timerId);
  }
  send<N>(actor: Actor<N>, msg: N) {
    return this.core.runtime.send(actor, msg);
  }
  // A child logger or an AbortController per message is costly; most handlers use neither.
  get log(): RuntimeLogger {
    if (!this._log) {
      const base = this.core.runtime.logger;
      const bindings = { actor: this.runner.actor.name, key: this.key, messageId: this.messageId, deliveries: this.deliveries };
      this._log = base.child ? base.child(bindings) : base;
    }
    return this._log;
  }
  get signal(): AbortSignal {
    this.controller ??= new AbortController();
    return this.controller.signal;
  }
  abort(reason: Error) {
    this.controller?.abort(reason);
  }
}

/** Timer ids of deferred messages: `defer:<n>:<entry id it was first read as>`. */
function deferralOf(timerId: string | undefined, id: string): { n: number; first: string } {
  const m = timerId ? /^defer:(\d+):(.+)$/.exec(timerId) : null;
  return m ? { n: Number(m[1]), first: m[2]! } : { n: 0, first: id };
}

/** Wait before a deferred message comes back: 1 s doubling per deferral, at most 30 s, ±25%. */
export function deferDelayMs(n: number, random: () => number = Math.random): number {
  return Math.round(Math.min(30_000, 1000 * 2 ** Math.max(0, n - 1)) * (0.75 + random() * 0.5));
}

export class Mailboxes {
  private readonly boxes = new Map<string, Mailbox>();
  private readonly running = new Set<Running>();

  constructor(
    private readonly core: HostCore,
    private readonly acks: AckBuffer,
  ) {}

  /**
   * Hands a read batch to the per-key mailboxes. The batch is grouped by key first, so a key gets
   * one p-queue task per batch (running its messages in stream order) rather than one per message.
   */
  dispatch(w: PartitionWorker, entries: ReadonlyArray<[string, string[]]>, deliveriesOf?: (i: number) => number): void {
    const runner = w.runner;
    const groups = new Map<string, Delivery[]>();
    for (let i = 0; i < entries.length; i++) {
      const [id, fields] = entries[i]!;
      const deliveries = deliveriesOf ? deliveriesOf(i) : 1;
      const decoded = decodeFields(fields);
      let msg: unknown;
      let key: string;
      try {
        msg = JSON.parse(decoded.json ?? "null");
        key = decoded.key ?? runner.actor.keyOf(msg);
      } catch (err) {
        // A message that cannot be read will never succeed: straight to the dead letters.
        this.core.capacity.add(1);
        w.inFlight++;
        void this.deadLetter(w, decoded.key ?? "", id, decoded.json ?? "", err, deliveries).finally(() => this.finished(w, 1));
        continue;
      }
      const delivery: Delivery = { id, msg, json: decoded.json!, deliveries, timerId: decoded.timerId };
      const group = groups.get(key);
      if (group) group.push(delivery);
      else groups.set(key, [delivery]);
    }
    for (const [key, deliveries] of groups) this.enqueue(w, key, deliveries);
  }

  private enqueue(w: PartitionWorker, key: string, deliveries: Delivery[]) {
    const count = deliveries.length;
    this.core.capacity.add(count);
    w.inFlight += count;
    const mailboxId = w.runner.actor.name + "\u0000" + key;
    let box = this.boxes.get(mailboxId);
    if (!box) {
      box = { queue: new PQueue({ concurrency: 1 }), size: 0 };
      this.boxes.set(mailboxId, box);
    }
    box.size++;
    const mailbox = box;
    const after = () => {
      // An idle key's queue is dropped so memory follows active keys, not all keys ever seen.
      if (--mailbox.size === 0 && this.boxes.get(mailboxId) === mailbox) this.boxes.delete(mailboxId);
      this.finished(w, count);
    };
    mailbox.queue.add(() => this.processInOrder(w, key, deliveries)).then(after, (err) => {
      this.core.log.error({ err, actor: w.runner.actor.name, key }, "mailbox task failed");
      after();
    });
  }

  private async processInOrder(w: PartitionWorker, key: string, deliveries: Delivery[]) {
    for (const d of deliveries) await this.process(w, key, d);
  }

  private finished(w: PartitionWorker, count: number) {
    w.inFlight -= count;
    if (w.inFlight === 0 && w.drainWaiters.length) {
      const waiters = w.drainWaiters;
      w.drainWaiters = [];
      for (const r of waiters) r();
    }
    this.core.capacity.done(count);
  }

  /** Resolves once the partition has nothing in flight. */
  drained(w: PartitionWorker): Promise<void> {
    if (w.inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => w.drainWaiters.push(resolve));
  }

  private async process(w: PartitionWorker, key: string, d: Delivery) {
    if (w.abandoned.has(key)) {
      w.unstarted.push([d.id, d.deliveries]);
      return;
    }
    const actor = w.runner.actor;
    let deliveries = d.deliveries;
    if (deliveries > actor.maxDeliveries) {
      // Hosts died while running it (e.g. it crashes the process): do not let it kill another one.
      await this.deadLetter(w, key, d.id, d.json, new Error(`delivered ${deliveries - 1} times without an ack (hosts died while handling it)`), deliveries - 1);
      return;
    }
    for (;;) {
      const outcome = await this.runHandler(w, key, d, deliveries);
      if (outcome === "ok") {
        this.acks.ack(w, d.id, deliveries > 1);
        return;
      }
      if (outcome === "shed") {
        await this.defer(w, key, d);
        return;
      }
      if (outcome === "stopped") {
        // Stopping drains what runs, never what waits: the drain stays bounded by the handler
        // deadline however much was read (start.ts exits after 30 s, cutting what still runs).
        w.abandoned.add(key);
        if (deliveries === d.deliveries) w.unstarted.push([d.id, deliveries]);
        return;
      }
      if (deliveries >= actor.maxDeliveries) {
        await this.deadLetter(w, key, d.id, d.json, outcome.err, deliveries);
        return;
      }
      this.core.log.warn({ actor: actor.name, key, messageId: d.id, deliveries, err: outcome.err }, "handler failed; will retry");
      // The failure count outlives this process, so a crash mid-retry does not reset it.
      const recorded = await this.untilDone(w, () => this.core.redis.hset(w.attempts, d.id, deliveries));
      const delay = (actor.retryDelayMs ? actor.retryDelayMs(deliveries) : retryDelayFor(deliveries)) * this.core.runtime.timeScale;
      if (!recorded || !(await this.pause(w, delay))) {
        // Stopping: leave it pending for the next owner, and keep this key's later messages behind it.
        w.abandoned.add(key);
        return;
      }
      deliveries++;
    }
  }

  private slotGroup(actor: Actor<any>, msg: unknown): { group: string; policy: GroupPolicy } {
    const fair = actor.fairness;
    if (!fair) return { group: actor.name, policy: UNLIMITED };
    return { group: actor.name + "\u0000" + fair.groupOf(msg), policy: { share: fair.share, busyThreshold: fair.busyThreshold } };
  }

  private async runHandler(w: PartitionWorker, key: string, d: Delivery, deliveries: number): Promise<RunOutcome> {
    const runner = w.runner;
    const actor = runner.actor;
    let slot: { group: string; policy: GroupPolicy };
    try {
      slot = this.slotGroup(actor, d.msg);
    } catch (err) {
      return { err };
    }
    if (w.stopping) return "stopped";
    const actorSemaphore = runner.semaphore;
    if (actorSemaphore && !actorSemaphore.tryAcquire()) await actorSemaphore.wait();
    let held = false;
    try {
      held = this.core.slots.tryAcquire(slot.group, slot.policy) || (await this.core.slots.acquire(slot.group, slot.policy));
      if (!held) return "shed";
      if (w.stopping) return "stopped";
      // A redelivered message's run is marked when it starts, once its slot is held: if its host dies
      // during the run, the next owner counts that death (claimPending); one that died waiting for its
      // turn or its slot is not charged (a takeover's claimed backlog queued behind one webhook's few
      // slots was charged a run per kill, and reached the dead letters after eight kills unrun).
      if (deliveries > 1 && !(await this.untilDone(w, () => this.core.redis.hset(w.attempts, runMarkOf(d.id), deliveries)))) return "stopped";
      return await this.runWithDeadline(w, key, d, deliveries);
    } finally {
      if (held) this.core.slots.release(slot.group);
      actorSemaphore?.release();
    }
  }

  /** Runs the handler; past its deadline it is left running (aborted through ctx.signal) and counted as failed. */
  private runWithDeadline(w: PartitionWorker, key: string, d: Delivery, deliveries: number): Promise<RunOutcome> {
    const actor = w.runner.actor;
    const ctx = new HandlerContext(this.core, w.runner, key, d.id, deliveries, w.p);
    const deadlineMs = actor.deadlineMs ?? this.core.opts.handlerDeadlineMs;
    return new Promise<RunOutcome>((resolve) => {
      let settled = false;
      const ran = (outcome: "ok" | "failed" | "deadline_missed") =>
        observe(this.core, "handlerRun", { actor: actor.name, partition: w.p, outcome, durationMs: performance.now() - record.startedAt, deliveries });
      const record: Running = {
        startedAt: performance.now(),
        deadlineMs,
        expire: () => {
          if (settled) return;
          settled = true;
          this.running.delete(record);
          this.core.counters.deadlineMisses++;
          ran("deadline_missed");
          const err = new HandlerDeadlineError(deadlineMs);
          ctx.abort(err);
          this.core.log.error(
            { actor: actor.name, key, messageId: d.id, deliveries, deadlineMs },
            "handler did not settle within its deadline; its key and slot are released and the message is retried",
          );
          resolve({ err });
        },
      };
      this.running.add(record);
      let run: Promise<void>;
      try {
        run = Promise.resolve(actor.handle(d.msg, ctx));
      } catch (err) {
        run = Promise.reject(err);
      }
      run.then(
        () => {
          if (settled) return this.core.log.warn({ actor: actor.name, key, messageId: d.id }, "a handler that missed its deadline finished later");
          settled = true;
          this.running.delete(record);
          ran("ok");
          resolve("ok");
        },
        (err) => {
          if (settled) return this.core.log.warn({ actor: actor.name, key, messageId: d.id, err }, "a handler that missed its deadline failed later");
          settled = true;
          this.running.delete(record);
          ran("failed");
          resolve({ err });
        },
      );
    });
  }

  /** Expires handler runs past their deadline (the maintenance loop calls it often). */
  expireOverdue(now = performance.now()): number {
    let expired = 0;
    for (const r of [...this.running]) {
      if (now - r.startedAt >= r.deadlineMs) {
        r.expire();
        expired++;
      }
    }
    return expired;
  }

  /** The shortest deadline of the host's actors: how often expireOverdue must run. */
  shortestDeadlineMs(): number {
    return Math.min(this.core.opts.handlerDeadlineMs, ...this.core.runners.map((r) => r.actor.deadlineMs ?? Infinity));
  }

  /** Acks a message that never ran and schedules it again as a timer, atomically (deferMessage-4.lua). */
  private async defer(w: PartitionWorker, key: string, d: Delivery) {
    const { n, first } = deferralOf(d.timerId, d.id);
    const timerId = `defer:${n + 1}:${first}`;
    const delay = deferDelayMs(n + 1);
    const ok = await this.untilDone(w, () =>
      this.core.redis.nmsRuntime_deferMessage(w.stream, w.timers, w.timerData, w.attempts, GROUP, d.id, timerId, delay, encodeTimerPayload(key, d.msg)),
    );
    if (!ok) {
      w.abandoned.add(key);
      return;
    }
    this.core.counters.deferred++;
    this.core.wakeTimers(delay);
    // the script cleared the failure count; a redelivered message's run mark goes too
    if (d.deliveries > 1) void this.core.redis.hdel(w.attempts, runMarkOf(d.id)).catch(() => {});
    observe(this.core, "deferred", { actor: w.runner.actor.name, partition: w.p });
  }

  /** Sleeps for ms unless the partition stops first; resolves false when it stopped. */
  private pause(w: PartitionWorker, ms: number): Promise<boolean> {
    if (w.stopping) return Promise.resolve(false);
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        w.wakers.delete(wake);
        resolve(false);
      };
      const timer = setTimeout(() => {
        w.wakers.delete(wake);
        resolve(!w.stopping);
      }, ms);
      w.wakers.add(wake);
    });
  }

  /**
   * Gives back the delivery count of entries left pending without running here (XCLAIM ... RETRYCOUNT
   * to the count before this host read them, JUSTID so the claim itself counts nothing): the next
   * owner's claim adds the one this host took, so a message bounced by graceful stops never nears
   * maxDeliveries. Only while the partition's lease is held (a new owner may have claimed them).
   */
  async giveBackUnstarted(w: PartitionWorker): Promise<void> {
    const entries = w.unstarted;
    w.unstarted = [];
    const byCount = new Map<number, string[]>();
    for (const [id, deliveries] of entries) byCount.set(deliveries - 1, [...(byCount.get(deliveries - 1) ?? []), id]);
    if (!byCount.size) return;
    const pipeline = this.core.redis.pipeline();
    for (const [count, ids] of byCount) pipeline.xclaim(w.stream, GROUP, this.core.id, 0, ...ids, "RETRYCOUNT", count, "JUSTID");
    const results = (await pipeline.exec()) ?? [];
    const failed = results.find(([e]) => e);
    if (failed) this.core.log.warn({ err: failed[0], partition: w.p, entries: entries.length }, "could not give back delivery counts; the next owner sees one more");
  }

  /** Retries a Redis write through outages until it succeeds; false when the partition stopped first. */
  private async untilDone(w: PartitionWorker, op: () => Promise<unknown>): Promise<boolean> {
    for (let attempt = 0; ; attempt++) {
      try {
        await op();
        return true;
      } catch (err) {
        this.core.log.error({ err, partition: w.p }, "redis write failed; retrying");
        if (!(await this.pause(w, Math.min(2000, 50 * 2 ** attempt)))) return false;
      }
    }
  }

  private async deadLetter(w: PartitionWorker, key: string, id: string, json: string, err: unknown, deliveries: number) {
    const actor = w.runner.actor;
    const { message, stack } = errorOf(err);
    this.core.log.error({ actor: actor.name, key, messageId: id, deliveries, err }, "message dead-lettered");
    const ok = await this.untilDone(w, async () => {
      // The dead-letter stream has no partition hash tag (another cluster slot): it is written
      // first, then the entry is acked in its own slot, so a failure in between only repeats the letter.
      await this.core.redis.xadd(
        this.core.runtime.keys.dead(actor.name),
        "MAXLEN",
        "~",
        this.core.opts.deadLetterMaxLen,
        "*",
        "actor",
        actor.name,
        "partition",
        String(w.p),
        "id",
        id,
        "k",
        key,
        "m",
        json,
        "error",
        message,
        "stack",
        stack,
        "deliveries",
        String(deliveries),
        "failedAt",
        new Date().toISOString(),
      );
      const results = (await this.core.redis.pipeline().xack(w.stream, GROUP, id).hdel(w.attempts, id, runMarkOf(id)).exec()) ?? [];
      for (const [e] of results) if (e) throw e;
    });
    if (!ok) w.abandoned.add(key);
    else observe(this.core, "deadLettered", { actor: actor.name, partition: w.p, deliveries });
  }
}
