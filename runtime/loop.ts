// A background loop that cannot die silently: each run is bounded by a deadline, a throw or a
// rejection is logged and counted, and the next run is scheduled whatever happened to this one.
import type { RuntimeLogger } from "./actor";

export interface LoopOptions {
  name: string;
  /** Pause between the end of one run and the start of the next (a run may ask for 0: more to do, or for its own pause: a number). */
  everyMs: number;
  /** A run still unsettled after this long is logged and left behind; the loop goes on. */
  runDeadlineMs?: number;
  log: RuntimeLogger;
  /** Bindings added to every log line (actor, partition ...). */
  context?: Record<string, unknown>;
  /**
   * A pause of exactly this many ms (the loop's idle cadence: everyMs, or what its runs return when
   * there is nothing to do) ends on a multiple of it on the process clock, so every loop of the
   * process with the same cadence (one watchdog, lease round, timer promotion ... per host) wakes
   * in the same event-loop turn: one wake-up instead of one per host. Aligning shortens a pause
   * (the first one, once) or lengthens it by at most 2 ms (a timer that fired early), so nothing runs
   * noticeably later than before.
   */
  alignMs?: number;
}

/**
 * The pause that ends on a multiple of `every` on the process clock. A run that ends just before a
 * multiple (within 2 ms: Bun fires timers up to a millisecond early) counts as that multiple's run, so
 * the pause goes to the next one (at most `every` + 2 ms) instead of running again a millisecond later.
 */
export function alignedPause(now: number, every: number): number {
  const slack = Math.min(2, every / 4);
  return Math.floor((now + slack) / every) * every + every - now;
}

export class Loop {
  private timer?: ReturnType<typeof setTimeout>;
  private stopped = false;
  private current: Promise<void> | null = null;
  /** Runs that threw, rejected or missed their deadline since the start. */
  failures = 0;
  /** performance.now() of the last run's end (or of the start). */
  lastRunEnd = performance.now();
  runs = 0;
  /** The pause before the next run as planned at the end of the last one (everyMs, or what the run asked for). */
  private plannedMs: number;
  /** performance.now() at which the next run is due (Infinity while running or stopped). */
  private nextAt = Infinity;

  /** When the next run was planned for at the end of the last one (performance.now() clock). */
  get plannedWakeAt(): number {
    return this.lastRunEnd + this.plannedMs;
  }

  constructor(
    private readonly opts: LoopOptions,
    /** Returns true when there is more to do at once (the next run starts without the pause), or the pause (ms) before the next run. */
    private readonly fn: () => Promise<boolean | number | void>,
  ) {
    this.plannedMs = opts.everyMs;
  }

  start(delayMs = 0): this {
    this.schedule(delayMs);
    return this;
  }

  private schedule(ms: number) {
    if (this.stopped) return;
    clearTimeout(this.timer);
    this.nextAt = performance.now() + ms;
    this.timer = setTimeout(() => void this.runOnce(), ms);
  }

  /** Brings the next run forward to at most `ms` from now (a run in progress reschedules itself: it is woken again after it). */
  wakeIn(ms: number): void {
    if (this.stopped) return;
    const at = performance.now() + Math.max(0, ms);
    if (this.current) {
      this.wakeAfterRun = Math.min(this.wakeAfterRun, at);
      return;
    }
    if (at < this.nextAt) this.schedule(Math.max(0, ms));
  }
  private wakeAfterRun = Infinity;

  /** One run now (callers may await it); the loop's cadence continues after it. */
  runOnce(): Promise<void> {
    if (this.current) return this.current;
    const deadlineMs = this.opts.runDeadlineMs ?? Math.max(30_000, this.opts.everyMs * 10);
    let more: boolean | number = false;
    this.nextAt = Infinity;
    const run = (async () => {
      let deadline: ReturnType<typeof setTimeout> | undefined;
      try {
        const result = Promise.resolve().then(() => this.fn());
        const timedOut = new Promise<"deadline">((r) => (deadline = setTimeout(() => r("deadline"), deadlineMs)));
        const outcome = await Promise.race([result, timedOut]);
        if (outcome === "deadline") {
          this.failures++;
          this.opts.log.error({ ...this.opts.context, loop: this.opts.name, deadlineMs, failures: this.failures }, "background loop run did not settle in time; starting the next run anyway");
          result.catch((err) => this.opts.log.error({ ...this.opts.context, loop: this.opts.name, err }, "late background loop run failed"));
        } else more = outcome === true ? true : typeof outcome === "number" ? outcome : false;
      } catch (err) {
        this.failures++;
        this.opts.log.error({ ...this.opts.context, loop: this.opts.name, err, failures: this.failures }, "background loop run failed; it runs again at the next tick");
      } finally {
        clearTimeout(deadline);
      }
    })();
    this.current = run.finally(() => {
      this.current = null;
      this.runs++;
      this.lastRunEnd = performance.now();
      let pause = more === true ? 0 : typeof more === "number" ? Math.max(0, more) : this.opts.everyMs;
      const align = this.opts.alignMs;
      if (align && pause === align) pause = alignedPause(this.lastRunEnd, align);
      if (this.wakeAfterRun < Infinity) pause = Math.min(pause, Math.max(0, this.wakeAfterRun - this.lastRunEnd));
      this.wakeAfterRun = Infinity;
      this.plannedMs = pause;
      this.schedule(pause);
    });
    return this.current;
  }

  /** True when no run has ended for `factor` periods (plus the run deadline): the loop is stuck. */
  overdue(now = performance.now(), factor = 5): boolean {
    if (this.stopped) return false;
    const deadlineMs = this.opts.runDeadlineMs ?? Math.max(30_000, this.opts.everyMs * 10);
    return now - this.lastRunEnd > Math.max(this.opts.everyMs * factor, this.plannedMs + this.opts.everyMs * factor) + (this.current ? deadlineMs : 0) + 1000;
  }

  /** Resolves once a run in progress (if any) has settled. */
  async settled(): Promise<void> {
    await this.current;
  }

  /** Restarts the cadence (the watchdog's remedy for an overdue loop). */
  kick(): void {
    if (!this.current) this.schedule(0);
  }

  /** Stops scheduling; resolves when a run in progress settled (or its deadline passed). */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.current;
  }
}
