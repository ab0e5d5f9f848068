// nms.retentionSettings: how long the tenant's history is kept (notifications, inbox items, webhook
// deliveries), within the plan's longest window (docs/operations.md "Retention").
import type { RequestOptions, Transport } from "../transport.js";
import type { RetentionSettings, RetentionSettingsParams } from "../types.js";

export class RetentionSettingsResource {
  constructor(private readonly transport: Transport) {}

  retrieve(opts?: RequestOptions): Promise<RetentionSettings> {
    return this.transport.data({ method: "GET", path: "/v1/settings/retention" }, opts);
  }

  /** Fields left out keep their value; a window over the plan's max_days is 422. */
  update(params: RetentionSettingsParams, opts?: RequestOptions): Promise<RetentionSettings> {
    return this.transport.data({ method: "PUT", path: "/v1/settings/retention", body: params }, opts);
  }
}
