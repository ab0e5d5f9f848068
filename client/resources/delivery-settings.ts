// nms.deliverySettings: the delivery policy of the environment: time zone, quiet hours, frequency
// caps across workflows (docs/delivery-policy.md).
import type { RequestOptions, Transport } from "../transport.js";
import type { DeliverySettings, DeliverySettingsParams } from "../types.js";

export class DeliverySettingsResource {
  constructor(private readonly transport: Transport) {}

  retrieve(opts?: RequestOptions): Promise<DeliverySettings> {
    return this.transport.data({ method: "GET", path: "/v1/settings/delivery" }, opts);
  }

  /** Replaces the whole policy (absent quiet_hours or frequency_caps: none). */
  update(params: DeliverySettingsParams, opts?: RequestOptions): Promise<DeliverySettings> {
    return this.transport.data({ method: "PUT", path: "/v1/settings/delivery", body: params }, opts);
  }
}
