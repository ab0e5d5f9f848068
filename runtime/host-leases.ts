// Partition leases of one host: a heartbeat in the actor's host registry, renewal of held leases,
// and taking or giving back partitions so each live host holds about P / live of them.
import { leaseTarget, planLeases } from "./balance";
import type { ActorRunner, HostCore, PartitionWorker } from "./host-state";
import { SlotBatch } from "./slot-batch";

/** What the lease keeper asks of the host when it wins, loses or gives back a partition. */
export interface PartitionOwner {
  /** Starts reading a partition whose lease was just won; resolves once reading started (or failed). */
  startPartition(runner: ActorRunner, p: number): Promise<void>;
  releasePartition(w: PartitionWorker): Promise<void>;
  loseLease(w: PartitionWorker): void;
}

export class LeaseKeeper {
  constructor(
    private readonly core: HostCore,
    private readonly owner: PartitionOwner,
  ) {}

  /** Leaves every actor's host registry (graceful stop): the others raise their targets. */
  async leave(): Promise<void> {
    const keys = this.core.runtime.keys;
    await Promise.all(
      this.core.runners.map((r) => this.core.redis.nmsRuntime_heartbeat(keys.hosts(r.actor.name), this.core.id, this.core.opts.leaseMs, 1).catch(() => 0)),
    );
  }

  /**
   * One round: heartbeat, renew what is held (or notice it is lost), then release a surplus or
   * acquire free partitions. `awaitStarts` makes the round wait until new partitions are being
   * read (the first round, for Host.ready); later rounds never wait on a partition's start, so a
   * slow start (pending entries to claim, a full host) cannot hold up lease renewals.
   */
  async tick(awaitStarts: boolean): Promise<void> {
    const { redis, runtime, opts, id } = this.core;
    const keys = runtime.keys;
    const stopping = this.core.stopping;
    for (const runner of this.core.runners) {
      const name = runner.actor.name;
      const live = stopping ? 1 : Number(await redis.nmsRuntime_heartbeat(keys.hosts(name), id, opts.leaseMs, 0));

      const held = [...runner.partitions.values()].filter((w) => w.state !== "lost");
      if (held.length) {
        const batch = new SlotBatch(redis);
        // Built and sent in one synchronous step, so a release (DEL) issued later runs after it.
        for (const w of held) {
          const lease = keys.lease(name, w.p);
          batch.add(lease, (pipeline) => pipeline.nmsRuntime_renewLease(lease, id, opts.leaseMs, w.state === "releasing" ? 0 : 1));
        }
        const results = await batch.exec();
        held.forEach((w, i) => {
          const [err, ok] = results[i] ?? [null, 0];
          if (!err && Number(ok) === 0 && w.state !== "releasing") this.owner.loseLease(w);
        });
      }
      if (stopping) continue;

      const active = [...runner.partitions.values()].filter((w) => w.state === "reading" || w.state === "starting").map((w) => w.p);
      const target = leaseTarget(runner.P, live);
      if (active.length > target) {
        const plan = planLeases({ owned: active, free: [], target, order: runner.order });
        for (const p of plan.release) {
          const w = runner.partitions.get(p);
          if (w) void this.owner.releasePartition(w);
        }
        continue;
      }
      if (active.length === target) continue;

      const candidates = runner.order.filter((p) => !runner.partitions.has(p));
      const existing = new SlotBatch(redis);
      for (const p of candidates) existing.add(keys.lease(name, p), (pipeline) => pipeline.exists(keys.lease(name, p)));
      const exists = await existing.exec();
      const free = candidates.filter((_, i) => Number(exists[i]?.[1]) === 0);
      const plan = planLeases({ owned: active, free, target, order: runner.order });
      if (!plan.acquire.length) continue;
      const acquire = new SlotBatch(redis);
      for (const p of plan.acquire) acquire.add(keys.lease(name, p), (pipeline) => pipeline.set(keys.lease(name, p), id, "PX", opts.leaseMs, "NX"));
      const won = await acquire.exec();
      const started: Promise<void>[] = [];
      plan.acquire.forEach((p, i) => {
        if (won[i]?.[1] === "OK" && !this.core.stopping) started.push(this.owner.startPartition(runner, p));
      });
      if (awaitStarts) await Promise.all(started);
    }
  }
}
