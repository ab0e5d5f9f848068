// The actor kinds this service runs and how a process starts a host for some of them.
// Each actor file registers here; scripts/start.ts and the Procfile name kinds from this list.
import type { Actor } from "../runtime/actor";
import { channelSender } from "./channel-sender";
import { startReconciler } from "./reconciler";
import { domainHealth, startDomainHealthCron } from "./domain-health";
import { getRuntime } from "../store/runtime";
import { watchHost } from "../store/metrics";

export interface RunningActors {
  stop(): Promise<void>;
}

/** Stream actors run in one runtime host per process; periodic jobs (cron-like) start themselves. */
const streamActors: Record<string, Actor<any>> = {
  "channel-sender": channelSender,
  "domain-health": domainHealth,
};
const periodic: Record<string, () => RunningActors> = {
  reconciler: () => startReconciler(),
  // the same kind as the stream actor above: one Procfile line runs the schedule and the checks
  "domain-health": () => startDomainHealthCron(),
};

const kinds: string[] = [...new Set([...Object.keys(streamActors), ...Object.keys(periodic)])];

export function actorKinds(): string[] {
  return [...kinds];
}

export async function startActors(names: string[]): Promise<RunningActors> {
  const running: RunningActors[] = [];
  const actors = names.filter((n) => streamActors[n]).map((n) => streamActors[n]!);
  if (actors.length) {
    const host = getRuntime().startHost({ actors });
    await host.ready;
    const unwatch = watchHost(host);
    running.push({ stop: () => host.stop().finally(unwatch) });
  }
  for (const n of names) if (periodic[n]) running.push(periodic[n]!());
  return {
    async stop() {
      for (const r of running.reverse()) await r.stop();
    },
  };
}
