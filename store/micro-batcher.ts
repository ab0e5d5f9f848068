// Group commit for the store: concurrent single-item calls (accepts, attempt claims, outcomes,
// suppression checks) coalesce into one statement per batch, one round trip shared by many rows.

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

  constructor(
    private readonly run: (items: I[]) => Promise<O[]>,
    private readonly opts: { maxSize: number; maxWaitMs: number; maxConcurrent: number },
  ) {}

  submit(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.items.push(item);
      this.waiters.push({ resolve, reject });
      if (this.running >= this.opts.maxConcurrent) return; // a finishing batch picks these up
      if (this.items.length >= this.opts.maxSize) this.start();
      else if (!this.timer) this.timer = setTimeout(() => this.start(), this.opts.maxWaitMs);
    });
  }

  private start(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.items.length === 0 || this.running >= this.opts.maxConcurrent) return;
    const items = this.items.splice(0, this.opts.maxSize);
    const waiters = this.waiters.splice(0, items.length);
    this.running++;
    this.run(items)
      .then(
        (out) => waiters.forEach((w, i) => w.resolve(out[i]!)),
        (err) => waiters.forEach((w) => w.reject(err)),
      )
      .finally(() => {
        this.running--;
        // whatever queued meanwhile has waited long enough: go at once
        if (this.items.length > 0) this.start();
      });
  }
}
