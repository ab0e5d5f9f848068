// nms.notifications: send (202, queued), list and search (cursor pages, newest first; the activity
// feed's filters), retrieve with attempts, and the attempts alone (SPEC "Notifications").
import { cursorList, type Page } from "../pagination.js";
import { path, type RequestOptions, type Transport } from "../transport.js";
import type {
  AcceptedNotification,
  CursorMeta,
  DeliveryAttempt,
  Notification,
  NotificationCreateParams,
  NotificationListItem,
  NotificationListParams,
} from "../types.js";

export class Notifications {
  constructor(private readonly transport: Transport) {}

  /** Queues a notification; the Idempotency-Key (generated, or `opts.idempotencyKey`) makes retries safe. */
  create(params: NotificationCreateParams, opts?: RequestOptions): Promise<AcceptedNotification> {
    return this.transport.data({ method: "POST", path: "/v1/notifications", body: params, idempotent: true }, opts);
  }

  list(params: NotificationListParams = {}, opts?: RequestOptions) {
    return cursorList(
      (query) => this.transport.request<Page<NotificationListItem, CursorMeta>>({ method: "GET", path: "/v1/notifications", query }, opts),
      params,
    );
  }

  retrieve(id: string, opts?: RequestOptions): Promise<Notification> {
    return this.transport.data({ method: "GET", path: path`/v1/notifications/${id}` }, opts);
  }

  /** Delivery attempts ordered by attempt_number. */
  attempts(id: string, opts?: RequestOptions): Promise<DeliveryAttempt[]> {
    return this.transport.data({ method: "GET", path: path`/v1/notifications/${id}/attempts` }, opts);
  }
}
