// nms.blockedDomains (admin token): the email domain blocklist: list with search (cursor pages,
// manual entries first), check an address, block and unblock (/v1/admin/blocked-domains).
import { cursorList, type Page } from "../pagination.js";
import { path, type RequestOptions, type Transport } from "../transport.js";
import type { BlockedDomain, BlockedDomainCheck, BlockedDomainListParams, BlockedDomainMeta } from "../types.js";

export class BlockedDomains {
  constructor(private readonly transport: Transport) {}

  /** Manual entries first (newest first), then the seeded ones; `search` is a substring of the domain. */
  list(params: BlockedDomainListParams = {}, opts?: RequestOptions) {
    return cursorList(
      (query) =>
        this.transport.request<Page<BlockedDomain, BlockedDomainMeta>>(
          { method: "GET", path: "/v1/admin/blocked-domains", query, admin: true },
          opts,
        ),
      params,
    );
  }

  /** Is the address's domain (or a parent domain) blocked? */
  check(email: string, opts?: RequestOptions): Promise<BlockedDomainCheck> {
    return this.transport.data({ method: "GET", path: "/v1/admin/blocked-domains/check", query: { email }, admin: true }, opts);
  }

  /** Blocks the domain and its subdomains; 409 domain_already_blocked for a repeat. */
  create(domain: string, opts?: RequestOptions): Promise<BlockedDomain> {
    return this.transport.data({ method: "POST", path: "/v1/admin/blocked-domains", body: { domain }, admin: true }, opts);
  }

  del(domain: string, opts?: RequestOptions): Promise<void> {
    return this.transport.request({ method: "DELETE", path: path`/v1/admin/blocked-domains/${domain}`, admin: true }, opts);
  }
}
