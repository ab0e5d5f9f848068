// Subprocess entry point for workflow recovery tests: one runtime host for the workflow-run actor on
// the test's Redis prefix, with a short lease and a small TIME_SCALE. Stops on SIGTERM; prints "ready <id>".
import { workflowRun } from "../../actors/workflow-run";
import { config } from "../../config";
import { createRuntime } from "../../runtime";
import { serveUntilSigterm } from "./spawn-ready";

const hostId = process.env.WF_HOST_ID ?? `wf-worker-${process.pid}`;
const runtime = createRuntime({
  redisUrl: config.redisUrl,
  prefix: config.redisPrefix,
  partitions: config.partitions,
  timeScale: Number(process.env.WF_TIME_SCALE ?? 0.001),
});
const host = runtime.startHost({ actors: [workflowRun], hostId, leaseMs: Number(process.env.WF_LEASE_MS ?? 1500), blockMs: 100, timerPollMs: 10 });

await serveUntilSigterm(hostId, host.ready, () => host.stop().then(() => runtime.close()));
