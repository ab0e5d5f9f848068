// nms.subscribers.inbox: a subscriber's in-app items (offset pages, unread filter), mark one or
// all read, unread count, the live event stream; the routes a publishable key reaches with X-Subscriber-Id/-Hash.
import { NmsError } from "../error.js";
import { offsetList, type Page } from "../pagination.js";
import { framesOf } from "../sse.js";
import { path, type RequestOptions, type Transport } from "../transport.js";
import type { InboxEvent, InboxItem, InboxListParams, InboxMeta, InboxReadAllResult, InboxStreamParams, InboxUnreadCount } from "../types.js";

/** No byte for this long ends a stream (the server sends a comment every 15 s). */
const STREAM_IDLE_MS = 45_000;

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

  /**
   * The subscriber's inbox.* events as they happen (Server-Sent Events read over fetch, so the key
   * and X-Subscriber-* headers travel, which EventSource cannot send). One connection: the loop ends
   * when the server closes it; start a new stream with `last_event_id` (the last event's id) to get
   * what was missed. `break` or `opts.signal` closes it; 45 s without a byte throws NmsError `timeout`.
   */
  async *stream(subscriberId: string, params: InboxStreamParams = {}, opts: RequestOptions = {}): AsyncGenerator<InboxEvent, void, undefined> {
    const controller = new AbortController();
    const stop = () => controller.abort(opts.signal!.reason);
    if (opts.signal?.aborted) stop();
    opts.signal?.addEventListener("abort", stop, { once: true });
    try {
      const headers: Record<string, string> = { accept: "text/event-stream", ...opts.headers };
      if (params.last_event_id) headers["last-event-id"] = params.last_event_id;
      const res = await this.transport.open(
        { method: "GET", path: path`/v1/subscribers/${subscriberId}/notifications/stream` },
        { ...opts, headers, signal: controller.signal },
      );
      if (!/^text\/event-stream/i.test(res.headers.get("content-type") ?? "")) {
        await res.body?.cancel().catch(() => undefined);
        throw new NmsError({ status: res.status, code: "invalid_response", message: "The answer is not an event stream", headers: res.headers });
      }
      const timeout = () => new NmsError({ status: 0, code: "timeout", message: `No byte of the event stream for ${STREAM_IDLE_MS} ms` });
      for await (const frame of framesOf(res, controller, STREAM_IDLE_MS, timeout)) {
        yield JSON.parse(frame.data) as InboxEvent;
      }
    } finally {
      opts.signal?.removeEventListener("abort", stop);
      controller.abort();
    }
  }
}
