// Subprocess entry point for the webhook crash tests: one webhook-dispatcher host, its relay and repair
// loops, as the Procfile's webhook-dispatcher line runs them, with a short lease so a successor
// takes over quickly after a kill -9. Prints "ready <host id>"; stops on SIGTERM.
import { webhookDispatcher, WEBHOOK_HOST_OPTIONS } from "../../actors/webhook-dispatcher";
import { startWebhookRelay } from "../../jobs/webhook-relay";
import { getRuntime } from "../../store/runtime-handle";
import { serveUntilSigterm } from "./spawn-ready";

const hostId = process.env.RT_HOST_ID ?? `webhooks-${process.pid}`;
const runtime = getRuntime();
const host = runtime.startHost({ ...WEBHOOK_HOST_OPTIONS, actors: [webhookDispatcher], hostId, leaseMs: 1500, blockMs: 100, timerPollMs: 20 });
// the repair scan as in production unless the test sets it (WH_REPAIR_* : grace, period, page, tenant)
const env = (name: string) => (process.env[name] ? Number(process.env[name]) : undefined);
const relay = startWebhookRelay({
  everyMs: 20,
  repair: { graceMs: env("WH_REPAIR_GRACE_MS"), everyMs: env("WH_REPAIR_EVERY_MS"), limit: env("WH_REPAIR_LIMIT"), tenantId: process.env.WH_REPAIR_TENANT },
});

await serveUntilSigterm(hostId, host.ready, () => relay.stop().then(() => host.stop()).then(() => runtime.close()));
