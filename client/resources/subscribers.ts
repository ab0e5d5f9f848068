// nms.subscribers: upsert on external_id, offset-paged list with search, retrieve / update /
// delete by id or external_id, all-or-nothing import; preferences and inbox hang below.
import { offsetList, type Page } from "../pagination.js";
import { path, type RequestOptions, type Transport } from "../transport.js";
import type {
  OffsetMeta,
  Subscriber,
  SubscriberCreateParams,
  SubscriberImportResult,
  SubscriberListParams,
  SubscriberUpdateParams,
} from "../types.js";
import { SubscriberInbox } from "./subscriber-inbox.js";
import { SubscriberPreferences } from "./subscriber-preferences.js";

export class Subscribers {
  readonly preferences: SubscriberPreferences;
  readonly inbox: SubscriberInbox;

  constructor(private readonly transport: Transport) {
    this.preferences = new SubscriberPreferences(transport);
    this.inbox = new SubscriberInbox(transport);
  }

  /** Creates the subscriber, or updates the one with this external_id (201 or 200). */
  create(params: SubscriberCreateParams, opts?: RequestOptions): Promise<Subscriber> {
    return this.transport.data({ method: "POST", path: "/v1/subscribers", body: params, idempotent: true }, opts);
  }

  /** The same call as create: POST /v1/subscribers is an upsert on external_id. */
  upsert(params: SubscriberCreateParams, opts?: RequestOptions): Promise<Subscriber> {
    return this.create(params, opts);
  }

  /** Offset pages; meta.total counts every match. */
  list(params: SubscriberListParams = {}, opts?: RequestOptions) {
    return offsetList(
      (query) => this.transport.request<Page<Subscriber, OffsetMeta>>({ method: "GET", path: "/v1/subscribers", query }, opts),
      params,
    );
  }

  /** By id or external_id. */
  retrieve(idOrExternalId: string, opts?: RequestOptions): Promise<Subscriber> {
    return this.transport.data({ method: "GET", path: path`/v1/subscribers/${idOrExternalId}` }, opts);
  }

  update(idOrExternalId: string, params: SubscriberUpdateParams, opts?: RequestOptions): Promise<Subscriber> {
    return this.transport.data({ method: "PUT", path: path`/v1/subscribers/${idOrExternalId}`, body: params }, opts);
  }

  /** Soft delete: email, phone, name and custom properties are erased; irreversible. */
  del(idOrExternalId: string, opts?: RequestOptions): Promise<void> {
    return this.transport.request({ method: "DELETE", path: path`/v1/subscribers/${idOrExternalId}` }, opts);
  }

  /**
   * Upserts up to 1,000 subscribers in one transaction. On a bad entry nothing is written and an
   * NmsError 422 names it: `details` keyed `subscribers[i].field`, and `body.error.index`.
   * Not retried after a network error or 5xx (see README "Retries").
   */
  import(subscribers: SubscriberCreateParams[], opts?: RequestOptions): Promise<SubscriberImportResult> {
    return this.transport.data({ method: "POST", path: "/v1/subscribers/import", body: { subscribers } }, opts);
  }
}
