// nms.me: the signed-in dashboard user (GET /v1/me: id, email, name, tenant_id, role);
// session-cookie mode only, since an API key is not a user.
import type { RequestOptions, Transport } from "../transport.js";
import type { Me as MeRecord } from "../types.js";

export class Me {
  constructor(private readonly transport: Transport) {}

  retrieve(opts?: RequestOptions): Promise<MeRecord> {
    return this.transport.data({ method: "GET", path: "/v1/me" }, opts);
  }
}
