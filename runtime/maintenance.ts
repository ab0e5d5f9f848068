// A host's housekeeping: moving due timers into owned streams, trimming them, expiring handler
// runs past their deadline, and the watchdog (stalled readers, overdue loops, blocked capacity).
import { GROUP } from "./keys";
import type { Loop } from "./loop";
import type { Mailboxes } from "./mailboxes";
import type { PartitionReader } from "./partition-reader";
import { observe, type HostCore, type PartitionWorker } from "./host-state";
import { firstError, SlotBatch } from "./slot-batch";

/**
 * How long a group at its share must have waited with no slot freed before its waiters stop
 * counting against the readers' resume point (Capacity.setPinned): long enough that a busy group
 * (slots freed every few ms) never counts, short against shedAfterMs (deferral stays the last resort).
 */
const PINNED_AFTER_MS = 1000;

function readingWorkers(core: HostCore): PartitionWorker[] {
  return core.runners.flatMap((r) => [...r.partitions.values()].filter((w) => w.state === "reading"));
}

/**
 * Moves due timers of every owned partition into its stream. Resolves to true when some partition
 * had more than one call moves, else to the pause before the next run: until the earliest timer
 * left is due (at least timerPollMs after a run that moved timers, so a busy host batches them; at
 * most timerIdleMs, which bounds a lost wake-up).
 */
export async function promoteTimers(core: HostCore): Promise<boolean | number> {
  const workers = readingWorkers(core);
  if (!workers.length) return core.opts.timerIdleMs;
  const batch = new SlotBatch(core.redis);
  for (const w of workers) batch.add(w.timers, (pipeline) => pipeline.nmsRuntime_promoteTimers(w.timers, w.timerData, w.stream, core.opts.batch));
  const results = await batch.exec(); // in the order of workers
  const failed = firstError(results);
  if (failed) throw failed;
  let more = false;
  let movedAny = false;
  let next = Infinity;
  results.forEach(([, reply], i) => {
    const [moved, nextIn, ...latenessMs] = (reply as number[]).map(Number);
    if (moved! >= core.opts.batch) more = true;
    if (moved! > 0) movedAny = true;
    if (nextIn! >= 0) next = Math.min(next, nextIn!);
    const w = workers[i]!;
    if (latenessMs.length) observe(core, "timersPromoted", { actor: w.runner.actor.name, partition: w.p, latenessMs });
  });
  if (more) return true;
  return Math.min(core.opts.timerIdleMs, Math.max(movedAny ? core.opts.timerPollMs : 0, next));
}

/**
 * Trims every owned partition stream below its oldest pending entry; returns entries deleted.
 * Only partitions with acks since their last trim (or new to this host, whose gone consumers are
 * forgotten then): an idle host trims nothing. `all` trims every owned partition (trimNow).
 */
export async function trimStreams(core: HostCore, all = false): Promise<number> {
  const workers = readingWorkers(core).filter((w) => all || w.untrimmed);
  if (!workers.length) return 0;
  for (const w of workers) w.untrimmed = false;
  const batch = new SlotBatch(core.redis);
  for (const w of workers) batch.add(w.stream, (pipeline) => pipeline.nmsRuntime_trimStream(w.stream, core.opts.forgetIdleConsumersMs));
  const results = await batch.exec();
  let deleted = 0;
  for (const [err, r] of results) if (!err) deleted += Number((r as [number, string])[0]);
  return deleted;
}

/**
 * The watchdog. Each check is cheap unless something looks wrong; what it finds is logged with
 * its numbers and repaired where a repair exists (a new reader, a kicked loop, shed waiters).
 */
export class Watchdog {
  private lastProgress = { finished: 0, at: performance.now() };
  private lastBlockedLog = 0;

  constructor(
    private readonly core: HostCore,
    private readonly reader: PartitionReader,
    private readonly mailboxes: Mailboxes,
    private readonly loops: () => Loop[],
    private readonly loopNames: () => string[],
  ) {}

  async check(now = performance.now()): Promise<void> {
    this.mailboxes.expireOverdue(now);
    this.checkCapacity(now);
    this.checkLoops(now);
    await this.checkReaders(now);
  }

  /** Readers wait for capacity: shed what a stuck group holds; say so when nothing moves for long. */
  private checkCapacity(now: number) {
    const { capacity, slots, opts, log } = this.core;
    if (capacity.finishedTotal !== this.lastProgress.finished) this.lastProgress = { finished: capacity.finishedTotal, at: now };
    // A stuck group's waiters hold room without any chance to start: readers may resume past them.
    capacity.setPinned(slots.stuckWaiting(Math.min(PINNED_AFTER_MS, opts.shedAfterMs), now));
    if (!capacity.blocked) return;
    const blockedMs = now - capacity.blockedSince;
    // Stuck groups' waiters alone fill the room: no finish can wake the readers, so shed now rather
    // than after shedAfterMs of waiting (shed() still takes only groups stuck for shedAfterMs).
    if (blockedMs >= opts.shedAfterMs || capacity.pinnedFull) {
      const excess = Math.ceil(capacity.inFlight - capacity.max / 2);
      const shed = excess > 0 ? slots.shed(excess, (policy) => policy.share, opts.shedAfterMs) : 0;
      if (shed > 0) {
        log.warn(
          { shed, blockedMs: Math.round(blockedMs), inFlight: capacity.inFlight, groups: slots.snapshot() },
          "readers waited for capacity: deferred messages of groups holding their share (they come back by timer)",
        );
      }
    }
    const stuckMs = now - this.lastProgress.at;
    if (stuckMs > 30_000 && now - this.lastBlockedLog > 30_000) {
      this.lastBlockedLog = now;
      log.error(
        { blockedMs: Math.round(blockedMs), noProgressMs: Math.round(stuckMs), inFlight: capacity.inFlight, running: slots.running, waiting: slots.waiting, groups: slots.snapshot() },
        "host stalled: readers wait for capacity and no handler finished for 30 s",
      );
    }
  }

  private checkLoops(now: number) {
    const names = this.loopNames();
    this.loops().forEach((loop, i) => {
      if (!loop.overdue(now)) return;
      this.core.log.error({ loop: names[i], sinceLastRunMs: Math.round(now - loop.lastRunEnd), failures: loop.failures }, "background loop is overdue; kicking it");
      loop.kick();
    });
  }

  /** A reader that is neither reading nor legitimately waiting for capacity has stalled: restart it. */
  private async checkReaders(now: number) {
    const { opts } = this.core;
    for (const w of readingWorkers(this.core)) {
      if (w.stopping || w.waitingForCapacity) continue;
      const inRead = w.readSince > 0;
      const stalled = now - (inRead ? w.readSince : w.lastReadAt) > opts.readerStallMs;
      if (!stalled) continue;
      const numbers = await this.streamNumbers(w).catch(() => null);
      const fields = {
        actor: w.runner.actor.name,
        partition: w.p,
        notReadForMs: Math.round(now - (inRead ? w.readSince : w.lastReadAt)),
        inRead,
        inFlight: w.inFlight,
        ...numbers,
      };
      if (numbers && (numbers.lag > 0 || numbers.pending > 0)) this.core.log.error(fields, "partition reader stalled with work waiting; restarting it");
      else this.core.log.warn(fields, "partition reader stalled; restarting it");
      await this.reader.restart(w);
    }
  }

  private async streamNumbers(w: PartitionWorker): Promise<{ lag: number; pending: number }> {
    const groups = (await this.core.redis.xinfo("GROUPS", w.stream)) as unknown[][];
    for (const g of groups) {
      const f = new Map<string, unknown>();
      for (let i = 0; i + 1 < g.length; i += 2) f.set(String(g[i]), g[i + 1]);
      if (f.get("name") === GROUP) return { lag: Number(f.get("lag") ?? 0), pending: Number(f.get("pending") ?? 0) };
    }
    return { lag: 0, pending: 0 };
  }
}
