// The broadcast actor's mail (issue 22): one message kind, "fan out more of this broadcast", its
// address keyed by broadcast id (one broadcast's pages run one at a time) and its constructor.
import type { ActorAddress } from "../../runtime";

/**
 * `fan_out`: read the broadcast in PostgreSQL and create the runs of its next pages from the saved
 * cursor; sent at trigger, by the actor itself to continue, and by the repair scan when a fan-out
 * stalls (Redis emptied). Duplicates are harmless: pages are locked and runs keyed.
 */
export type BroadcastMessage = { v: 1; type: "fan_out"; broadcastId: string };

export const broadcastAddress: ActorAddress<BroadcastMessage> = {
  name: "broadcast",
  keyOf: (m) => m.broadcastId,
};

export const fanOutMessage = (broadcastId: string): BroadcastMessage => ({ v: 1, type: "fan_out", broadcastId });
