// The actor kinds this service runs and how a process starts a host for some of them.
// Each actor file registers here; scripts/start.ts and the Procfile name kinds from this list.
import type { Actor } from "../runtime/actor";
import type { HostOptions } from "../runtime";
import { channelSender } from "./channel-sender";
import { startReconciler } from "./reconciler";
import { domainHealth, startDomainHealthCron } from "./domain-health";
import { startWebhookRelay, webhookDispatcher, WEBHOOK_HOST_OPTIONS } from "./webhook-dispatcher";
import { workflowRun, WORKFLOW_HOST_OPTIONS } from "./workflow-run";
import { getRuntime } from "../store/runtime";
import { watchHost } from "../store/metrics";

export interface RunningActors {
  stop(): Promise<void>;
}

/** Stream actors run in one runtime host per process; periodic jobs (cron-like) start themselves. */
const streamActors: Record<string, Actor<any>> = {
  "channel-sender": channelSender,
  "domain-health": domainHealth,
  "webhook-dispatcher": webhookDispatcher,
  "workflow-run": workflowRun,
};
/** Stream actors that run in a host of their own (their own slots and back-pressure), with these options. */
const ownHost: Record<string, Omit<HostOptions, "actors">> = {
  "webhook-dispatcher": WEBHOOK_HOST_OPTIONS,
  "workflow-run": WORKFLOW_HOST_OPTIONS,
};
const periodic: Record<string, () => RunningActors> = {
  reconciler: () => startReconciler(),
  // the same kind as the stream actor above: one Procfile line runs the schedule and the checks
  "domain-health": () => startDomainHealthCron(),
  // the relay from the outbox runs beside the dispatcher it feeds
  "webhook-dispatcher": () => startWebhookRelay(),
};

const kinds: string[] = [...new Set([...Object.keys(streamActors), ...Object.keys(periodic)])];

export function actorKinds(): string[] {
  return [...kinds];
}

export async function startActors(names: string[]): Promise<RunningActors> {
  const running: RunningActors[] = [];
  const actors = names.filter((n) => streamActors[n] && !ownHost[n]).map((n) => streamActors[n]!);
  if (actors.length) {
    const host = getRuntime().startHost({ actors });
    await host.ready;
    const unwatch = watchHost(host);
    running.push({ stop: () => host.stop().finally(unwatch) });
  }
  for (const n of names.filter((n) => streamActors[n] && ownHost[n])) {
    const host = getRuntime().startHost({ ...ownHost[n], actors: [streamActors[n]!] });
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
