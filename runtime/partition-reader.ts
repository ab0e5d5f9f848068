// Reading one owned partition: its consumer group, the pending entries of a previous owner
// (XAUTOCLAIM) before anything new, then XREADGROUP on a connection of its own, asking for no
// more than the host has room for. The watchdog restarts a reader that stopped reading.
import { GROUP, runMarkOf } from "./keys";
import type { Mailboxes } from "./mailboxes";
import { openReaderConnection } from "./reader-connection";
import { sleep, type ActorRunner, type HostCore, type PartitionWorker } from "./host-state";

export class PartitionReader {
  constructor(
    private readonly core: HostCore,
    private readonly mailboxes: Mailboxes,
  ) {}

  newWorker(runner: ActorRunner, p: number): PartitionWorker {
    const keys = this.core.runtime.keys;
    const name = runner.actor.name;
    return {
      runner,
      p,
      stream: keys.stream(name, p),
      attempts: keys.attempts(name, p),
      timers: keys.timers(name, p),
      timerData: keys.timerData(name, p),
      state: "starting",
      stopping: false,
      readerDone: Promise.resolve(),
      generation: 0,
      readSince: 0,
      lastReadAt: performance.now(),
      waitingForCapacity: false,
      backlogged: true,
      inFlight: 0,
      drainWaiters: [],
      acks: [],
      untrimmed: true,
      clearAttempts: [],
      abandoned: new Set(),
      unstarted: [],
      wakers: new Set(),
    };
  }

  /**
   * Prepares the group and the reader's connection, then starts the read loop (which first claims
   * the previous owner's pending entries). Resolves once reading has started; false on failure.
   */
  async start(w: PartitionWorker): Promise<boolean> {
    const name = w.runner.actor.name;
    try {
      await this.ensureGroup(w.stream);
      await this.connect(w);
      if (w.state === "starting") w.state = "reading";
      this.core.log.debug({ actor: name, partition: w.p }, "partition acquired");
    } catch (err) {
      this.core.log.error({ err, actor: name, partition: w.p }, "could not start partition; releasing it");
      return false;
    }
    this.launch(w, true);
    return true;
  }

  private async connect(w: PartitionWorker) {
    w.reader = await openReaderConnection(this.core.redis, w.stream);
  }

  private launch(w: PartitionWorker, claimFirst: boolean) {
    const gen = ++w.generation;
    w.lastReadAt = performance.now();
    w.readerDone = this.loop(w, gen, claimFirst).catch((err) => {
      this.core.log.error({ err, actor: w.runner.actor.name, partition: w.p }, "partition reader ended with an error");
    });
  }

  /** Replaces a stalled reader: a new connection and loop; the old loop ends when it wakes. */
  async restart(w: PartitionWorker): Promise<void> {
    if (w.stopping) return;
    this.core.counters.readerRestarts++;
    const old = w.reader;
    w.generation++; // the old loop sees a newer generation and stops
    old?.close();
    try {
      await this.connect(w);
    } catch (err) {
      this.core.log.error({ err, actor: w.runner.actor.name, partition: w.p }, "reader restart could not connect; the watchdog tries again");
      return;
    }
    if (!w.stopping) this.launch(w, false);
  }

  /** A new connection for the same reader loop (on a cluster: to the slot's master now); the loop retries on failure. */
  private async reconnect(w: PartitionWorker) {
    const old = w.reader;
    try {
      await this.connect(w);
      old?.close();
    } catch (err) {
      this.core.log.warn({ err, actor: w.runner.actor.name, partition: w.p }, "partition reader could not reconnect yet");
    }
  }

  stop(w: PartitionWorker): void {
    w.stopping = true;
    for (const wake of w.wakers) wake();
    // A reader waiting for capacity looks again (and sees it must stop).
    this.core.capacity.wakeAll();
    // A reader blocked in XREADGROUP returns at once (as on timeout) instead of after blockMs.
    w.reader?.unblock();
  }

  private async ensureGroup(stream: string) {
    try {
      // Id 0, not $: messages sent before any host existed must still be read.
      await this.core.redis.xgroup("CREATE", stream, GROUP, "0", "MKSTREAM");
    } catch (err) {
      if (!String((err as Error).message).includes("BUSYGROUP")) throw err;
    }
  }

  private live(w: PartitionWorker, gen: number) {
    return !w.stopping && w.generation === gen;
  }

  private async waitForRoom(w: PartitionWorker) {
    w.waitingForCapacity = true;
    try {
      await this.core.capacity.wait();
    } finally {
      w.waitingForCapacity = false;
      w.lastReadAt = performance.now();
    }
  }

  private async loop(w: PartitionWorker, gen: number, claimFirst: boolean) {
    if (claimFirst) await this.claimPending(w, gen);
    let failures = 0;
    while (this.live(w, gen)) {
      // a stream with a backlog reserves up to a batch of the room and is read without blocking; an
      // idle one blocks for new entries, asking for its share (idleShare) while there is room, and
      // holds none of it: a held share kept every other partition unread until the block timed out
      // when the share was all the room (maxInFlight 1 over two partitions). What blocked reads bring
      // past maxInFlight is at most their shares: a quarter of maxInFlight, or one per partition.
      // readers already waiting for room go first: a reader back from its read took every slot that a
      // finished message freed (one at a time where handlers are fewer than maxInFlight), the in-flight
      // count never fell to where waiters are woken, and their partitions went unread until the others
      // drained (a 1,000,000-member broadcast's sender read 5 of its 16 low-lane partitions for most of an
      // hour, its CPU idle; test/integration/runtime-host.test.ts)
      if (this.core.capacity.blocked) {
        await this.waitForRoom(w);
        continue;
      }
      const blocking = !w.backlogged;
      const room = blocking ? (this.core.capacity.room(1) > 0 ? this.idleShare() : 0) : this.core.capacity.reserve(this.backlogShare());
      if (room === 0) {
        await this.waitForRoom(w);
        continue;
      }
      let reply: [string, [string, string[]][]][] | null = null;
      // the reservation is given back after the entries that came are dispatched (counted in flight):
      // given back before, it woke the waiting readers while those entries were not yet counted, and this
      // reader, looping on, queued first for the next room, every time (one partition read, the rest starved)
      let held = blocking ? 0 : room;
      const giveBack = () => {
        if (held) this.core.capacity.release(held);
        held = 0;
      };
      w.readSince = performance.now();
      try {
        const conn = w.reader!.conn;
        reply = (
          blocking
            ? await conn.xreadgroup("GROUP", GROUP, this.core.id, "COUNT", room, "BLOCK", this.core.opts.blockMs, "STREAMS", w.stream, ">")
            : await conn.xreadgroup("GROUP", GROUP, this.core.id, "COUNT", room, "STREAMS", w.stream, ">")
        ) as any;
        failures = 0;
        w.backlogged = (reply?.[0]?.[1].length ?? 0) >= room;
      } catch (err) {
        giveBack();
        if (!this.live(w, gen)) break;
        if (String((err as Error).message).includes("NOGROUP")) {
          await this.ensureGroup(w.stream).catch(() => {});
          continue;
        }
        if (w.reader!.stale(err)) {
          // Redis Cluster: the slot's master changed (failover, resharding) or went away.
          this.core.log.warn({ err, actor: w.runner.actor.name, partition: w.p }, "partition reader follows its slot to another node");
          await sleep(Math.min(2000, 100 * 2 ** failures++));
          if (this.live(w, gen)) await this.reconnect(w);
          continue;
        }
        this.core.log.error({ err, actor: w.runner.actor.name, partition: w.p }, "XREADGROUP failed");
        await sleep(Math.min(2000, 100 * 2 ** failures++));
        continue;
      } finally {
        w.readSince = 0;
        w.lastReadAt = performance.now();
      }
      // Entries read are pending under this host whatever happens next: they always run.
      try {
        if (reply) this.mailboxes.dispatch(w, reply[0]![1]);
      } finally {
        giveBack();
      }
    }
  }

  /**
   * What a backlogged stream's read asks for: a batch, or, when several streams are backlogged, an equal
   * part of maxInFlight each. A batch each let four partitions fill the room (4 x 500 of 2,000) while the
   * other twelve waited for it: only the keys of those four could run, one message at a time each, and a
   * sender with 600 free slots ran 30-60 handlers and drained a backlog at ~1,200/s with its CPU idle.
   */
  private backlogShare(): number {
    let backlogged = 0;
    for (const r of this.core.runners) for (const w of r.partitions.values()) if (w.backlogged) backlogged++;
    return Math.max(1, Math.min(this.core.opts.batch, Math.ceil(this.core.opts.maxInFlight / Math.max(1, backlogged))));
  }

  /**
   * What a blocking read (an idle stream's: it may wait blockMs, holding no room) asks for: a
   * quarter of maxInFlight shared by all of the host's partitions, so what idle partitions bring at
   * once stays small. A read that comes back full marks its stream backlogged: the next
   * reads ask for a batch without blocking until one comes back short.
   */
  private idleShare(): number {
    let partitions = 0;
    for (const r of this.core.runners) partitions += r.partitions.size;
    return Math.max(1, Math.min(this.core.opts.batch, Math.floor(this.core.opts.maxInFlight / (4 * Math.max(1, partitions)))));
  }

  private async claimPending(w: PartitionWorker, gen: number) {
    const redis = this.core.redis;
    let cursor = "0-0";
    do {
      const reply = (await redis.xautoclaim(w.stream, GROUP, this.core.id, 0, cursor, "COUNT", this.core.opts.batch)) as unknown as [
        string,
        Array<[string, string[]] | null>,
        string[]?,
      ];
      w.lastReadAt = performance.now();
      cursor = reply[0];
      const entries = reply[1].filter((e): e is [string, string[]] => !!e && !!e[1]);
      // Redis < 7 returns trimmed-away entries as nil: they can never run, so ack them.
      const gone = reply[1].length - entries.length;
      if (gone > 0) this.core.log.warn({ partition: w.p, gone }, "claimed entries no longer in the stream");
      if (!entries.length) continue;
      const ids = entries.map((e) => e[0]);
      // What each entry cost so far: its last recorded handler failure and its last started run
      // (a redelivered message marks its run before starting, runtime/mailboxes.ts). The stream's
      // delivery count says only whether it was delivered before (2) or given back unstarted by a
      // graceful stop (1): every claim raises it, so entries that only waited in hosts killed
      // again and again would otherwise reach the dead letters without ever running.
      const pipeline = redis.pipeline();
      pipeline.xpending(w.stream, GROUP, ids[0]!, ids[ids.length - 1]!, ids.length * 2, this.core.id);
      pipeline.hmget(w.attempts, ...ids.flatMap((id) => [id, runMarkOf(id)]));
      const [[e1, pending], [e2, marks]] = ((await pipeline.exec()) ?? []) as [Error | null, any][];
      if (e1) throw e1;
      if (e2) throw e2;
      const timesDelivered = new Map<string, number>((pending as [string, string, number, number][]).map((row) => [row[0], Number(row[3])]));
      const m = marks as (string | null)[];
      this.mailboxes.dispatch(w, entries, (i) =>
        Math.max(Math.min(2, timesDelivered.get(entries[i]![0]) ?? 1), Number(m[2 * i] ?? 0) + 1, Number(m[2 * i + 1] ?? 0) + 1),
      );
      this.core.log.info({ actor: w.runner.actor.name, partition: w.p, claimed: entries.length }, "claimed pending entries of the previous owner");
      if (this.core.capacity.room(1) === 0) await this.waitForRoom(w);
    } while (cursor !== "0-0" && this.live(w, gen));
  }
}
