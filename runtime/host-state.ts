// What the parts of a host share: resolved options, the per-actor runners and per-partition
// workers, and the in-flight accounting (Capacity) that makes readers pause under back-pressure.
import type { Actor, RuntimeLogger } from "./actor";
import type { FairSemaphore } from "./fair-semaphore";
import type { ReaderConnection } from "./reader-connection";
import type { ScriptedRedis } from "./scripts";
import type { Semaphore } from "./semaphore";
import type { HostOptions, Runtime, RuntimeObserver } from "./types";

export interface ResolvedHostOptions {
  leaseMs: number;
  batch: number;
  blockMs: number;
  concurrency: number;
  maxInFlight: number;
  timerPollMs: number;
  timerIdleMs: number;
  trimIntervalMs: number;
  deadLetterMaxLen: number;
  forgetIdleConsumersMs: number;
  handlerDeadlineMs: number;
  watchdogMs: number;
  readerStallMs: number;
  shedAfterMs: number;
  ackDelayMs: number;
}

export function resolveHostOptions(opts: HostOptions): ResolvedHostOptions {
  const leaseMs = opts.leaseMs ?? 10_000;
  const batch = opts.batch ?? 500;
  const concurrency = opts.concurrency ?? 200;
  // Each idle read is a round trip per partition (112 partitions under npm start): 30 s keeps an idle
  // process at about four reads a second (10 s: eleven); a message ends a blocked read at once and
  // stop() unblocks readers at once, so nothing waits on it. A reader silent for blockMs + 10 s is restarted.
  const blockMs = opts.blockMs ?? 30_000;
  return {
    leaseMs,
    batch,
    blockMs,
    concurrency,
    maxInFlight: opts.maxInFlight ?? Math.max(batch * 4, concurrency * 2),
    timerPollMs: opts.timerPollMs ?? 200,
    timerIdleMs: Math.max(opts.timerIdleMs ?? 5000, opts.timerPollMs ?? 0),
    trimIntervalMs: opts.trimIntervalMs ?? 10_000,
    deadLetterMaxLen: opts.deadLetterMaxLen ?? 100_000,
    forgetIdleConsumersMs: opts.forgetIdleConsumersMs ?? Math.max(60_000, leaseMs * 6),
    handlerDeadlineMs: opts.handlerDeadlineMs ?? 30_000,
    watchdogMs: opts.watchdogMs ?? 1000,
    readerStallMs: opts.readerStallMs ?? blockMs + 10_000,
    shedAfterMs: opts.shedAfterMs ?? 5000,
    ackDelayMs: opts.ackDelayMs ?? 10,
  };
}

export interface ActorRunner {
  actor: Actor<any>;
  P: number;
  order: number[];
  /** the actor's own concurrency cap, when it has one */
  semaphore: Semaphore | undefined;
  partitions: Map<number, PartitionWorker>;
}

export type WorkerState = "starting" | "reading" | "releasing" | "lost";

export interface PartitionWorker {
  runner: ActorRunner;
  p: number;
  stream: string;
  attempts: string;
  timers: string;
  timerData: string;
  state: WorkerState;
  /** The reader's own connection (on a cluster, to its slot's master). */
  reader?: ReaderConnection;
  /** Set once reading must end (release, lost lease, host stop). */
  stopping: boolean;
  /** The current reader loop; replaced when the watchdog restarts a stalled reader. */
  readerDone: Promise<void>;
  /** Bumped on every reader (re)start: a loop that sees another generation ends itself. */
  generation: number;
  /** performance.now() when the pending XREADGROUP was sent, 0 while none is outstanding. */
  readSince: number;
  /** performance.now() of the last read that returned (or of the reader's start). */
  lastReadAt: number;
  /** true while the reader waits for in-flight capacity (a legitimate pause, not a stall). */
  waitingForCapacity: boolean;
  /** The last read came back full (a backlog): the next asks for a batch without blocking; else it blocks for an idle share. */
  backlogged: boolean;
  inFlight: number;
  drainWaiters: Array<() => void>;
  acks: string[];
  /** Something was acked since the last trim (or the partition is new here): an idle stream is not trimmed again. */
  untrimmed: boolean;
  clearAttempts: string[];
  /** Keys whose earlier message was left pending at stop: later ones must wait for the next owner too. */
  abandoned: Set<string>;
  /** Entries left pending without running here (id, delivery count when read): their count is given back at release. */
  unstarted: Array<[string, number]>;
  wakers: Set<() => void>;
}

export interface HostCounters {
  deferred: number;
  deadlineMisses: number;
  readerRestarts: number;
}

/** What every part of a host sees. */
export interface HostCore {
  readonly id: string;
  readonly runtime: Runtime;
  readonly redis: ScriptedRedis;
  readonly log: RuntimeLogger;
  readonly opts: ResolvedHostOptions;
  readonly runners: ActorRunner[];
  readonly capacity: Capacity;
  readonly slots: FairSemaphore;
  readonly counters: HostCounters;
  readonly stopping: boolean;
  /** Runs the timer promotion within `ms` (a timer was scheduled or deferred for then). */
  wakeTimers(ms: number): void;
}

/**
 * Messages read and not finished, over all partitions. Readers reserve the room they ask for before
 * XREADGROUP and give back what did not come (so reads in flight at once, one per partition, cannot
 * together pull more than maxInFlight into memory: before, each asked for the free room it saw, up to
 * a batch per partition) and, when there is none, wait
 * until half of it is free again, not counting the messages `pinned` in stuck groups (a hanging
 * receiver's backlog, which cannot start however long the readers wait): otherwise a backlog of
 * more than half of maxInFlight kept every reader waiting until the watchdog deferred it. The
 * resume point stays at least `batch` below maxInFlight, so a resumed read is never a trickle.
 */
export class Capacity {
  inFlight = 0;
  /** Room reserved by reads not yet returned (reserve/release). */
  reserved = 0;
  /** Messages waiting in stuck groups, as the watchdog last counted them (setPinned). */
  private pinned = 0;
  private waiters: Array<() => void> = [];
  /** performance.now() since which some reader has been waiting, 0 when none is. */
  blockedSince = 0;
  /** Handlers finished since the start: the watchdog's measure of progress. */
  finishedTotal = 0;

  constructor(
    readonly max: number,
    private readonly batch = 0,
  ) {}

  /** In flight at or below which waiting readers resume. */
  private get resumeAt(): number {
    const half = this.max / 2;
    return Math.max(half, Math.min(this.max - this.batch, half + this.pinned));
  }

  /** The watchdog's count of messages that cannot start (FairSemaphore.stuckWaiting); readers resume if that frees them. */
  setPinned(n: number): void {
    this.pinned = n;
    this.wakeIfRoom();
  }

  /** Entries a reader may ask for now (0: wait()). */
  room(batch: number): number {
    return Math.max(0, Math.min(batch, this.max - this.inFlight - this.reserved));
  }

  /** Takes up to `want` of the room for one read (0: wait()); release() what the read did not fill. */
  reserve(want: number): number {
    const n = this.room(want);
    this.reserved += n;
    return n;
  }

  release(n: number): void {
    this.reserved -= n;
    this.wakeIfRoom();
  }

  add(n: number): void {
    this.inFlight += n;
  }

  done(n: number): void {
    this.inFlight -= n;
    this.finishedTotal += n;
    this.wakeIfRoom();
  }

  private wakeIfRoom(): void {
    if (this.waiters.length && this.inFlight + this.reserved <= this.resumeAt) this.wakeAll();
  }

  /** Resolves when a reader may read again: behind every reader already waiting (they are woken in order). */
  wait(): Promise<void> {
    if (this.waiters.length === 0 && this.inFlight + this.reserved < this.max) return Promise.resolve();
    if (!this.blockedSince) this.blockedSince = performance.now();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Wakes every waiting reader (capacity freed, or the host is stopping). */
  wakeAll(): void {
    const waiters = this.waiters;
    this.waiters = [];
    this.blockedSince = 0;
    for (const r of waiters) r();
  }

  /** Readers wait and stuck groups' messages alone keep them waiting: no finish can free them, only deferral. */
  get pinnedFull(): boolean {
    return this.waiters.length > 0 && this.pinned > this.resumeAt;
  }

  get blocked(): boolean {
    return this.waiters.length > 0;
  }
}

/** Calls one observer hook; a hook that throws is logged and ignored, never allowed to break the host. */
export function observe<K extends keyof RuntimeObserver>(core: HostCore, hook: K, event: Parameters<NonNullable<RuntimeObserver[K]>>[0]): void {
  const observer = core.runtime.observer;
  const fn = observer[hook] as ((e: typeof event) => void) | undefined;
  if (!fn) return;
  try {
    fn.call(observer, event);
  } catch (err) {
    core.log.warn({ err, hook }, "runtime observer hook threw; ignored");
  }
}

export function errorOf(err: unknown): { message: string; stack: string } {
  if (err instanceof Error) return { message: err.message, stack: err.stack ?? "" };
  return { message: String(err), stack: "" };
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
