// This process's handle on the actor runtime, configured from config.ts: the HTTP tier uses it
// to send and schedule messages, scripts/start.ts to host actors. One Redis connection set per process.
import { createRuntime } from "../runtime";
import { config } from "../config";
import { logger } from "../basics/log";

let instance: ReturnType<typeof createRuntime> | null = null;

export function getRuntime(): ReturnType<typeof createRuntime> {
  instance ??= createRuntime({
    redisUrl: config.redisUrl,
    prefix: config.redisPrefix,
    partitions: config.partitions,
    timeScale: config.timeScale,
    logger: logger.child({ component: "runtime" }),
  } as any);
  return instance;
}
