// Group commit for the store: concurrent single-item calls (accepts, attempt claims, outcomes,
// suppression checks) coalesce into one statement per batch, one round trip shared by many rows.
import { logger } from "../basics/log";

export interface MicroBatcherOptions {
  maxSize: number;
  maxWaitMs: number;
  maxConcurrent: number;
  /**
   * When a batch of several items fails, run each item alone and settle each with its own result
   * or error, so one bad row fails only its own caller ("write a batch; if it fails, retry each row
   * alone"). Without it every item of a failed batch gets the batch's error.
   */
  retryEachAlone?: boolean;
  /** Named in the warning logged when a batch is retried item by item. */
  name?: string;
  /**
   * The wait under steady traffic: when the previous batch started less than `busyWindowMs` ago,
   * a new batch waits this long (instead of maxWaitMs) for company, so a steady few hundred items a
   * second share commits instead of paying one each. After a quiet spell the first item still goes
   * after maxWaitMs. Default: maxWaitMs (no difference). A function is read at each new batch (a
   * setting that may change while the process runs). A batcher fed by another batcher's results (the
   * accept insert after the subscriber look-up, the suppression check after the claim) needs no wait
   * of its own for those: one batch's callers resume in one turn and arrive together.
   */
  busyWaitMs?: number | (() => number);
  /** How recent the previous batch must be for busyWaitMs to apply (default 50 ms). */
  busyWindowMs?: number;
  /**
   * A waiting batch starts as soon as this many items wait (default maxSize; it still takes up to
   * maxSize when it starts): under heavy traffic the wait ends once a batch is worth its round trip,
   * so a long busyWaitMs fills batches at a few hundred items a second without adding its whole wait
   * to every item at thousands. A function is read at each submit.
   */
  startAt?: number | (() => number);
}

/** An option given as a value or as a function read each time (a setting that may change while the process runs). */
const setting = (opt: number | (() => number) | undefined): number | undefined => (typeof opt === "function" ? opt() : opt);

type Settled<O> = { ok: true; value: O } | { ok: false; error: unknown };

/**
 * Coalesces concurrent single-item calls into batch calls ("group commit"): a batch starts
 * `maxWaitMs` after its first item while fewer than `maxConcurrent` batches run; while they all
 * run, items wait and the next batch takes everything that queued (up to `maxSize`). Light load
 * keeps latency near maxWaitMs; heavy load grows batches instead of queueing small ones, so the
 * fixed cost of a round trip is shared by more rows. `run` returns one result per item.
 */
export class MicroBatcher<I, O> {
  private items: I[] = [];
  private waiters: { resolve(o: O): void; reject(e: unknown): void }[] = [];
  private timer: ReturnType<typeof setTimeout> | null = null;
  private running = 0;
  private lastStart = -Infinity;

  constructor(
    private readonly run: (items: I[]) => Promise<O[]>,
    private readonly opts: MicroBatcherOptions,
  ) {}

  submit(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.items.push(item);
      this.waiters.push({ resolve, reject });
      if (this.running >= this.opts.maxConcurrent) return; // a finishing batch picks these up
      if (this.items.length >= this.startAt()) this.start();
      else if (!this.timer) this.timer = setTimeout(() => this.start(), this.waitMs());
    });
  }

  private startAt(): number {
    const at = setting(this.opts.startAt);
    return at === undefined || !(at > 0) ? this.opts.maxSize : Math.min(at, this.opts.maxSize);
  }

  private waitMs(): number {
    const busy = setting(this.opts.busyWaitMs);
    if (busy === undefined || performance.now() - this.lastStart > (this.opts.busyWindowMs ?? 50)) return this.opts.maxWaitMs;
    return busy;
  }

  private start(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.items.length === 0 || this.running >= this.opts.maxConcurrent) return;
    const items = this.items.splice(0, this.opts.maxSize);
    const waiters = this.waiters.splice(0, items.length);
    this.running++;
    this.lastStart = performance.now();
    this.execute(items)
      .then((settled) => settled.forEach((r, i) => (r.ok ? waiters[i]!.resolve(r.value) : waiters[i]!.reject(r.error))))
      .finally(() => {
        this.running--;
        // whatever queued meanwhile has waited long enough: go at once
        if (this.items.length > 0) this.start();
      });
  }

  private async execute(items: I[]): Promise<Settled<O>[]> {
    try {
      const out = await this.run(items);
      return items.map((_, i) => ({ ok: true, value: out[i]! }));
    } catch (error) {
      if (!this.opts.retryEachAlone || items.length === 1) return items.map(() => ({ ok: false, error }));
      logger.warn({ err: error, batch: this.opts.name, size: items.length }, "batch failed; retrying its items one by one");
      const each = await Promise.allSettled(items.map((item) => this.run([item])));
      return each.map((e) => (e.status === "fulfilled" ? { ok: true, value: e.value[0]! } : { ok: false, error: e.reason }));
    }
  }
}
