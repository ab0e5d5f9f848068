// Test support for workflow tests: a runtime host for the channel-sender and workflow-run actors on
// this process's REDIS_PREFIX with a tiny TIME_SCALE, polling helpers, and cleanup of a tenant's rows.
import { channelSender, channelSenderHigh, channelSenderLow } from "../../actors/channel-sender";
import { workflowRun } from "../../actors/workflow-run";
import { config } from "../../config";
import { sql } from "../../store/db";
import { call } from "../support/fixtures";
import { connect, deletePrefix, sleep } from "../support/runtime-redis";
import { startDeliveryHost } from "./delivery-support";

/** The delivery host (test/integration/delivery-support.ts) with the workflow-run actor too, unless only the sender is wanted. */
export async function startWorkflowHost(opts: { timeScale?: number; actors?: "both" | "sender" } = {}) {
  const timeScale = opts.timeScale ?? 0.001;
  const restore = useTimeScale(timeScale);
  const host = await startDeliveryHost(timeScale, opts.actors === "sender" ? [channelSender] : [channelSender, channelSenderHigh, channelSenderLow, workflowRun]);
  // the files after this one (one bun process runs them all) get the TIME_SCALE they started with
  return { ...host, stop: () => host.stop().finally(restore) };
}

/**
 * This process's TIME_SCALE (config.timeScale) set to the workflow-run hosts' own: a trigger here
 * opens a digest whose window the hosts' leader waits (docs/workflows.md), so both must scale alike,
 * as every process of a deployment does.
 */
export function useTimeScale(timeScale: number): () => void {
  const saved = config.timeScale;
  (config as { timeScale: number }).timeScale = timeScale;
  return () => void ((config as { timeScale: number }).timeScale = saved);
}

/** Deletes every key of this process's prefix (streams, timers, leases): Redis as after a restart without persistence. */
export async function wipeRedis() {
  const r = connect();
  await deletePrefix(r, config.redisPrefix);
  await r.quit();
}

/** Polls the run until its status is terminal (or the deadline passes); returns the row. */
export async function waitForRun(id: string, timeoutMs = 15_000, until: (row: any) => boolean = (r) => r.status !== "running") {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const [row] = await sql`select * from workflow_runs where id = ${id}`;
    if (row && until(row)) return row;
    if (Date.now() > deadline) return row;
    await sleep(20);
  }
}

export async function createWorkflow(key: string, body: Record<string, unknown>) {
  const r = await call("POST", "/v1/workflows", { key, body });
  if (r.status !== 201) throw new Error(`workflow not created: ${r.status} ${r.text}`);
  return r.body.data;
}

export async function trigger(key: string, slug: string, body: Record<string, unknown>) {
  const r = await call("POST", `/v1/workflows/${slug}/trigger`, { key, body });
  if (r.status !== 202) throw new Error(`trigger failed: ${r.status} ${r.text}`);
  return r.body.data;
}

/** Removes a test tenant and everything it owns (tables without a foreign key to tenants by hand). */
export async function dropTenant(tenantId: string) {
  await sql`delete from events where tenant_id = ${tenantId}`;
  await sql`delete from notification_stats_hourly where tenant_id = ${tenantId}`;
  await sql`delete from notification_stats_daily where tenant_id = ${tenantId}`;
  await sql`delete from subscriber_erasures where tenant_id = ${tenantId}`;
  await sql`delete from tenants where id = ${tenantId}`;
}
