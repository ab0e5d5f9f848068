// The stream actors this service runs and how a process starts hosts for some of them; the periodic
// jobs are jobs/index.ts, and scripts/process-kinds.ts joins both into the Procfile's kinds.
import type { Actor, HostOptions } from "../runtime";
import { config } from "../config";
import { getRuntime } from "../store/runtime-handle";
import { watchHost } from "../store/metrics";

export interface Running {
  stop(): Promise<void>;
}

/**
 * A kind's actor and, when it runs in a host of its own (its own slots and back-pressure), that
 * host's options. Loaded on demand: a process imports only the code of the kinds it runs, so a
 * restarted actor process is reading sooner (docs/runtime.md "Takeover in seconds").
 */
interface KindDef {
  actor: Actor<any>;
  ownHost?: Omit<HostOptions, "actors">;
}
const streamActors: Record<string, () => Promise<KindDef>> = {
  "channel-sender": async () => ({ actor: (await import("./channel-sender")).channelSender }),
  "domain-health": async () => ({ actor: (await import("./domain-health")).domainHealth }),
  "webhook-dispatcher": async () => {
    const m = await import("./webhook-dispatcher");
    return { actor: m.webhookDispatcher, ownHost: m.WEBHOOK_HOST_OPTIONS };
  },
  "workflow-run": async () => {
    const m = await import("./workflow-run");
    return { actor: m.workflowRun, ownHost: m.WORKFLOW_HOST_OPTIONS };
  },
  broadcast: async () => ({ actor: (await import("./broadcast")).broadcast, ownHost: {} }),
};

export function actorKinds(): string[] {
  return Object.keys(streamActors);
}

/** Starts the hosts of the named kinds' actors (names without an actor are ignored). */
/** How long finished messages' acks gather into one XACK per partition (runtime/types.ts ackDelayMs). */
function readTuning() {
  return { ackDelayMs: config.runtimeAckDelayMs };
}

export async function startActorHosts(names: string[]): Promise<Running> {
  const running: Running[] = [];
  const kinds = new Map<string, KindDef>();
  for (const n of names) if (streamActors[n]) kinds.set(n, await streamActors[n]!());
  // the normal lane is the channel-sender kind's shared-host actor unless SENDER_LANES leaves it out
  const shared = [...kinds]
    .filter(([n, k]) => !k.ownHost && (n !== "channel-sender" || config.senderLanes.includes("normal")))
    .map(([, k]) => k.actor);
  // every host is started at once and awaited together: their first lease rounds (which take a
  // dead predecessor's partitions) overlap instead of queueing behind each other
  const ready: Promise<void>[] = [];
  if (shared.length) {
    // the normal lane's slots are the sender's (SENDER_CONCURRENCY); domain-health, its companion, needs few
    const sender = shared.some((a) => a.name === "channel-sender") ? { concurrency: config.senderConcurrency } : {};
    const host = getRuntime().startHost({ ...readTuning(), ...sender, actors: shared });
    ready.push(host.ready);
    const unwatch = watchHost(host);
    running.push({ stop: () => host.stop().finally(unwatch) });
  }
  for (const k of kinds.values()) {
    if (!k.ownHost) continue;
    const host = getRuntime().startHost({ ...readTuning(), ...k.ownHost, actors: [k.actor] });
    ready.push(host.ready);
    running.push(host);
  }
  // the channel sender's high and low lanes, each in a host of its own (docs/routing.md): high never
  // waits for a slot or for read capacity behind normal or low work, and low keeps slots of its own
  if (kinds.has("channel-sender")) {
    const { channelSenderHigh, channelSenderLow, SENDER_LANE_HOST_OPTIONS } = await import("./channel-sender");
    for (const [lane, actor, opts] of [
      ["high", channelSenderHigh, SENDER_LANE_HOST_OPTIONS.high],
      ["low", channelSenderLow, SENDER_LANE_HOST_OPTIONS.low],
    ] as const) {
      if (!config.senderLanes.includes(lane)) continue;
      const host = getRuntime().startHost({ ...readTuning(), ...opts, actors: [actor] });
      ready.push(host.ready);
      const unwatch = watchHost(host);
      running.push({ stop: () => host.stop().finally(unwatch) });
    }
  }
  await Promise.all(ready);
  return {
    async stop() {
      for (const r of running.reverse()) await r.stop();
    },
  };
}
