// nms.apiKeys: the reference shape (/v1/api-keys: key_type, label, environment, raw_key once,
// revoke, rotate) and, under .guide, the guide shape (/api-keys: name, permissions, key once).
import { pageNumberList, type Page } from "../pagination.js";
import { path, type RequestOptions, type Transport } from "../transport.js";
import type {
  ApiKey,
  ApiKeyCreateParams,
  ApiKeyRevokeParams,
  ApiKeyRotateParams,
  ApiKeyWithSecret,
  GuideApiKey,
  GuideApiKeyCreateParams,
  GuideApiKeyListParams,
  GuideApiKeyMeta,
  GuideApiKeyWithSecret,
  RotatedApiKey,
} from "../types.js";

export class GuideApiKeys {
  constructor(private readonly transport: Transport) {}

  /** `key` is in this response only. Not retried on ambiguous failures (/api-keys takes no Idempotency-Key). */
  create(params: GuideApiKeyCreateParams, opts?: RequestOptions): Promise<GuideApiKeyWithSecret> {
    return this.transport.data({ method: "POST", path: "/api-keys", body: params }, opts);
  }

  /** Numbered pages (page, per_page); iterating walks them all. */
  list(params: GuideApiKeyListParams = {}, opts?: RequestOptions) {
    return pageNumberList(
      (query) => this.transport.request<Page<GuideApiKey, GuideApiKeyMeta>>({ method: "GET", path: "/api-keys", query }, opts),
      params,
    );
  }

  revoke(id: string, params: ApiKeyRevokeParams = {}, opts?: RequestOptions): Promise<void> {
    return this.transport.request({ method: "DELETE", path: path`/api-keys/${id}`, query: params }, opts);
  }
}

export class ApiKeys {
  readonly guide: GuideApiKeys;

  constructor(private readonly transport: Transport) {
    this.guide = new GuideApiKeys(transport);
  }

  /** `raw_key` is in this response only. */
  create(params: ApiKeyCreateParams = {}, opts?: RequestOptions): Promise<ApiKeyWithSecret> {
    return this.transport.data({ method: "POST", path: "/v1/api-keys", body: params, idempotent: true }, opts);
  }

  list(opts?: RequestOptions): Promise<ApiKey[]> {
    return this.transport.data({ method: "GET", path: "/v1/api-keys" }, opts);
  }

  /** Takes effect on the next request, in every process. */
  revoke(id: string, params: ApiKeyRevokeParams = {}, opts?: RequestOptions): Promise<void> {
    return this.transport.request({ method: "DELETE", path: path`/v1/api-keys/${id}`, query: params }, opts);
  }

  /** A new key now; the old one keeps working for grace_period_hours (default 24). Not retried on ambiguous failures. */
  rotate(id: string, params: ApiKeyRotateParams = {}, opts?: RequestOptions): Promise<RotatedApiKey> {
    return this.transport.data({ method: "POST", path: path`/v1/api-keys/${id}/rotate`, body: params }, opts);
  }
}
