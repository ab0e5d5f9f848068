// nms.tenants (admin token): creates a tenant with its first production secret key and, given
// owner_email, its owner's sign-in link; both are in this response only (POST /api/internal/tenants).
import type { RequestOptions, Transport } from "../transport.js";
import type { TenantCreateParams, TenantWithKey } from "../types.js";

export class Tenants {
  constructor(private readonly transport: Transport) {}

  /** Not retried on ambiguous failures: a repeat would create a second tenant. */
  create(params: TenantCreateParams, opts?: RequestOptions): Promise<TenantWithKey> {
    return this.transport.data({ method: "POST", path: "/api/internal/tenants", body: params, admin: true }, opts);
  }
}
