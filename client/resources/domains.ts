// nms.domains: sending domains (SPEC Endpoints "Domains"): add with the TXT records to publish,
// verify, the SPF/DKIM/DMARC health (latest, or checked now), block_on_failure, and the alerts.
import { cursorList, type Page } from "../pagination.js";
import { path, type RequestOptions, type Transport } from "../transport.js";
import type {
  CursorMeta,
  SendingDomain,
  SendingDomainAlert,
  SendingDomainAlertListParams,
  SendingDomainCreateParams,
  SendingDomainHealth,
  SendingDomainListParams,
  SendingDomainUpdateParams,
} from "../types.js";

export class Domains {
  constructor(private readonly transport: Transport) {}

  /** Status pending, with `dns_records` (verification, SPF, DKIM, DMARC) to publish. */
  create(params: SendingDomainCreateParams, opts?: RequestOptions): Promise<SendingDomain> {
    return this.transport.data({ method: "POST", path: "/v1/domains", body: params, idempotent: true }, opts);
  }

  /** Newest first (cursor pages). */
  list(params: SendingDomainListParams = {}, opts?: RequestOptions) {
    return cursorList(
      (query) => this.transport.request<Page<SendingDomain, CursorMeta>>({ method: "GET", path: "/v1/domains", query }, opts),
      params,
    );
  }

  /** With its DNS records and latest health. */
  retrieve(id: string, opts?: RequestOptions): Promise<SendingDomain> {
    return this.transport.data({ method: "GET", path: path`/v1/domains/${id}` }, opts);
  }

  /** `block_on_failure: true` holds email from this domain (failed, domain_unhealthy) while DKIM or SPF fails. */
  update(id: string, params: SendingDomainUpdateParams, opts?: RequestOptions): Promise<SendingDomain> {
    return this.transport.data({ method: "PATCH", path: path`/v1/domains/${id}`, body: params }, opts);
  }

  /** Removes it with its health history and alerts. */
  del(id: string, opts?: RequestOptions): Promise<void> {
    return this.transport.request({ method: "DELETE", path: path`/v1/domains/${id}` }, opts);
  }

  /**
   * Looks up the verification TXT record: `verified` when it matches, else still `pending` with
   * `verification_error` saying what was found. Repeating it changes nothing, so it is retried.
   */
  verify(id: string, opts?: RequestOptions): Promise<SendingDomain> {
    return this.transport.data({ method: "POST", path: path`/v1/domains/${id}/verify`, safe: true }, opts);
  }

  /** The latest SPF, DKIM and DMARC check (a domain never checked is checked now). */
  health(id: string, opts?: RequestOptions): Promise<SendingDomainHealth> {
    return this.transport.data({ method: "GET", path: path`/v1/domains/${id}/health` }, opts);
  }

  /** Checks SPF, DKIM and DMARC now; once a minute per domain (429 rate_limited with Retry-After). */
  check(id: string, opts?: RequestOptions): Promise<SendingDomainHealth> {
    return this.transport.data({ method: "POST", path: path`/v1/domains/${id}/health/check`, safe: true }, opts);
  }

  /** Alerts raised when a check stopped passing: open first, then newest first; filter `domain_id`. */
  alerts(params: SendingDomainAlertListParams = {}, opts?: RequestOptions) {
    return cursorList(
      (query) => this.transport.request<Page<SendingDomainAlert, CursorMeta>>({ method: "GET", path: "/v1/domains/alerts", query }, opts),
      params,
    );
  }
}
