// nms.providers: every delivery provider with its channels and the fields of its credentials and
// settings (GET /v1/providers), enough to build a channel configuration form.
import type { RequestOptions, Transport } from "../transport.js";
import type { ProviderDescription } from "../types.js";

export class Providers {
  constructor(private readonly transport: Transport) {}

  list(opts?: RequestOptions): Promise<ProviderDescription[]> {
    return this.transport.data({ method: "GET", path: "/v1/providers" }, opts);
  }
}
