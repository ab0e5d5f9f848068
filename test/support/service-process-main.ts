// Entry point of a whole-service process for multi-process tests (what `npm start` runs, with test
// knobs): the API on PORT (0 = any), a channel-sender host, and the reconciler scoped to one tenant
// (SVC_TENANT_ID) with a short period and staleness (SVC_RECONCILE_EVERY_MS, SVC_STALE_AFTER_MS).
// Prints "listening <port>" once ready; logs go to stdout as JSON lines; stops on SIGTERM.
import { channelSender } from "../../actors/channel-sender";
import { startReconciler } from "../../actors/reconciler";
import { startServer } from "../../http/server";
import { getRuntime } from "../../store/runtime";

const env = process.env;
const server = startServer(Number(env.PORT ?? 0), "127.0.0.1");
const runtime = getRuntime();
const host = runtime.startHost({ actors: [channelSender], leaseMs: 3000, blockMs: 200, timerPollMs: 50, hostId: env.SVC_HOST_ID });
await host.ready;
const reconciler = startReconciler({
  everyMs: Number(env.SVC_RECONCILE_EVERY_MS ?? 500),
  staleAfterMs: Number(env.SVC_STALE_AFTER_MS ?? 3000),
  tenantId: env.SVC_TENANT_ID,
});
console.log(`listening ${server.port}`);

process.on("SIGTERM", async () => {
  await reconciler.stop();
  await host.stop();
  await server.stop();
  await runtime.close();
  process.exit(0);
});
