// The host's handler slots, shared fairly: waiters queue per group (an actor, or a tenant of an
// actor with a fairness policy) and a freed slot goes to the eligible group running the fewest.
//
// A group may exceed its `share` only while the host is not busy (fewer than `busyThreshold`
// slots in use): a lone group keeps every slot below the threshold (work-conserving), and the
// slots above it stay free for groups under their share. Waiting costs nothing but memory: no
// timer, no Redis round trip (the put-back timers this replaces made a backlog circulate).

export interface GroupPolicy {
  /** Slots a group may hold once the host is busy (Infinity: no limit). */
  share: number;
  /** Slots in use from which the host counts as busy (>= limit: never busy). */
  busyThreshold: number;
}

export const UNLIMITED: GroupPolicy = { share: Infinity, busyThreshold: Infinity };

interface Waiter {
  resolve(granted: boolean): void;
  since: number;
  policy: GroupPolicy;
}

interface Group {
  running: number;
  waiters: Waiter[];
  /** index of the first waiter still waiting (shift() on a long array is O(n)) */
  head: number;
  /** performance.now() of this group's last release (or of its creation): how shedding tells stuck from busy */
  lastRelease: number;
}

export class FairSemaphore {
  private inUse = 0;
  private readonly groups = new Map<string, Group>();
  private waitingCount = 0;

  constructor(readonly limit: number) {
    if (!(limit >= 1)) throw new Error("FairSemaphore limit must be >= 1");
  }

  get running(): number {
    return this.inUse;
  }

  get waiting(): number {
    return this.waitingCount;
  }

  runningOf(group: string): number {
    return this.groups.get(group)?.running ?? 0;
  }

  waitingOf(group: string): number {
    const g = this.groups.get(group);
    return g ? g.waiters.length - g.head : 0;
  }

  private eligible(g: Group, policy: GroupPolicy): boolean {
    return this.inUse < this.limit && (g.running < policy.share || this.inUse < policy.busyThreshold);
  }

  private group(name: string): Group {
    let g = this.groups.get(name);
    if (!g) this.groups.set(name, (g = { running: 0, waiters: [], head: 0, lastRelease: performance.now() }));
    return g;
  }

  /** Takes a slot at once when the group is eligible and nobody of its group waits ahead of it. */
  tryAcquire(name: string, policy: GroupPolicy = UNLIMITED): boolean {
    const g = this.group(name);
    if (g.waiters.length - g.head > 0 || !this.eligible(g, policy)) return false;
    g.running++;
    this.inUse++;
    return true;
  }

  /** Resolves true once a slot is held; false when the wait was shed (see shed()). */
  acquire(name: string, policy: GroupPolicy = UNLIMITED): Promise<boolean> {
    if (this.tryAcquire(name, policy)) return Promise.resolve(true);
    return new Promise((resolve) => {
      this.group(name).waiters.push({ resolve, since: performance.now(), policy });
      this.waitingCount++;
    });
  }

  release(name: string): void {
    const g = this.groups.get(name);
    if (!g || g.running <= 0) throw new Error(`FairSemaphore: release of ${name} without a slot`);
    g.running--;
    this.inUse--;
    g.lastRelease = performance.now();
    this.grant();
    if (g.running === 0 && g.waiters.length === g.head) this.groups.delete(name);
  }

  /** Hands free slots to waiters: each to the eligible group with the fewest running (oldest waiter on ties). */
  private grant(): void {
    while (this.inUse < this.limit && this.waitingCount > 0) {
      let best: Group | null = null;
      for (const g of this.groups.values()) {
        if (g.waiters.length === g.head) continue;
        const w = g.waiters[g.head]!;
        if (!this.eligible(g, w.policy)) continue;
        if (!best || g.running < best.running || (g.running === best.running && w.since < best.waiters[best.head]!.since)) best = g;
      }
      if (!best) return;
      const w = best.waiters[best.head]!;
      best.waiters[best.head++] = undefined as unknown as Waiter;
      if (best.head > 1024 && best.head * 2 > best.waiters.length) {
        best.waiters = best.waiters.slice(best.head);
        best.head = 0;
      }
      this.waitingCount--;
      best.running++;
      this.inUse++;
      w.resolve(true);
    }
  }

  /**
   * Gives up waits that cannot be served soon, newest first: in every group that is stuck (it holds
   * at least its share, its oldest waiter has waited `stuckMs` and none of its slots was released
   * for `stuckMs`), all but its `keep` oldest waiters, until `max` are shed. Their acquire()
   * resolves false. A group that is merely busy (a long queue, but slots coming free) is never
   * shed: deferring its messages would only make its backlog circulate.
   * Returns how many were shed.
   */
  shed(max: number, keep: (policy: GroupPolicy) => number, stuckMs = 0): number {
    let shed = 0;
    const now = performance.now();
    for (const [name, g] of this.groups) {
      if (shed >= max) break;
      const queued = g.waiters.length - g.head;
      if (queued === 0) continue;
      const policy = g.waiters[g.head]!.policy;
      if (!this.stuck(g, now, stuckMs)) continue;
      const n = Math.min(max - shed, Math.max(0, queued - keep(policy)));
      for (let i = 0; i < n; i++) {
        const w = g.waiters.pop()!;
        this.waitingCount--;
        shed++;
        w.resolve(false);
      }
      if (g.running === 0 && g.waiters.length === g.head) this.groups.delete(name);
    }
    return shed;
  }

  /** A group with waiters that holds its share, whose oldest waiter waited and whose last release was `stuckMs` ago or more. */
  private stuck(g: Group, now: number, stuckMs: number): boolean {
    if (g.waiters.length === g.head) return false;
    const oldest = g.waiters[g.head]!;
    return g.running >= oldest.policy.share && now - oldest.since >= stuckMs && now - g.lastRelease >= stuckMs;
  }

  /**
   * Messages waiting in stuck groups (see shed()): they hold room in memory but none of them can
   * start until the group's receiver or provider answers. O(groups): the watchdog calls it once a tick.
   */
  stuckWaiting(stuckMs: number, now = performance.now()): number {
    let n = 0;
    for (const g of this.groups.values()) if (this.stuck(g, now, stuckMs)) n += g.waiters.length - g.head;
    return n;
  }

  /** Waiting count per group, largest first (for stall logs). */
  snapshot(top = 5): { group: string; running: number; waiting: number; oldestWaitMs: number }[] {
    const now = performance.now();
    return [...this.groups.entries()]
      .map(([group, g]) => ({
        group,
        running: g.running,
        waiting: g.waiters.length - g.head,
        oldestWaitMs: g.waiters.length > g.head ? Math.round(now - g.waiters[g.head]!.since) : 0,
      }))
      .sort((a, b) => b.waiting + b.running - (a.waiting + a.running))
      .slice(0, top);
  }
}
