// nms.subscribers.inbox: a subscriber's in-app items (offset pages, unread filter), mark one or
// all read, unread count; the routes a publishable key reaches with X-Subscriber-Id/-Hash.
import { offsetList, type Page } from "../pagination";
import { path, type RequestOptions, type Transport } from "../transport";
import type { InboxItem, InboxListParams, InboxMeta, InboxReadAllResult, InboxUnreadCount } from "../types";

export class SubscriberInbox {
  constructor(private readonly transport: Transport) {}

  /** Newest first; meta also carries unread_count. */
  list(subscriberId: string, params: InboxListParams = {}, opts?: RequestOptions) {
    return offsetList(
      (query) =>
        this.transport.request<Page<InboxItem, InboxMeta>>(
          { method: "GET", path: path`/v1/subscribers/${subscriberId}/notifications`, query },
          opts,
        ),
      params,
    );
  }

  /** Marks one item read (by item id or notification id); marking twice is harmless, so retried. */
  read(subscriberId: string, itemId: string, opts?: RequestOptions): Promise<InboxItem> {
    return this.transport.data(
      { method: "POST", path: path`/v1/subscribers/${subscriberId}/notifications/${itemId}/read`, safe: true },
      opts,
    );
  }

  readAll(subscriberId: string, opts?: RequestOptions): Promise<InboxReadAllResult> {
    return this.transport.data(
      { method: "POST", path: path`/v1/subscribers/${subscriberId}/notifications/read-all`, safe: true },
      opts,
    );
  }

  unreadCount(subscriberId: string, opts?: RequestOptions): Promise<InboxUnreadCount> {
    return this.transport.data({ method: "GET", path: path`/v1/subscribers/${subscriberId}/notifications/unread-count` }, opts);
  }
}
