// The domain-health cron job: at each DOMAIN_HEALTH_CRON tick, exactly one process (the tick's named
// lease) sends one check message per verified domain to the domain-health actor and prunes old history.
import cron from "node-cron";
import { logger } from "../basics/log";
import { config } from "../config";
import { enqueueHealthChecks } from "../domain/sending-domains/health";
import { createLease } from "../runtime";
import { getRuntime } from "../store/runtime-handle";
import { pruneHealthChecks } from "../store/sending-domains";

/**
 * A tick's lease outlives any lateness of a second process for the same tick (node-cron fires a
 * slot only within a second of it), so the tick is never fired twice; it then simply expires.
 */
const TICK_LEASE_MS = 60 * 60_000;
/** Health history older than this is pruned by the process that fires a tick. */
export const HEALTH_HISTORY_DAYS = 90;

const log = logger.child({ component: "domain-health" });

/**
 * Fires the tick scheduled at `slot` unless another process did: the tick's own named lease
 * (`domain-health:tick:<slot ISO>`) goes to the first process that asks, and no other holder (a
 * second process, or this one asking again) gets it while it lives. Returns the checks enqueued,
 * or null when the tick was another's. Each check is also unique per (domain, tick) in PostgreSQL.
 */
export async function fireHealthTick(slot: Date): Promise<number | null> {
  const tick = slot.toISOString();
  const lease = createLease(getRuntime(), `domain-health:tick:${tick}`, { ttlMs: TICK_LEASE_MS });
  if (!(await lease.hold())) {
    log.debug({ tick, holder: lease.holder }, "domain-health tick fired by another process");
    return null;
  }
  const domains = await enqueueHealthChecks(tick);
  log.info({ tick, domains, holder: lease.holder }, "domain-health tick fired: one check per verified domain enqueued");
  await pruneHealthChecks(HEALTH_HISTORY_DAYS);
  return domains;
}

/** The schedule of one process (every process of the `domain-health` Procfile line runs one). */
export function startDomainHealthCron(expression = config.domainHealthCron): { stop(): Promise<void> } {
  if (!cron.validate(expression)) throw new Error(`DOMAIN_HEALTH_CRON ${JSON.stringify(expression)} is not a valid cron expression`);
  const task = cron.schedule(
    expression,
    async (ctx) => {
      try {
        await fireHealthTick(ctx.date);
      } catch (err) {
        log.error({ err, tick: ctx.date.toISOString() }, "domain-health tick failed; the next tick checks again");
      }
    },
    { name: "domain-health", timezone: "UTC", noOverlap: true },
  );
  return {
    async stop() {
      await task.destroy();
    },
  };
}
