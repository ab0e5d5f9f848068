// Entry point of a service process for multi-process tests (what `npm start` runs, with test knobs):
// the API on PORT (0 = any) and/or a channel-sender host with the reconciler scoped to one tenant
// (SVC_ONLY=api|actors picks one; SVC_TENANT_ID, SVC_RECONCILE_EVERY_MS, SVC_STALE_AFTER_MS, SVC_HOST_ID).
// Prints "listening <port>" (0 without the API) once ready; logs go to stdout as JSON lines; stops on SIGTERM.
import { channelSender } from "../../actors/channel-sender";
import { startReconciler } from "../../jobs/reconciler";
import { startServer } from "../../http/server";
import { getRuntime } from "../../store/runtime-handle";

const env = process.env;
const stops: (() => Promise<void>)[] = [];
let port = 0;
if (env.SVC_ONLY !== "actors") {
  const server = startServer(Number(env.PORT ?? 0), "127.0.0.1");
  port = server.port;
  stops.push(() => server.stop());
}
if (env.SVC_ONLY !== "api") {
  const host = getRuntime().startHost({ actors: [channelSender], leaseMs: 3000, blockMs: 200, timerPollMs: 50, hostId: env.SVC_HOST_ID });
  await host.ready;
  const reconciler = startReconciler({
    everyMs: Number(env.SVC_RECONCILE_EVERY_MS ?? 500),
    staleAfterMs: Number(env.SVC_STALE_AFTER_MS ?? 3000),
    tenantId: env.SVC_TENANT_ID,
  });
  stops.push(() => host.stop(), () => reconciler.stop());
}
console.log(`listening ${port}`);

process.on("SIGTERM", async () => {
  for (const stop of stops.reverse()) await stop();
  await getRuntime().close();
  process.exit(0);
});
