// The main thread's side of the one-process start's actor thread (scripts/actor-thread-entry.ts): starts it,
// merges its metrics into this process's /metrics, stops it; a thread that dies takes the process with it.
import { logger } from "../basics/log";
import { addThreadMetrics } from "../store/metrics";
import type { FromActorThread, ToActorThread } from "./actor-thread-entry";

const METRICS_TIMEOUT_MS = 2000;

export async function startActorThread(): Promise<{ stop(): Promise<void> }> {
  const worker = new Worker(new URL("./actor-thread-entry.ts", import.meta.url).href);
  const send = (m: ToActorThread) => worker.postMessage(m);
  const waiting = new Map<number, (m: Extract<FromActorThread, { type: "metrics" }>) => void>();
  let onStopped: (() => void) | null = null;
  let nextId = 0;
  let stopping = false; // stopped on purpose, or already reported as failed: its close exits nothing
  const ready = new Promise<void>((resolve, reject) => {
    worker.onmessage = (e: MessageEvent<FromActorThread>) => {
      const m = e.data;
      if (m.type === "ready") resolve();
      else if (m.type === "stopped") onStopped?.();
      else if (m.type === "metrics") waiting.get(m.id)?.(m);
    };
    worker.onerror = (e) => {
      // an actor thread that failed leaves the process half alive: exit, and let the supervisor start it again
      stopping = true;
      logger.fatal({ err: e.message }, "the actor thread failed; exiting");
      reject(new Error(e.message));
      setTimeout(() => process.exit(1), 100);
    };
  });
  worker.addEventListener("close", () => {
    if (stopping) return;
    logger.fatal("the actor thread ended; exiting");
    setTimeout(() => process.exit(1), 100);
  });
  await ready;
  const removeMetrics = addThreadMetrics(
    () =>
      new Promise((resolve, reject) => {
        const id = nextId++;
        const timer = setTimeout(() => {
          waiting.delete(id);
          reject(new Error(`the actor thread did not answer within ${METRICS_TIMEOUT_MS} ms`));
        }, METRICS_TIMEOUT_MS);
        waiting.set(id, (m) => {
          clearTimeout(timer);
          waiting.delete(id);
          if (m.error) reject(new Error(m.error));
          else resolve(m.metrics as never);
        });
        send({ type: "metrics", id });
      }),
  );
  return {
    async stop() {
      stopping = true;
      removeMetrics();
      await new Promise<void>((resolve) => {
        onStopped = resolve;
        send({ type: "stop" });
      });
      worker.terminate();
    },
  };
}
