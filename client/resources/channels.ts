// nms.channels: one provider configuration per channel name (credentials write-only, their names
// in credential_keys), and a test send through it (SPEC "Channels", docs/providers/).
import { path, type RequestOptions, type Transport } from "../transport.js";
import type { ChannelConfig, ChannelCreateParams, ChannelName, ChannelTestParams, ChannelTestResult, ChannelUpdateParams } from "../types.js";

export class Channels {
  constructor(private readonly transport: Transport) {}

  create(params: ChannelCreateParams, opts?: RequestOptions): Promise<ChannelConfig> {
    return this.transport.data({ method: "POST", path: "/v1/channels", body: params, idempotent: true }, opts);
  }

  list(opts?: RequestOptions): Promise<ChannelConfig[]> {
    return this.transport.data({ method: "GET", path: "/v1/channels" }, opts);
  }

  retrieve(channel: ChannelName, opts?: RequestOptions): Promise<ChannelConfig> {
    return this.transport.data({ method: "GET", path: path`/v1/channels/${channel}` }, opts);
  }

  /** Credentials sent replace the stored ones; `active: false` pauses delivery through it. */
  update(channel: ChannelName, params: ChannelUpdateParams, opts?: RequestOptions): Promise<ChannelConfig> {
    return this.transport.data({ method: "PUT", path: path`/v1/channels/${channel}`, body: params }, opts);
  }

  del(channel: ChannelName, opts?: RequestOptions): Promise<void> {
    return this.transport.request({ method: "DELETE", path: path`/v1/channels/${channel}` }, opts);
  }

  /** Checks the configuration and queues a test notification (to `to`, or settings.test_recipient); not retried on ambiguous failures. */
  test(channel: ChannelName, params: ChannelTestParams = {}, opts?: RequestOptions): Promise<ChannelTestResult> {
    return this.transport.data({ method: "POST", path: path`/v1/channels/${channel}/test`, body: params }, opts);
  }
}
