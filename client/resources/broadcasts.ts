// nms.broadcasts: a trigger to a topic (one run per member, fanned out in the background), its
// progress and its cancel; and the bulk trigger of up to 1,000 runs (docs/topics.md).
import { path, type RequestOptions, type Transport } from "../transport.js";
import type { Broadcast, BroadcastStarted, BulkTriggerParams, WorkflowRun, WorkflowTriggerParams } from "../types.js";

type TopicTriggerParams = { to: { topic: string }; data?: Record<string, unknown>; locale?: string };

export class Broadcasts {
  constructor(private readonly transport: Transport) {}

  /** 202 with the broadcast (status fanning_out); follow it with retrieve. */
  trigger(slug: string, params: TopicTriggerParams, opts?: RequestOptions): Promise<BroadcastStarted> {
    return this.transport.data({ method: "POST", path: path`/v1/workflows/${slug}/trigger`, body: params, idempotent: true }, opts);
  }

  retrieve(id: string, opts?: RequestOptions): Promise<Broadcast> {
    return this.transport.data({ method: "GET", path: path`/v1/broadcasts/${id}` }, opts);
  }

  /** Stops runs not yet created; 409 broadcast_not_cancellable once completed or cancelled. */
  cancel(id: string, opts?: RequestOptions): Promise<Broadcast> {
    return this.transport.data({ method: "POST", path: path`/v1/broadcasts/${id}/cancel` }, opts);
  }

  /** 1-1,000 events, all or nothing; the runs in the events' order. */
  triggerBulk(slug: string, params: BulkTriggerParams | { events: WorkflowTriggerParams[] }, opts?: RequestOptions): Promise<WorkflowRun[]> {
    return this.transport.data({ method: "POST", path: path`/v1/workflows/${slug}/trigger/bulk`, body: params, idempotent: true }, opts);
  }
}
