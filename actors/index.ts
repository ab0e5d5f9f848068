// The actor kinds this service runs and how a process starts a host for some of them.
// Each actor file registers here; scripts/start.ts and the Procfile name kinds from this list.
import type { Actor } from "../runtime/actor";
import { channelSender } from "./channel-sender";
import { startReconciler } from "./reconciler";
import { workflowRun } from "./workflow-run";
import { getRuntime } from "../store/runtime";

export interface RunningActors {
  stop(): Promise<void>;
}

/** Stream actors run in one runtime host per process; periodic jobs (cron-like) start themselves. */
const streamActors: Record<string, Actor<any>> = {
  "channel-sender": channelSender,
  "workflow-run": workflowRun,
};
const periodic: Record<string, () => RunningActors> = {
  reconciler: () => startReconciler(),
};

const kinds: string[] = [...Object.keys(streamActors), ...Object.keys(periodic)];

export function actorKinds(): string[] {
  return [...kinds];
}

export async function startActors(names: string[]): Promise<RunningActors> {
  const running: RunningActors[] = [];
  const actors = names.filter((n) => streamActors[n]).map((n) => streamActors[n]!);
  if (actors.length) {
    const host = getRuntime().startHost({ actors });
    await host.ready;
    running.push(host);
  }
  for (const n of names) if (periodic[n]) running.push(periodic[n]!());
  return {
    async stop() {
      for (const r of running.reverse()) await r.stop();
    },
  };
}
