// The actors and jobs of the one-process start (`npm start`) on a thread of their own, so the API keeps
// the main thread to itself: the process uses two cores for JavaScript, as the Procfile split does.
import { logger } from "../basics/log";
import { threadMetrics } from "../store/metrics";
import { processKinds, startProcessKinds } from "./process-kinds";

/** Messages of scripts/start.ts (main thread) and this thread. */
export type ToActorThread = { type: "stop" } | { type: "metrics"; id: number };
export type FromActorThread = { type: "ready" } | { type: "stopped" } | { type: "metrics"; id: number; metrics: unknown[]; error?: string };

declare const self: Worker;
const post = (m: FromActorThread) => self.postMessage(m);

process.on("unhandledRejection", (err) => logger.error({ err }, "unhandled promise rejection (actor thread)"));

const actors = await startProcessKinds(processKinds());
self.onmessage = async (e: MessageEvent<ToActorThread>) => {
  const m = e.data;
  if (m.type === "stop") {
    await actors.stop().catch((err) => logger.error({ err }, "error while stopping the actors"));
    post({ type: "stopped" });
  } else if (m.type === "metrics") {
    try {
      post({ type: "metrics", id: m.id, metrics: await threadMetrics() });
    } catch (err) {
      post({ type: "metrics", id: m.id, metrics: [], error: String((err as Error)?.message ?? err) });
    }
  }
};
post({ type: "ready" });
