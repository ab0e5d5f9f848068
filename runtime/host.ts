// A host: owns partitions through leases, reads their streams in batches, runs handlers one at a
// time per key with bounded concurrency, acks in pipelines, retries, dead-letters, fires timers, trims.
import { hostname } from "node:os";
import type Redis from "ioredis";
import PQueue from "p-queue";
import type { Actor, ActorContext, RuntimeLogger, TimerOptions } from "./actor";
import { leaseTarget, planLeases, preferenceOrder } from "./balance";
import { decodeFields } from "./codec";
import { GROUP } from "./keys";
import { retryDelayFor } from "./retry";
import type { RuntimeClient as Runtime } from "./client";
import type { ScriptedRedis } from "./scripts";
import { Semaphore } from "./semaphore";

export interface HostOptions {
  actors: Actor<any>[];
  /** Lease time: a dead host's partitions move after at most this long (plus one lease tick). */
  leaseMs?: number;
  /** XREADGROUP COUNT and XAUTOCLAIM COUNT. */
  batch?: number;
  /** Most handlers running at once in this host, over all actors. */
  concurrency?: number;
  /** XREADGROUP BLOCK timeout; stop() unblocks readers at once, so this only bounds idle loops. */
  blockMs?: number;
  /** Messages read but not finished before readers pause (back-pressure). */
  maxInFlight?: number;
  /** How often owned partitions move due timers into their streams. */
  timerPollMs?: number;
  /** How often owned partition streams are trimmed below their oldest pending entry. */
  trimIntervalMs?: number;
  /** At trim time, consumers (host ids) with nothing pending and idle this long are deleted from the group. */
  forgetIdleConsumersMs?: number;
  /** Dead-letter streams are capped (approximately) at this length. */
  deadLetterMaxLen?: number;
  hostId?: string;
}

export interface Host {
  readonly id: string;
  /** Resolves once the first lease round is done and the partitions it won are being read. */
  readonly ready: Promise<void>;
  /** Graceful: stop reading, finish in-flight handlers, flush acks, release leases. Installs no signal handlers. */
  stop(): Promise<void>;
  /** Partitions held right now, per actor name. */
  owned(): Map<string, number[]>;
  /** Trims owned streams now (it also runs every trimIntervalMs); resolves to entries deleted. */
  trimNow(): Promise<number>;
}

type Exec = { exec(): Promise<[Error | null, unknown][] | null> };
type Pipeline = ScriptedRedis & Exec;

interface PartitionWorker {
  runner: ActorRunner;
  p: number;
  stream: string;
  attempts: string;
  state: "starting" | "reading" | "releasing" | "lost";
  conn?: Redis;
  clientId?: number;
  /** Set once reading must end (release, lost lease, host stop). */
  stopping: boolean;
  readerDone: Promise<void>;
  inFlight: number;
  drainWaiters: Array<() => void>;
  acks: string[];
  clearAttempts: string[];
  /** Keys whose earlier message was left pending at stop: later ones must wait for the next owner too. */
  abandoned: Set<string>;
  wakers: Set<() => void>;
}

interface ActorRunner {
  actor: Actor<any>;
  P: number;
  order: number[];
  semaphore: Semaphore | undefined;
  partitions: Map<number, PartitionWorker>;
}

interface Delivery {
  id: string;
  msg: unknown;
  json: string;
  deliveries: number;
}

interface Mailbox {
  queue: PQueue;
  size: number;
}

class HandlerContext implements ActorContext {
  private _log?: RuntimeLogger;
  constructor(
    private readonly host: RuntimeHost,
    private readonly runner: ActorRunner,
    readonly key: string,
    readonly messageId: string,
    readonly deliveries: number,
    readonly partition: number,
  ) {}
  schedule<N>(timerId: string, delayMs: number, msg: N, opts?: TimerOptions) {
    return this.host.runtime.schedule(this.runner.actor as Actor<N>, timerId, delayMs, msg, opts);
  }
  cancel(timerId: string) {
    return this.host.runtime.cancel(this.runner.actor, timerId);
  }
  send<N>(actor: Actor<N>, msg: N) {
    return this.host.runtime.send(actor, msg);
  }
  // A child logger per message is costly; most handlers never log, so build it on first use.
  get log(): RuntimeLogger {
    if (!this._log) {
      const base = this.host.runtime.logger;
      const bindings = { actor: this.runner.actor.name, key: this.key, messageId: this.messageId, deliveries: this.deliveries };
      this._log = base.child ? base.child(bindings) : base;
    }
    return this._log;
  }
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

function errorOf(err: unknown): { message: string; stack: string } {
  if (err instanceof Error) return { message: err.message, stack: err.stack ?? "" };
  return { message: String(err), stack: "" };
}

class RuntimeHost implements Host {
  readonly id: string;
  readonly ready: Promise<void>;
  private readonly redis: ScriptedRedis;
  private readonly log: RuntimeLogger;
  private readonly leaseMs: number;
  private readonly batch: number;
  private readonly blockMs: number;
  private readonly maxInFlight: number;
  private readonly timerPollMs: number;
  private readonly trimIntervalMs: number;
  private readonly deadLetterMaxLen: number;
  private readonly forgetIdleConsumersMs: number;
  private readonly global: Semaphore;
  private readonly runners: ActorRunner[];
  private readonly mailboxes = new Map<string, Mailbox>();
  private inFlight = 0;
  private capacityWaiters: Array<() => void> = [];
  private ackBuffered = 0;
  private flushScheduled = false;
  private readonly flushes = new Set<Promise<void>>();
  private stopping = false;
  private stopPromise?: Promise<void>;
  private leaseTimer?: ReturnType<typeof setTimeout>;
  private timerTimer?: ReturnType<typeof setTimeout>;
  private trimTimer?: ReturnType<typeof setTimeout>;
  private leaseTickRunning?: Promise<void>;

  constructor(
    readonly runtime: Runtime,
    opts: HostOptions,
  ) {
    if (!opts.actors?.length) throw new Error("startHost needs at least one actor");
    const names = new Set(opts.actors.map((a) => a.name));
    if (names.size !== opts.actors.length) throw new Error("startHost: actor names must be unique");
    this.id = opts.hostId ?? `${hostname()}-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
    this.redis = runtime.redis;
    this.log = runtime.logger.child ? runtime.logger.child({ host: this.id }) : runtime.logger;
    this.leaseMs = opts.leaseMs ?? 10_000;
    this.batch = opts.batch ?? 500;
    this.blockMs = opts.blockMs ?? 1000;
    const concurrency = opts.concurrency ?? 200;
    this.maxInFlight = opts.maxInFlight ?? Math.max(this.batch * 4, concurrency * 2);
    this.timerPollMs = opts.timerPollMs ?? 200;
    this.trimIntervalMs = opts.trimIntervalMs ?? 10_000;
    this.deadLetterMaxLen = opts.deadLetterMaxLen ?? 100_000;
    this.forgetIdleConsumersMs = opts.forgetIdleConsumersMs ?? Math.max(60_000, this.leaseMs * 6);
    this.global = new Semaphore(concurrency);
    this.runners = opts.actors.map((actor) => {
      const P = runtime.partitionsOf(actor);
      return {
        actor,
        P,
        order: preferenceOrder(this.id, P),
        semaphore: actor.concurrency ? new Semaphore(actor.concurrency) : undefined,
        partitions: new Map(),
      };
    });
    // A failed first round (Redis not up yet) is retried by the next tick.
    this.ready = this.leaseTick()
      .catch((err) => this.log.error({ err }, "first lease round failed"))
      .then(() => {
        this.scheduleLeaseTick();
        this.scheduleTimerTick(0);
        this.scheduleTrimTick();
      });
  }

  owned(): Map<string, number[]> {
    const out = new Map<string, number[]>();
    for (const r of this.runners) {
      out.set(
        r.actor.name,
        [...r.partitions.values()].filter((w) => w.state === "reading" || w.state === "starting").map((w) => w.p).sort((a, b) => a - b),
      );
    }
    return out;
  }

  stop(): Promise<void> {
    if (!this.stopPromise) this.stopPromise = this.doStop();
    return this.stopPromise;
  }

  private async doStop() {
    this.stopping = true;
    clearTimeout(this.timerTimer);
    clearTimeout(this.trimTimer);
    await this.ready;
    // A round that started before stopping may still be acquiring; later rounds only renew.
    await this.leaseTickRunning;
    // Leave the registry first: the others raise their targets and take each partition as it is released.
    await Promise.all(
      this.runners.map((r) => this.redis.nmsRuntime_heartbeat(this.runtime.keys.hosts(r.actor.name), this.id, this.leaseMs, 1).catch(() => 0)),
    );
    // The lease tick keeps renewing (never acquiring) while in-flight handlers finish.
    const workers = this.runners.flatMap((r) => [...r.partitions.values()]);
    await Promise.all(workers.map((w) => this.releasePartition(w)));
    clearTimeout(this.leaseTimer);
    await this.leaseTickRunning;
    this.log.info({ host: this.id }, "runtime host stopped");
  }

  // ---- leases -------------------------------------------------------------------------------

  private scheduleLeaseTick() {
    this.leaseTimer = setTimeout(() => {
      this.leaseTickRunning = this.leaseTick()
        .catch((err) => this.log.error({ err }, "lease tick failed"))
        .finally(() => {
          if (!this.stopPromise || this.workerCount() > 0) this.scheduleLeaseTick();
        });
    }, Math.max(50, Math.floor(this.leaseMs / 3)));
  }

  private workerCount() {
    return this.runners.reduce((n, r) => n + r.partitions.size, 0);
  }

  private async leaseTick() {
    const keys = this.runtime.keys;
    for (const runner of this.runners) {
      const name = runner.actor.name;
      const live = this.stopping ? 1 : Number(await this.redis.nmsRuntime_heartbeat(keys.hosts(name), this.id, this.leaseMs, 0));

      const held = [...runner.partitions.values()].filter((w) => w.state !== "lost");
      if (held.length) {
        const pipeline = this.redis.pipeline() as unknown as Pipeline;
        // Built and sent in one synchronous step, so a release (DEL) issued later runs after it.
        for (const w of held) pipeline.nmsRuntime_renewLease(keys.lease(name, w.p), this.id, this.leaseMs, w.state === "releasing" ? 0 : 1);
        const results = (await pipeline.exec()) ?? [];
        held.forEach((w, i) => {
          const [err, ok] = results[i] ?? [null, 0];
          if (!err && Number(ok) === 0 && w.state !== "releasing") this.loseLease(w);
        });
      }
      if (this.stopping) continue;

      const active = [...runner.partitions.values()].filter((w) => w.state === "reading" || w.state === "starting").map((w) => w.p);
      const target = leaseTarget(runner.P, live);
      if (active.length > target) {
        const plan = planLeases({ owned: active, free: [], target, order: runner.order });
        for (const p of plan.release) {
          const w = runner.partitions.get(p);
          if (w) void this.releasePartition(w);
        }
        continue;
      }
      if (active.length === target) continue;

      const candidates = runner.order.filter((p) => !runner.partitions.has(p));
      const pipeline = this.redis.pipeline();
      for (const p of candidates) pipeline.exists(keys.lease(name, p));
      const exists = (await pipeline.exec()) ?? [];
      const free = candidates.filter((_, i) => Number(exists[i]?.[1]) === 0);
      const plan = planLeases({ owned: active, free, target, order: runner.order });
      if (!plan.acquire.length) continue;
      const acquire = this.redis.pipeline();
      for (const p of plan.acquire) acquire.set(keys.lease(name, p), this.id, "PX", this.leaseMs, "NX");
      const won = (await acquire.exec()) ?? [];
      const started: Promise<void>[] = [];
      plan.acquire.forEach((p, i) => {
        if (won[i]?.[1] === "OK" && !this.stopping) started.push(this.startPartition(runner, p));
      });
      await Promise.all(started);
    }
  }

  private loseLease(w: PartitionWorker) {
    if (w.state === "lost") return;
    this.log.warn({ actor: w.runner.actor.name, partition: w.p }, "partition lease lost; stopping its reader");
    w.state = "lost";
    this.stopReading(w);
    void this.finishWorker(w, false);
  }

  private async releasePartition(w: PartitionWorker) {
    if (w.state === "releasing" || w.state === "lost") return this.waitGone(w);
    w.state = "releasing";
    this.stopReading(w);
    await this.finishWorker(w, true);
  }

  private gone = new WeakMap<PartitionWorker, Promise<void>>();
  private waitGone(w: PartitionWorker): Promise<void> {
    return this.gone.get(w) ?? Promise.resolve();
  }

  /** Waits for the reader and in-flight handlers, flushes acks, then releases the lease when held. */
  private finishWorker(w: PartitionWorker, release: boolean): Promise<void> {
    const done = (async () => {
      await w.readerDone;
      await this.drained(w);
      await this.flushAll();
      if (release) {
        await this.redis.nmsRuntime_releaseLease(this.runtime.keys.lease(w.runner.actor.name, w.p), this.id).catch((err) => {
          this.log.warn({ err, partition: w.p }, "lease release failed; it will expire");
        });
      }
      w.conn?.disconnect();
      if (w.runner.partitions.get(w.p) === w) w.runner.partitions.delete(w.p);
    })();
    this.gone.set(w, done);
    return done;
  }

  private stopReading(w: PartitionWorker) {
    w.stopping = true;
    for (const wake of w.wakers) wake();
    // A reader blocked in XREADGROUP returns at once (as on timeout) instead of after blockMs.
    if (w.clientId !== undefined) void this.redis.client("UNBLOCK", w.clientId).catch(() => {});
  }

  private drained(w: PartitionWorker): Promise<void> {
    if (w.inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => w.drainWaiters.push(resolve));
  }

  // ---- reading --------------------------------------------------------------------------------

  private async startPartition(runner: ActorRunner, p: number) {
    const keys = this.runtime.keys;
    const name = runner.actor.name;
    let resolveReader!: () => void;
    const w: PartitionWorker = {
      runner,
      p,
      stream: keys.stream(name, p),
      attempts: keys.attempts(name, p),
      state: "starting",
      stopping: false,
      readerDone: new Promise((r) => (resolveReader = r)),
      inFlight: 0,
      drainWaiters: [],
      acks: [],
      clearAttempts: [],
      abandoned: new Set(),
      wakers: new Set(),
    };
    runner.partitions.set(p, w);
    try {
      await this.ensureGroup(w.stream);
      // Pending entries of the previous owner run before anything new (the lease says it is gone).
      await this.claimPending(w);
      w.conn = this.redis.duplicate({ enableAutoPipelining: false, maxRetriesPerRequest: null, lazyConnect: false });
      w.clientId = Number(await w.conn.client("ID"));
      if (w.state === "starting") w.state = "reading";
      this.log.debug({ actor: name, partition: p }, "partition acquired");
    } catch (err) {
      this.log.error({ err, actor: name, partition: p }, "could not start partition; releasing it");
      resolveReader();
      if (w.state === "starting") {
        w.state = "releasing";
        w.stopping = true;
        void this.finishWorker(w, true);
      }
      return;
    }
    void this.readLoop(w).finally(resolveReader);
  }

  private async ensureGroup(stream: string) {
    try {
      // Id 0, not $: messages sent before any host existed must still be read.
      await this.redis.xgroup("CREATE", stream, GROUP, "0", "MKSTREAM");
    } catch (err) {
      if (!String((err as Error).message).includes("BUSYGROUP")) throw err;
    }
  }

  private async claimPending(w: PartitionWorker) {
    let cursor = "0-0";
    do {
      const reply = (await this.redis.xautoclaim(w.stream, GROUP, this.id, 0, cursor, "COUNT", this.batch)) as unknown as [
        string,
        Array<[string, string[]] | null>,
        string[]?,
      ];
      cursor = reply[0];
      const entries = reply[1].filter((e): e is [string, string[]] => !!e && !!e[1]);
      // Redis < 7 returns trimmed-away entries as nil: they can never run, so ack them.
      const gone = reply[1].length - entries.length;
      if (gone > 0) this.log.warn({ partition: w.p, gone }, "claimed entries no longer in the stream");
      if (!entries.length) continue;
      const ids = entries.map((e) => e[0]);
      const pipeline = this.redis.pipeline();
      pipeline.xpending(w.stream, GROUP, ids[0]!, ids[ids.length - 1]!, ids.length * 2, this.id);
      pipeline.hmget(w.attempts, ...ids);
      const [[e1, pending], [e2, failures]] = ((await pipeline.exec()) ?? []) as [Error | null, any][];
      if (e1) throw e1;
      if (e2) throw e2;
      const timesDelivered = new Map<string, number>((pending as [string, string, number, number][]).map((row) => [row[0], Number(row[3])]));
      this.dispatch(w, entries, (i) => Math.max(timesDelivered.get(entries[i]![0]) ?? 1, Number((failures as (string | null)[])[i] ?? 0) + 1));
      this.log.info({ actor: w.runner.actor.name, partition: w.p, claimed: entries.length }, "claimed pending entries of the previous owner");
      await this.waitForCapacity();
    } while (cursor !== "0-0" && !w.stopping);
  }

  private async readLoop(w: PartitionWorker) {
    const conn = w.conn!;
    let failures = 0;
    while (!w.stopping) {
      if (this.inFlight >= this.maxInFlight) {
        await this.waitForCapacity();
        continue;
      }
      let reply: [string, [string, string[]][]][] | null;
      try {
        reply = (await conn.xreadgroup("GROUP", GROUP, this.id, "COUNT", this.batch, "BLOCK", this.blockMs, "STREAMS", w.stream, ">")) as any;
        failures = 0;
      } catch (err) {
        if (w.stopping) break;
        if (String((err as Error).message).includes("NOGROUP")) {
          await this.ensureGroup(w.stream).catch(() => {});
          continue;
        }
        this.log.error({ err, partition: w.p }, "XREADGROUP failed");
        await sleep(Math.min(2000, 100 * 2 ** failures++));
        continue;
      }
      if (!reply) continue;
      this.dispatch(w, reply[0]![1]);
    }
  }

  private waitForCapacity(): Promise<void> {
    if (this.inFlight < this.maxInFlight) return Promise.resolve();
    return new Promise((resolve) => this.capacityWaiters.push(resolve));
  }

  // ---- running --------------------------------------------------------------------------------

  /**
   * Hands a read batch to the per-key mailboxes. The batch is grouped by key first, so a key gets
   * one p-queue task per batch (running its messages in stream order) rather than one per message.
   */
  private dispatch(w: PartitionWorker, entries: ReadonlyArray<[string, string[]]>, deliveriesOf?: (i: number) => number) {
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
        this.inFlight++;
        w.inFlight++;
        void this.deadLetter(w, decoded.key ?? "", id, decoded.json ?? "", err, deliveries).finally(() => this.finished(w, 1));
        continue;
      }
      const delivery: Delivery = { id, msg, json: decoded.json!, deliveries };
      const group = groups.get(key);
      if (group) group.push(delivery);
      else groups.set(key, [delivery]);
    }
    for (const [key, deliveries] of groups) this.enqueue(w, key, deliveries);
  }

  private enqueue(w: PartitionWorker, key: string, deliveries: Delivery[]) {
    const count = deliveries.length;
    this.inFlight += count;
    w.inFlight += count;
    const mailboxId = w.runner.actor.name + "\u0000" + key;
    let box = this.mailboxes.get(mailboxId);
    if (!box) {
      box = { queue: new PQueue({ concurrency: 1 }), size: 0 };
      this.mailboxes.set(mailboxId, box);
    }
    box.size++;
    const mailbox = box;
    const after = () => {
      // An idle key's queue is dropped so memory follows active keys, not all keys ever seen.
      if (--mailbox.size === 0 && this.mailboxes.get(mailboxId) === mailbox) this.mailboxes.delete(mailboxId);
      this.finished(w, count);
    };
    mailbox.queue.add(() => this.processInOrder(w, key, deliveries)).then(after, after);
  }

  private async processInOrder(w: PartitionWorker, key: string, deliveries: Delivery[]) {
    for (const d of deliveries) await this.process(w, key, d.id, d.msg, d.json, d.deliveries);
  }

  private finished(w: PartitionWorker, count: number) {
    this.inFlight -= count;
    w.inFlight -= count;
    if (w.inFlight === 0 && w.drainWaiters.length) {
      const waiters = w.drainWaiters;
      w.drainWaiters = [];
      for (const r of waiters) r();
    }
    if (this.capacityWaiters.length && this.inFlight <= this.maxInFlight / 2) {
      const waiters = this.capacityWaiters;
      this.capacityWaiters = [];
      for (const r of waiters) r();
    }
  }

  private async process(w: PartitionWorker, key: string, id: string, msg: unknown, json: string, firstDelivery: number) {
    if (w.abandoned.has(key)) return;
    const actor = w.runner.actor;
    let deliveries = firstDelivery;
    if (deliveries > actor.maxDeliveries) {
      // Hosts died while running it (e.g. it crashes the process): do not let it kill another one.
      await this.deadLetter(w, key, id, json, new Error(`delivered ${deliveries - 1} times without an ack (hosts died while handling it)`), deliveries - 1);
      return;
    }
    for (;;) {
      const outcome = await this.runHandler(w, key, id, msg, deliveries);
      if (outcome === true) {
        this.ack(w, id, deliveries > 1);
        return;
      }
      if (deliveries >= actor.maxDeliveries) {
        await this.deadLetter(w, key, id, json, outcome.err, deliveries);
        return;
      }
      this.log.warn({ actor: actor.name, key, messageId: id, deliveries, err: outcome.err }, "handler failed; will retry");
      // The failure count outlives this process, so a crash mid-retry does not reset it.
      const recorded = await this.untilDone(w, () => this.redis.hset(w.attempts, id, deliveries));
      const delay = (actor.retryDelayMs ? actor.retryDelayMs(deliveries) : retryDelayFor(deliveries)) * this.runtime.timeScale;
      if (!recorded || !(await this.pause(w, delay))) {
        // Stopping: leave it pending for the next owner, and keep this key's later messages behind it.
        w.abandoned.add(key);
        return;
      }
      deliveries++;
    }
  }

  private async runHandler(w: PartitionWorker, key: string, id: string, msg: unknown, deliveries: number): Promise<true | { err: unknown }> {
    const actorSemaphore = w.runner.semaphore;
    if (actorSemaphore && !actorSemaphore.tryAcquire()) await actorSemaphore.wait();
    if (!this.global.tryAcquire()) await this.global.wait();
    try {
      await w.runner.actor.handle(msg, new HandlerContext(this, w.runner, key, id, deliveries, w.p));
      return true;
    } catch (err) {
      return { err };
    } finally {
      this.global.release();
      actorSemaphore?.release();
    }
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

  /** Retries a Redis write through outages until it succeeds; false when the partition stopped first. */
  private async untilDone(w: PartitionWorker, op: () => Promise<unknown>): Promise<boolean> {
    for (let attempt = 0; ; attempt++) {
      try {
        await op();
        return true;
      } catch (err) {
        this.log.error({ err, partition: w.p }, "redis write failed; retrying");
        if (!(await this.pause(w, Math.min(2000, 50 * 2 ** attempt)))) return false;
      }
    }
  }

  private async deadLetter(w: PartitionWorker, key: string, id: string, json: string, err: unknown, deliveries: number) {
    const actor = w.runner.actor;
    const { message, stack } = errorOf(err);
    this.log.error({ actor: actor.name, key, messageId: id, deliveries, err }, "message dead-lettered");
    const ok = await this.untilDone(w, async () => {
      const pipeline = this.redis.pipeline();
      pipeline.xadd(
        this.runtime.keys.dead(actor.name),
        "MAXLEN",
        "~",
        this.deadLetterMaxLen,
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
      pipeline.xack(w.stream, GROUP, id);
      pipeline.hdel(w.attempts, id);
      const results = (await pipeline.exec()) ?? [];
      for (const [e] of results) if (e) throw e;
    });
    if (!ok) w.abandoned.add(key);
  }

  // ---- acks -----------------------------------------------------------------------------------

  private ack(w: PartitionWorker, id: string, clearAttempts: boolean) {
    w.acks.push(id);
    if (clearAttempts) w.clearAttempts.push(id);
    if (++this.ackBuffered >= this.batch) this.flush();
    else if (!this.flushScheduled) {
      this.flushScheduled = true;
      // Everything acked in this turn of the event loop goes out in one pipeline.
      setImmediate(() => this.flush());
    }
  }

  private flush() {
    this.flushScheduled = false;
    if (this.ackBuffered === 0) return;
    this.ackBuffered = 0;
    const pipeline = this.redis.pipeline();
    const sent: Array<[PartitionWorker, string[], string[]]> = [];
    for (const r of this.runners) {
      for (const w of r.partitions.values()) {
        if (!w.acks.length) continue;
        const ids = w.acks;
        const clears = w.clearAttempts;
        w.acks = [];
        w.clearAttempts = [];
        pipeline.xack(w.stream, GROUP, ...ids);
        if (clears.length) pipeline.hdel(w.attempts, ...clears);
        sent.push([w, ids, clears]);
      }
    }
    const requeue = (err: unknown) => {
      this.log.error({ err }, "ack flush failed; retrying");
      for (const [w, ids, clears] of sent) {
        w.acks.push(...ids);
        w.clearAttempts.push(...clears);
        this.ackBuffered += ids.length;
      }
      return sleep(200).then(() => this.flush());
    };
    const p: Promise<void> = pipeline
      .exec()
      .then((results) => {
        const failed = results?.find(([e]) => e);
        if (failed) return requeue(failed[0]);
      }, requeue)
      .finally(() => this.flushes.delete(p));
    this.flushes.add(p);
  }

  private async flushAll() {
    this.flush();
    while (this.flushes.size) await Promise.all([...this.flushes]);
  }

  // ---- timers and trimming --------------------------------------------------------------------

  private scheduleTimerTick(ms = this.timerPollMs) {
    if (this.stopping) return;
    this.timerTimer = setTimeout(() => {
      this.promoteTimers()
        .catch((err) => {
          this.log.error({ err }, "timer promotion failed");
          return false;
        })
        .then((more) => this.scheduleTimerTick(more ? 0 : this.timerPollMs));
    }, ms);
  }

  /** Returns true when some partition had more due timers than one call moves. */
  private async promoteTimers(): Promise<boolean> {
    const keys = this.runtime.keys;
    const workers = this.runners.flatMap((r) => [...r.partitions.values()].filter((w) => w.state === "reading"));
    if (!workers.length) return false;
    const pipeline = this.redis.pipeline() as unknown as Pipeline;
    for (const w of workers) {
      const name = w.runner.actor.name;
      pipeline.nmsRuntime_promoteTimers(keys.timers(name, w.p), keys.timerData(name, w.p), w.stream, this.batch);
    }
    const results = (await pipeline.exec()) ?? [];
    return results.some(([err, n]) => !err && Number(n) >= this.batch);
  }

  private scheduleTrimTick() {
    if (this.stopping) return;
    this.trimTimer = setTimeout(() => {
      this.trimNow()
        .catch((err) => this.log.error({ err }, "stream trim failed"))
        .finally(() => this.scheduleTrimTick());
    }, this.trimIntervalMs);
  }

  /** Trims every owned partition stream below its oldest pending entry; returns entries deleted. */
  async trimNow(): Promise<number> {
    const workers = this.runners.flatMap((r) => [...r.partitions.values()].filter((w) => w.state === "reading"));
    if (!workers.length) return 0;
    const pipeline = this.redis.pipeline() as unknown as Pipeline;
    for (const w of workers) pipeline.nmsRuntime_trimStream(w.stream, this.forgetIdleConsumersMs);
    const results = (await pipeline.exec()) ?? [];
    let deleted = 0;
    for (const [err, r] of results) if (!err) deleted += Number((r as [number, string])[0]);
    return deleted;
  }
}

export function startHost(runtime: Runtime, opts: HostOptions): Host {
  return new RuntimeHost(runtime, opts);
}
