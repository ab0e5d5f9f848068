// Runs the service: the API and every actor in one process (quick start), or one Procfile
// kind with `--only <kind>` (api, or an actor name). Prints the URL, admin token and a ready line.
import { config } from "../config";
import { logger } from "../basics/log";
import { processKinds, startProcessKinds } from "./process-kinds";
// The HTTP tier, the metrics server and the blocklist are imported only by the processes that use
// them: an actor process (`--only channel-sender`) loads its own code alone, so a restart after
// kill -9 is reading its predecessor's partitions sooner (docs/runtime.md "Takeover in seconds").

const onlyIdx = process.argv.indexOf("--only");
const only = onlyIdx >= 0 ? process.argv[onlyIdx + 1] : undefined;
if (only && only !== "api" && !processKinds().includes(only)) {
  console.error(`unknown kind ${only}; expected api or one of: ${processKinds().join(", ")}`);
  process.exit(2);
}

const stops: (() => Promise<void>)[] = [];
let stopping = false;
async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  logger.info({ signal }, "shutting down: stop reading, finish in-flight work, release leases");
  const timer = setTimeout(() => process.exit(1), 30_000);
  for (const stop of [...stops].reverse()) {
    try {
      await stop();
    } catch (err) {
      logger.error({ err }, "error during shutdown");
    }
  }
  clearTimeout(timer);
  process.exit(0);
}
// Before anything starts, and so before the ready line: a signal that arrives as soon as a
// supervisor sees "ready" must reach this handler, not Bun's default (exit 130/143 mid-work).
process.on("SIGTERM", () => void shutdown("SIGTERM"));
process.on("SIGINT", () => void shutdown("SIGINT"));
// Nothing may fail without a log line: a stray rejection is logged (the loops and handlers that
// matter catch their own); an uncaught exception leaves the process in an unknown state, so it
// is logged and the process exits for its supervisor to restart (nothing is lost: work is acked
// only after commit, and the next owner claims what was pending).
process.on("unhandledRejection", (err) => logger.error({ err }, "unhandled promise rejection"));
process.on("uncaughtException", (err) => {
  logger.fatal({ err }, "uncaught exception; exiting");
  setTimeout(() => process.exit(1), 100);
});

const runsApi = !only || only === "api";
// the disposable-domain list is seeded/loaded once here, not on the first request's hot path; an
// actor process loads it at its first email (store/blocked-domains.ts), not before it reads
if (runsApi) await (await import("../store/blocked-domains")).warmBlocklist();

if (config.metricsPort !== undefined) {
  // actor processes have no other HTTP port (the API also serves /metrics on its own); started
  // first so it is stopped last and a drain can be watched
  const { startMetricsServer } = await import("../http/metrics-server");
  const metrics = startMetricsServer(config.metricsPort);
  stops.push(() => metrics.stop());
  console.log(`Metrics: ${metrics.url}/metrics`);
}
if (runsApi) {
  const { startServer } = await import("../http/server");
  const server = startServer(config.port);
  stops.push(() => server.stop());
  console.log(`NMS API listening at ${server.url}`);
  console.log(`Admin token: ${config.adminToken}${config.adminTokenGenerated ? " (generated for development, kept in .nms/dev-secrets.json)" : ""}`);
  console.log(`OpenAPI document: ${server.url}/openapi.json`);
  // sign-in links and the Origin rule use APP_URL: open the dashboard there, not at another name of this host
  console.log(`Dashboard: ${config.appUrl}${config.smtpUrl ? "" : " (no SMTP_URL: sign-in links are printed in this log)"}`);
}
// npm start: the actors on a thread of their own (scripts/actor-thread.ts); the compiled binary of the
// Procfile's actor kinds carries no thread entry, so run whole it keeps them on the main thread
if (!only && config.actorThread && !import.meta.dir.startsWith("/$bunfs")) {
  const { startActorThread } = await import("./actor-thread");
  const thread = await startActorThread();
  stops.push(() => thread.stop());
  console.log(`Actors running (a thread of their own): ${processKinds().join(", ")}`);
} else if (only !== "api") {
  const actors = await startProcessKinds(only ? [only] : processKinds());
  stops.push(() => actors.stop());
  console.log(`Actors running: ${(only ? [only] : processKinds()).join(", ") || "(none)"}`);
}
console.log(`ready: nms ${config.version} (${only ?? "api + all actors"}) pid ${process.pid}`);
