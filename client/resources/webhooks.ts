// nms.webhooks: endpoints that receive the service's events (create shows the signing secret once),
// their delivery attempts, a test send, retry of one delivery and replay of a window (SPEC "Webhooks").
import { cursorList, type Page } from "../pagination.js";
import { path, type RequestOptions, type Transport } from "../transport.js";
import type {
  CursorMeta,
  Webhook,
  WebhookCreateParams,
  WebhookDelivery,
  WebhookDeliveryListParams,
  WebhookReplayParams,
  WebhookReplayResult,
  WebhookTestParams,
  WebhookTestResult,
  WebhookUpdateParams,
  WebhookWithSecret,
} from "../types.js";

export class Webhooks {
  constructor(private readonly transport: Transport) {}

  /**
   * `signing_secret` is in this response only (a `whsec_` secret, or the `secret` you pass): keep it
   * to verify deliveries with verifyWebhookSignature or verifyStandardWebhook. At most 10 per tenant.
   */
  create(params: WebhookCreateParams, opts?: RequestOptions): Promise<WebhookWithSecret> {
    return this.transport.data({ method: "POST", path: "/v1/webhooks", body: params, idempotent: true }, opts);
  }

  list(opts?: RequestOptions): Promise<Webhook[]> {
    return this.transport.data({ method: "GET", path: "/v1/webhooks" }, opts);
  }

  /** `disabled_reason` says why the service deactivated it. */
  retrieve(id: string, opts?: RequestOptions): Promise<Webhook> {
    return this.transport.data({ method: "GET", path: path`/v1/webhooks/${id}` }, opts);
  }

  /** Any of url, events, active, description; `active: false` stops deliveries, scheduled retries too. */
  update(id: string, params: WebhookUpdateParams, opts?: RequestOptions): Promise<Webhook> {
    return this.transport.data({ method: "PUT", path: path`/v1/webhooks/${id}`, body: params }, opts);
  }

  /** Deletes it with its delivery records and queued deliveries. */
  del(id: string, opts?: RequestOptions): Promise<void> {
    return this.transport.request({ method: "DELETE", path: path`/v1/webhooks/${id}` }, opts);
  }

  /**
   * Sends one signed `notification.test` event now and answers the outcome: a failing receiver is
   * `success: false`, not an error. Not retried on ambiguous failures (a repeat sends again).
   */
  test(id: string, params: WebhookTestParams = {}, opts?: RequestOptions): Promise<WebhookTestResult> {
    return this.transport.data({ method: "POST", path: path`/v1/webhooks/${id}/test`, body: params }, opts);
  }

  /** Delivery attempts, newest first (cursor pages); filters `status` and `event_id`. */
  deliveries(id: string, params: WebhookDeliveryListParams = {}, opts?: RequestOptions) {
    return cursorList(
      (query) =>
        this.transport.request<Page<WebhookDelivery, CursorMeta>>({ method: "GET", path: path`/v1/webhooks/${id}/deliveries`, query }, opts),
      params,
    );
  }

  /**
   * Sends this delivery's event once more, now: answers the new pending delivery (202), which
   * replaces the event's remaining automatic retries. Not retried on ambiguous failures.
   */
  retry(id: string, deliveryId: string, opts?: RequestOptions): Promise<WebhookDelivery> {
    return this.transport.data({ method: "POST", path: path`/v1/webhooks/${id}/deliveries/${deliveryId}/retry` }, opts);
  }

  /**
   * Queues once more every event of [since, until) this webhook has not acknowledged, at most 10,000
   * per call: when `truncated`, call again with `since: last_event_at`. Not retried on ambiguous failures.
   */
  replay(id: string, params: WebhookReplayParams, opts?: RequestOptions): Promise<WebhookReplayResult> {
    return this.transport.data({ method: "POST", path: path`/v1/webhooks/${id}/replay`, body: params }, opts);
  }
}
