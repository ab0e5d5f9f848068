// nms.topics: named groups of subscribers (create, list, retrieve, delete) and their members (add,
// remove by external_id or id, list), per environment (docs/topics.md).
import { cursorList, type Page } from "../pagination.js";
import { path, type RequestOptions, type Transport } from "../transport.js";
import type { CursorMeta, Subscriber, Topic, TopicCreateParams, TopicListParams, TopicMembersAdded, TopicMembersRemoved } from "../types.js";

export class Topics {
  constructor(private readonly transport: Transport) {}

  /** 201; 409 topic_already_exists when the key is taken. */
  create(params: TopicCreateParams, opts?: RequestOptions): Promise<Topic> {
    return this.transport.data({ method: "POST", path: "/v1/topics", body: params, idempotent: true }, opts);
  }

  /** Newest first, cursor-paged. */
  list(params: TopicListParams = {}, opts?: RequestOptions) {
    return cursorList((query) => this.transport.request<Page<Topic, CursorMeta>>({ method: "GET", path: "/v1/topics", query }, opts), params);
  }

  retrieve(key: string, opts?: RequestOptions): Promise<Topic> {
    return this.transport.data({ method: "GET", path: path`/v1/topics/${key}` }, opts);
  }

  del(key: string, opts?: RequestOptions): Promise<void> {
    return this.transport.request({ method: "DELETE", path: path`/v1/topics/${key}` }, opts);
  }

  /** 1-1,000 external_ids or ids: how many were added, were members already, and which name nobody. */
  addSubscribers(key: string, subscribers: string[], opts?: RequestOptions): Promise<TopicMembersAdded> {
    return this.transport.data({ method: "POST", path: path`/v1/topics/${key}/subscribers`, body: { subscribers } }, opts);
  }

  removeSubscribers(key: string, subscribers: string[], opts?: RequestOptions): Promise<TopicMembersRemoved> {
    return this.transport.data({ method: "DELETE", path: path`/v1/topics/${key}/subscribers`, body: { subscribers } }, opts);
  }

  /** The members, cursor-paged. */
  listSubscribers(key: string, params: TopicListParams = {}, opts?: RequestOptions) {
    return cursorList(
      (query) => this.transport.request<Page<Subscriber, CursorMeta>>({ method: "GET", path: path`/v1/topics/${key}/subscribers`, query }, opts),
      params,
    );
  }
}
