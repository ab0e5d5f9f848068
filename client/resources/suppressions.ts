// nms.suppressions: the addresses the service no longer sends to (hard bounces, complaints,
// unregistered push recipients), newest first, and lifting one (secret keys; /v1/suppressions).
import { cursorList, type Page } from "../pagination.js";
import { path, type RequestOptions, type Transport } from "../transport.js";
import type { CursorMeta, Suppression, SuppressionListParams } from "../types.js";

export class Suppressions {
  constructor(private readonly transport: Transport) {}

  /** Cursor pages; filters `address` (exact; an email case-insensitively), `reason`, `channel`. */
  list(params: SuppressionListParams = {}, opts?: RequestOptions) {
    return cursorList(
      (query) => this.transport.request<Page<Suppression, CursorMeta>>({ method: "GET", path: "/v1/suppressions", query }, opts),
      params,
    );
  }

  /** Lifts the address (audited as suppression.removed): sends to it go out again. */
  del(address: string, opts?: RequestOptions): Promise<void> {
    return this.transport.request({ method: "DELETE", path: path`/v1/suppressions/${address}` }, opts);
  }
}
