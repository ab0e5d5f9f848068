// Partition leases of one host: a heartbeat in the actor's host registry, renewal of held leases,
// and taking or giving back partitions so each live host holds about P / live of them.
import { leaseTarget, planLeases } from "./balance";
import type { ActorRunner, HostCore, PartitionWorker } from "./host-state";
import { SlotBatch } from "./slot-batch";
import { isLocalPeer, provablyDead } from "./host-identity";

/** What the lease keeper asks of the host when it wins, loses or gives back a partition. */
export interface PartitionOwner {
  /** Starts reading a partition whose lease was just won; resolves once reading started (or failed). */
  startPartition(runner: ActorRunner, p: number): Promise<void>;
  releasePartition(w: PartitionWorker): Promise<void>;
  loseLease(w: PartitionWorker): void;
}

export class LeaseKeeper {
  /** Live hosts of this machine seen in the registries: the watchdog checks each second whether one died. */
  private readonly localPeers = new Set<string>();

  constructor(
    private readonly core: HostCore,
    private readonly owner: PartitionOwner,
  ) {}

  /**
   * True when a host of this machine seen alive at the last round has died since (its pid is gone):
   * the caller runs a lease round at once instead of waiting for its lease to expire.
   */
  peerDied(): boolean {
    let died = false;
    for (const peer of this.localPeers) {
      if (provablyDead(peer)) {
        this.localPeers.delete(peer);
        died = true;
      }
    }
    return died;
  }

  /** Leaves every actor's host registry (graceful stop): the others raise their targets. */
  async leave(): Promise<void> {
    const keys = this.core.runtime.keys;
    await Promise.all(
      this.core.runners.map((r) => this.core.redis.nmsRuntime_heartbeat(keys.hosts(r.actor.name), this.core.id, this.core.opts.leaseMs, 1).catch(() => 0)),
    );
  }

  /**
   * One round: heartbeat, renew what is held (or notice it is lost), then release a surplus or
   * acquire free partitions. Every actor's heartbeat and every held lease's renewal go out in one
   * pipeline (one round trip per host and round: an idle process makes a round every leaseMs / 3
   * per host). `awaitStarts` makes the round wait until new partitions are being read (the first
   * round, for Host.ready); later rounds never wait on a partition's start, so a slow start
   * (pending entries to claim, a full host) cannot hold up lease renewals.
   */
  async tick(awaitStarts: boolean): Promise<void> {
    const { redis, runtime, opts, id } = this.core;
    const keys = runtime.keys;
    const stopping = this.core.stopping;
    // Built and sent in one synchronous step, so a release (DEL) issued later runs after it.
    const batch = new SlotBatch(redis);
    const rounds = this.core.runners.map((runner) => {
      const name = runner.actor.name;
      const beatAt = batch.length;
      if (!stopping) batch.add(keys.hosts(name), (pipeline) => pipeline.nmsRuntime_heartbeat(keys.hosts(name), id, opts.leaseMs, 0));
      const held = [...runner.partitions.values()].filter((w) => w.state !== "lost");
      const renewAt = batch.length;
      for (const w of held) {
        const lease = keys.lease(name, w.p);
        batch.add(lease, (pipeline) => pipeline.nmsRuntime_renewLease(lease, id, opts.leaseMs, w.state === "releasing" ? 0 : 1));
      }
      return { runner, beatAt, held, renewAt };
    });
    const replies = batch.length ? await batch.exec() : [];
    for (const { held, renewAt } of rounds) {
      held.forEach((w, i) => {
        const [err, ok] = replies[renewAt + i] ?? [null, 0];
        if (!err && Number(ok) === 0 && w.state !== "releasing") this.owner.loseLease(w);
      });
    }
    if (stopping) return;

    let failed: Error | null = null;
    for (const { runner, beatAt } of rounds) {
      const name = runner.actor.name;
      const [beatErr, beat] = replies[beatAt] ?? [new Error("no heartbeat reply"), null];
      if (beatErr) {
        // its renewals went out all the same; balancing waits for the next round
        failed ??= beatErr;
        continue;
      }
      // A host of this machine whose process is gone is dropped from the registry now, not after
      // leaseMs of silence, so the balance target counts only the living (docs/runtime.md, takeover)
      const members = (beat as string[]).map(String);
      let live = members.length;
      const dead = members.filter((m) => m !== id && provablyDead(m));
      if (dead.length) {
        await redis.zrem(keys.hosts(name), ...dead);
        live = Math.max(1, live - dead.length);
        this.core.log.info({ actor: name, dead }, "hosts of this machine died: taking their partitions now");
      }
      for (const m of members) if (!dead.includes(m) && isLocalPeer(m)) this.localPeers.add(m);

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
      for (const p of candidates) existing.add(keys.lease(name, p), (pipeline) => pipeline.get(keys.lease(name, p)));
      const holders = await existing.exec();
      // free: nobody holds it, or its holder is a process of this machine that is gone (kill -9,
      // OOM): taken now by compare-and-set instead of after its lease runs out
      const deadHolder = new Map<number, string>();
      const free = candidates.filter((p, i) => {
        const [err, holder] = holders[i] ?? [null, null];
        if (err) return false;
        if (holder === null || holder === undefined) return true;
        if (holder !== id && provablyDead(String(holder))) {
          deadHolder.set(p, String(holder));
          return true;
        }
        return false;
      });
      const plan = planLeases({ owned: active, free, target, order: runner.order });
      if (!plan.acquire.length) continue;
      const acquire = new SlotBatch(redis);
      for (const p of plan.acquire) {
        const lease = keys.lease(name, p);
        const dead = deadHolder.get(p);
        if (dead) acquire.add(lease, (pipeline) => pipeline.nmsRuntime_takeLease(lease, dead, id, opts.leaseMs));
        else acquire.add(lease, (pipeline) => pipeline.set(lease, id, "PX", opts.leaseMs, "NX"));
      }
      const won = await acquire.exec();
      if (deadHolder.size) this.core.log.info({ actor: name, partitions: plan.acquire.filter((p) => deadHolder.has(p)) }, "took partitions of a dead host of this machine");
      const started: Promise<void>[] = [];
      plan.acquire.forEach((p, i) => {
        const reply = won[i]?.[1];
        if ((reply === "OK" || Number(reply) === 1) && !this.core.stopping) started.push(this.owner.startPartition(runner, p));
      });
      if (awaitStarts) await Promise.all(started);
    }
    if (failed) throw failed;
  }
}
