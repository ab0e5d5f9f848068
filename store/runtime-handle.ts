// This process's handle on the actor runtime (a Redis connection set, hence store/), built once from
// config.ts: domain/ sends and schedules through getRuntime(), actors/ and jobs/ host and lease on it.
import { createRuntime, type Runtime } from "../runtime";
import { config } from "../config";
import { logger } from "../basics/log";
import { runtimeObserver } from "../basics/metrics";

let instance: Runtime | null = null;

export function getRuntime(): Runtime {
  instance ??= createRuntime({
    redisUrl: config.redisUrl,
    prefix: config.redisPrefix,
    partitions: config.partitions,
    timeScale: config.timeScale,
    logger: logger.child({ component: "runtime" }),
    observer: runtimeObserver,
  });
  return instance;
}
