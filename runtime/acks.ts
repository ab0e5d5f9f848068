// Acks of one host, buffered: everything acked within ackDelayMs (or a batch's worth) goes to
// Redis in one pipeline of XACKs; a failed flush puts its ids back and tries again.
import { GROUP, runMarkOf } from "./keys";
import { sleep, type HostCore, type PartitionWorker } from "./host-state";
import { SlotBatch } from "./slot-batch";

export class AckBuffer {
  private buffered = 0;
  private scheduled = false;
  private readonly flushes = new Set<Promise<void>>();

  constructor(private readonly core: HostCore) {}

  ack(w: PartitionWorker, id: string, clearAttempts: boolean): void {
    w.acks.push(id);
    w.untrimmed = true;
    if (clearAttempts) w.clearAttempts.push(id, runMarkOf(id));
    if (++this.buffered >= this.core.opts.batch) this.flush();
    else if (!this.scheduled) {
      this.scheduled = true;
      // a few ms let one XACK per partition carry many ids (runtime/types.ts ackDelayMs)
      const delay = this.core.opts.ackDelayMs;
      if (delay > 0) setTimeout(() => this.flush(), delay);
      else setImmediate(() => this.flush());
    }
  }

  flush(): void {
    this.scheduled = false;
    if (this.buffered === 0) return;
    this.buffered = 0;
    const batch = new SlotBatch(this.core.redis);
    const sent: Array<[PartitionWorker, string[], string[]]> = [];
    for (const r of this.core.runners) {
      for (const w of r.partitions.values()) {
        if (!w.acks.length) continue;
        const ids = w.acks;
        const clears = w.clearAttempts;
        w.acks = [];
        w.clearAttempts = [];
        batch.add(w.stream, (pipeline) => {
          pipeline.xack(w.stream, GROUP, ...ids);
          if (clears.length) pipeline.hdel(w.attempts, ...clears);
        });
        sent.push([w, ids, clears]);
      }
    }
    const requeue = (err: unknown) => {
      this.core.log.error({ err }, "ack flush failed; retrying");
      for (const [w, ids, clears] of sent) {
        w.acks.push(...ids);
        w.clearAttempts.push(...clears);
        this.buffered += ids.length;
      }
      return sleep(200).then(() => this.flush());
    };
    const p: Promise<void> = batch
      .exec()
      .then((results) => {
        const failed = results.find(([e]) => e);
        if (failed) return requeue(failed[0]);
      }, requeue)
      .catch((err) => this.core.log.error({ err }, "ack flush bookkeeping failed"))
      .finally(() => this.flushes.delete(p));
    this.flushes.add(p);
  }

  /** Flushes now and waits until nothing is buffered or in flight. */
  async flushAll(): Promise<void> {
    this.flush();
    while (this.flushes.size) await Promise.all([...this.flushes]);
  }
}
