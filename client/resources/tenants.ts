// nms.tenants (admin token): creates a tenant with its first production secret key and, given
// owner_email, its owner's sign-in link (in this response only); offboards a tenant and reports its progress.
import { path, type RequestOptions, type Transport } from "../transport.js";
import type { Offboarding, TenantCreateParams, TenantWithKey } from "../types.js";

export class Tenants {
  constructor(private readonly transport: Transport) {}

  /** Not retried on ambiguous failures: a repeat would create a second tenant. */
  create(params: TenantCreateParams, opts?: RequestOptions): Promise<TenantWithKey> {
    return this.transport.data({ method: "POST", path: "/api/internal/tenants", body: params, admin: true }, opts);
  }

  /** Starts removing every record of the tenant (the audit log is kept); 202 with its progress. */
  offboard(id: string, opts?: RequestOptions): Promise<Offboarding> {
    return this.transport.data({ method: "DELETE", path: path`/api/internal/tenants/${id}`, admin: true }, opts);
  }

  /** The progress of an offboarding (running or completed). */
  offboarding(id: string, opts?: RequestOptions): Promise<Offboarding> {
    return this.transport.data({ method: "GET", path: path`/api/internal/tenants/${id}/offboarding`, admin: true }, opts);
  }
}
