// Subprocess entry point for the webhook crash test: one webhook-dispatcher host and its relay loop,
// exactly as the Procfile's webhook-dispatcher line runs them, with a short lease so a successor
// takes over quickly after a kill -9. Prints "ready <host id>"; stops on SIGTERM.
import { startWebhookRelay, webhookDispatcher, WEBHOOK_HOST_OPTIONS } from "../../actors/webhook-dispatcher";
import { getRuntime } from "../../store/runtime";

const hostId = process.env.RT_HOST_ID ?? `webhooks-${process.pid}`;
const runtime = getRuntime();
const host = runtime.startHost({ ...WEBHOOK_HOST_OPTIONS, actors: [webhookDispatcher], hostId, leaseMs: 1500, blockMs: 100, timerPollMs: 20 });
const relay = startWebhookRelay({ everyMs: 20 });

process.on("SIGTERM", () => {
  void relay
    .stop()
    .then(() => host.stop())
    .then(() => runtime.close())
    .then(() => process.exit(0));
});

await host.ready;
console.log(`ready ${hostId}`);
