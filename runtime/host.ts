// A host's lifecycle: it wires the parts (leases, partition readers, mailboxes, acks, maintenance),
// owns the background loops, and stops gracefully. Each part lives in a file of its own.
import { AckBuffer } from "./acks";
import { preferenceOrder } from "./balance";
import { FairSemaphore } from "./fair-semaphore";
import { LeaseKeeper, type PartitionOwner } from "./host-leases";
import { forgetHostId, newHostId } from "./host-identity";
import { Capacity, resolveHostOptions, type ActorRunner, type HostCore, type HostCounters, type PartitionWorker, type ResolvedHostOptions } from "./host-state";
import { Loop } from "./loop";
import { Mailboxes } from "./mailboxes";
import { promoteTimers, trimStreams, Watchdog } from "./maintenance";
import { PartitionReader } from "./partition-reader";
import type { RuntimeLogger } from "./actor";
import type { ScriptedRedis } from "./scripts";
import type { RedisClient } from "./redis-client";
import { Semaphore } from "./semaphore";
import type { Host, HostOptions, HostStats, Runtime } from "./types";

export type { Host, HostOptions } from "./types";

class RuntimeHost implements Host, HostCore, PartitionOwner {
  readonly id: string;
  readonly ready: Promise<void>;
  readonly redis: ScriptedRedis;
  readonly log: RuntimeLogger;
  readonly opts: ResolvedHostOptions;
  readonly runners: ActorRunner[];
  readonly capacity: Capacity;
  readonly slots: FairSemaphore;
  readonly counters: HostCounters = { deferred: 0, deadlineMisses: 0, readerRestarts: 0 };
  stopping = false;

  private readonly acks: AckBuffer;
  private readonly mailboxes: Mailboxes;
  private readonly reader: PartitionReader;
  private readonly leases: LeaseKeeper;
  private readonly leaseLoop: Loop;
  private readonly timerLoop: Loop;
  private readonly trimLoop: Loop;
  private readonly watchdogLoop: Loop;
  private readonly gone = new WeakMap<PartitionWorker, Promise<void>>();
  /** Subscriber of `<prefix>:timers-wake`: a timer scheduled earlier than the promotion's sleep wakes it. */
  private wakeSub?: RedisClient;
  private stopPromise?: Promise<void>;

  constructor(
    readonly runtime: Runtime,
    hostOpts: HostOptions,
  ) {
    if (!hostOpts.actors?.length) throw new Error("startHost needs at least one actor");
    const names = new Set(hostOpts.actors.map((a) => a.name));
    if (names.size !== hostOpts.actors.length) throw new Error("startHost: actor names must be unique");
    this.id = hostOpts.hostId ?? newHostId();
    this.redis = runtime.redis;
    // the runtime's logger already names the component; the host id is bound once here
    this.log = runtime.logger.child ? runtime.logger.child({ host: this.id }) : runtime.logger;
    this.opts = resolveHostOptions(hostOpts);
    this.capacity = new Capacity(this.opts.maxInFlight, this.opts.batch);
    this.slots = new FairSemaphore(this.opts.concurrency);
    this.runners = hostOpts.actors.map((actor) => ({
      actor,
      P: runtime.partitionsOf(actor),
      order: preferenceOrder(this.id, runtime.partitionsOf(actor)),
      semaphore: actor.concurrency ? new Semaphore(actor.concurrency) : undefined,
      partitions: new Map(),
    }));
    this.acks = new AckBuffer(this);
    this.mailboxes = new Mailboxes(this, this.acks);
    this.reader = new PartitionReader(this, this.mailboxes);
    this.leases = new LeaseKeeper(this, this);

    // this.log names the host already: the loops add only their own name (a second `host` key
    // repeated itself in every line they wrote)
    const leaseEvery = Math.max(50, Math.floor(this.opts.leaseMs / 3));
    // the loops of every host in the process with one cadence wake together (Loop alignMs): an idle
    // process's timers fire once per period, not once per host and period
    this.leaseLoop = new Loop({ name: "lease renewal", everyMs: leaseEvery, alignMs: leaseEvery, runDeadlineMs: this.opts.leaseMs, log: this.log }, () =>
      this.leases.tick(false),
    );
    this.timerLoop = new Loop({ name: "timer promotion", everyMs: this.opts.timerPollMs, alignMs: this.opts.timerIdleMs, log: this.log }, () =>
      promoteTimers(this),
    );
    this.trimLoop = new Loop({ name: "stream trimming", everyMs: this.opts.trimIntervalMs, alignMs: this.opts.trimIntervalMs, log: this.log }, async () => {
      await trimStreams(this);
    });
    const watchdog = new Watchdog(
      this,
      this.reader,
      this.mailboxes,
      () => [this.leaseLoop, this.timerLoop, this.trimLoop],
      () => ["lease renewal", "timer promotion", "stream trimming"],
    );
    // Often enough to expire the shortest handler deadline on time, at most once a second.
    const watchEvery = Math.max(20, Math.min(this.opts.watchdogMs, Math.floor(this.mailboxes.shortestDeadlineMs() / 4)));
    this.watchdogLoop = new Loop({ name: "watchdog", everyMs: watchEvery, alignMs: watchEvery, log: this.log }, () => {
      // a host of this machine died (kill -9): a lease round now takes its partitions (docs/runtime.md, takeover)
      if (!this.stopping && this.leases.peerDied()) void this.leaseLoop.runOnce();
      return watchdog.check();
    });

    // A failed first round (Redis not up yet) is retried by the lease loop.
    this.ready = this.leases
      .tick(true)
      .catch((err) => this.log.error({ err }, "first lease round failed"))
      .then(() => {
        if (this.stopping) return;
        this.leaseLoop.start(leaseEvery);
        this.timerLoop.start(0);
        this.listenForTimers();
        this.trimLoop.start(this.opts.trimIntervalMs);
        this.watchdogLoop.start(watchEvery);
      });
  }

  wakeTimers(ms: number): void {
    this.timerLoop.wakeIn(ms);
  }

  /** A timer of `actor` partition `p` was scheduled in this process (no round trip through pub/sub needed). */
  wakeTimersFor(actor: string, p: number, ms: number): void {
    const w = this.runners.find((r) => r.actor.name === actor)?.partitions.get(p);
    if (w && (w.state === "reading" || w.state === "starting")) this.timerLoop.wakeIn(ms);
  }

  /**
   * One subscriber connection per host. A wake names `<actor>:<p>:<delay ms>`; only the owner of
   * that partition acts on it. After a reconnect the promotion runs at once (a wake may have been
   * missed meanwhile), and timerIdleMs bounds any other miss.
   */
  private listenForTimers() {
    const channel = this.runtime.keys.timersWake();
    const sub = (this.redis as { duplicate(): RedisClient }).duplicate();
    this.wakeSub = sub;
    sub.on("error", (err: Error) => this.log.debug?.({ err }, "timer wake subscriber error; it reconnects"));
    sub.on("ready", () => this.timerLoop.wakeIn(0));
    sub.on("message", (_channel: string, message: string) => {
      const j = message.lastIndexOf(":");
      const i = message.lastIndexOf(":", j - 1);
      if (i <= 0) return;
      const actor = message.slice(0, i);
      const p = Number(message.slice(i + 1, j));
      const runner = this.runners.find((r) => r.actor.name === actor);
      const w = runner?.partitions.get(p);
      if (w && (w.state === "reading" || w.state === "starting")) this.timerLoop.wakeIn(Number(message.slice(j + 1)) || 0);
    });
    // a timer scheduled while the subscription was on its way published to nobody: look once it is in place
    sub.subscribe(channel).then(
      () => this.timerLoop.wakeIn(0),
      (err: Error) => this.log.warn({ err }, "timer wake subscription failed; timers are found within timerIdleMs"),
    );
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

  stats(): HostStats {
    return {
      inFlight: this.capacity.inFlight,
      running: this.slots.running,
      waiting: this.slots.waiting,
      deferred: this.counters.deferred,
      deadlineMisses: this.counters.deadlineMisses,
      readerRestarts: this.counters.readerRestarts,
      loopFailures: this.leaseLoop.failures + this.timerLoop.failures + this.trimLoop.failures + this.watchdogLoop.failures,
    };
  }

  trimNow(): Promise<number> {
    return trimStreams(this, true);
  }

  stop(): Promise<void> {
    if (!this.stopPromise) this.stopPromise = this.doStop();
    return this.stopPromise;
  }

  private async doStop() {
    this.stopping = true;
    await this.ready;
    await Promise.all([this.timerLoop.stop(), this.trimLoop.stop()]);
    const sub = this.wakeSub;
    this.wakeSub = undefined;
    await sub?.quit().catch(() => sub.disconnect());
    // A lease round that started before stopping may still be acquiring; later rounds only renew.
    await this.leaseLoop.settled();
    // Leave the registry first: the others raise their targets and take each partition as it is released.
    await this.leases.leave();
    // The lease loop keeps renewing (never acquiring) and the watchdog keeps expiring overdue
    // handlers while in-flight work finishes.
    const workers = this.runners.flatMap((r) => [...r.partitions.values()]);
    await Promise.all(workers.map((w) => this.releasePartition(w)));
    await Promise.all([this.leaseLoop.stop(), this.watchdogLoop.stop()]);
    forgetHostId(this.id);
    this.log.info({}, "runtime host stopped");
  }

  // ---- PartitionOwner (called by the lease keeper) ---------------------------------------------

  async startPartition(runner: ActorRunner, p: number): Promise<void> {
    const w = this.reader.newWorker(runner, p);
    runner.partitions.set(p, w);
    if (!(await this.reader.start(w)) && w.state === "starting") {
      w.state = "releasing";
      w.stopping = true;
      await this.finishWorker(w, true);
      return;
    }
    // its timers may be due already (the previous owner died or gave it back)
    this.timerLoop.wakeIn(0);
  }

  loseLease(w: PartitionWorker): void {
    if (w.state === "lost") return;
    this.log.warn({ actor: w.runner.actor.name, partition: w.p }, "partition lease lost; stopping its reader");
    w.state = "lost";
    this.reader.stop(w);
    void this.finishWorker(w, false);
  }

  async releasePartition(w: PartitionWorker): Promise<void> {
    if (w.state === "releasing" || w.state === "lost") return this.gone.get(w) ?? Promise.resolve();
    w.state = "releasing";
    this.reader.stop(w);
    await this.finishWorker(w, true);
  }

  /** Waits for the reader and in-flight handlers, flushes acks, then releases the lease when held. */
  private finishWorker(w: PartitionWorker, release: boolean): Promise<void> {
    const done = (async () => {
      await w.readerDone;
      await this.mailboxes.drained(w);
      await this.acks.flushAll();
      if (release) await this.mailboxes.giveBackUnstarted(w).catch((err) => this.log.warn({ err, partition: w.p }, "giving back delivery counts failed"));
      if (release) {
        await this.redis.nmsRuntime_releaseLease(this.runtime.keys.lease(w.runner.actor.name, w.p), this.id).catch((err) => {
          this.log.warn({ err, partition: w.p }, "lease release failed; it will expire");
        });
      }
      w.reader?.close();
      if (w.runner.partitions.get(w.p) === w) w.runner.partitions.delete(w.p);
    })().catch((err) => this.log.error({ err, actor: w.runner.actor.name, partition: w.p }, "finishing a partition failed"));
    this.gone.set(w, done);
    return done;
  }
}

/** The hosts of this process by runtime: a timer scheduled here wakes its partition's owner here at once. */
const localHosts = new WeakMap<Runtime, Set<RuntimeHost>>();

export function startHost(runtime: Runtime, opts: HostOptions): Host {
  const host = new RuntimeHost(runtime, opts);
  let set = localHosts.get(runtime);
  if (!set) localHosts.set(runtime, (set = new Set()));
  set.add(host);
  const stop = host.stop.bind(host);
  host.stop = () => stop().finally(() => set.delete(host));
  return host;
}

/** Called by runtime.schedule after the timer is stored. */
export function wakeLocalTimers(runtime: Runtime, actor: string, p: number, ms: number): void {
  for (const h of localHosts.get(runtime) ?? []) h.wakeTimersFor(actor, p, ms);
}
