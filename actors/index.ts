// The stream actors this service runs and how a process starts hosts for some of them; the periodic
// jobs are jobs/index.ts, and scripts/process-kinds.ts joins both into the Procfile's kinds.
import type { Actor, HostOptions } from "../runtime";
import { channelSender, channelSenderHigh, channelSenderLow, SENDER_LANE_HOST_OPTIONS } from "./channel-sender";
import { domainHealth } from "./domain-health";
import { webhookDispatcher, WEBHOOK_HOST_OPTIONS } from "./webhook-dispatcher";
import { workflowRun, WORKFLOW_HOST_OPTIONS } from "./workflow-run";
import { broadcast } from "./broadcast";
import { getRuntime } from "../store/runtime-handle";
import { watchHost } from "../store/metrics";

export interface Running {
  stop(): Promise<void>;
}

/** Stream actors by Procfile kind; those without a host of their own share one host per process. */
const streamActors: Record<string, Actor<any>> = {
  "channel-sender": channelSender,
  "domain-health": domainHealth,
  "webhook-dispatcher": webhookDispatcher,
  "workflow-run": workflowRun,
  broadcast,
};
/** Stream actors that run in a host of their own (their own slots and back-pressure), with these options. */
const ownHost: Record<string, Omit<HostOptions, "actors">> = {
  "webhook-dispatcher": WEBHOOK_HOST_OPTIONS,
  "workflow-run": WORKFLOW_HOST_OPTIONS,
  broadcast: {},
};

export function actorKinds(): string[] {
  return Object.keys(streamActors);
}

/** Starts the hosts of the named kinds' actors (names without an actor are ignored). */
export async function startActorHosts(names: string[]): Promise<Running> {
  const running: Running[] = [];
  const shared = names.filter((n) => streamActors[n] && !ownHost[n]).map((n) => streamActors[n]!);
  if (shared.length) {
    const host = getRuntime().startHost({ actors: shared });
    await host.ready;
    const unwatch = watchHost(host);
    running.push({ stop: () => host.stop().finally(unwatch) });
  }
  for (const n of names.filter((n) => streamActors[n] && ownHost[n])) {
    const host = getRuntime().startHost({ ...ownHost[n], actors: [streamActors[n]!] });
    await host.ready;
    running.push(host);
  }
  // the channel sender's high and low lanes, each in a host of its own (docs/routing.md): high never
  // waits for a slot or for read capacity behind normal or low work, and low keeps slots of its own
  if (names.includes("channel-sender")) {
    for (const [actor, opts] of [
      [channelSenderHigh, SENDER_LANE_HOST_OPTIONS.high],
      [channelSenderLow, SENDER_LANE_HOST_OPTIONS.low],
    ] as const) {
      const host = getRuntime().startHost({ ...opts, actors: [actor] });
      await host.ready;
      const unwatch = watchHost(host);
      running.push({ stop: () => host.stop().finally(unwatch) });
    }
  }
  return {
    async stop() {
      for (const r of running.reverse()) await r.stop();
    },
  };
}
