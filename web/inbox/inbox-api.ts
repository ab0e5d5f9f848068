// The inbox routes <nms-inbox> calls, over fetch with a publishable key and the subscriber's
// id and hash; every failure becomes an InboxApiError carrying the API's code and message.
import type { InboxItemRecord, InboxListRecord } from "../../schemas/inbox";

export type InboxItem = InboxItemRecord;
export type InboxPage = InboxListRecord;

export interface InboxApiConfig {
  apiUrl: string;
  publishableKey: string;
  subscriberId: string;
  subscriberHash: string;
}

/** An API error ({"error": {"code", "message"}}), or status 0 when no answer could be read. */
export class InboxApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly retryAfterMs?: number,
  ) {
    super(message);
    this.name = "InboxApiError";
  }

  static async fromResponse(res: Response): Promise<InboxApiError> {
    const retryAfter = Number(res.headers.get("retry-after"));
    const retryAfterMs = res.status === 429 && retryAfter > 0 ? retryAfter * 1000 : undefined;
    try {
      const body = await res.json();
      if (body?.error?.code && body?.error?.message) return new InboxApiError(res.status, String(body.error.code), String(body.error.message), retryAfterMs);
    } catch {
      // not the standard error body (a proxy's page): described by its status below
    }
    return new InboxApiError(res.status, `http_${res.status}`, `The notification service answered HTTP ${res.status}`, retryAfterMs);
  }

  /**
   * fetch rejected: the network failed, or the browser refused the answer (CORS). The browser
   * hides which one, so the message names both.
   */
  static network(cause: unknown): InboxApiError {
    const err = new InboxApiError(
      0,
      "network_error",
      "Could not reach the notification service. Check the api-url attribute and the connection; " +
        "if the browser console shows a CORS error, this page's origin is not allowed.",
    );
    (err as { cause?: unknown }).cause = cause;
    return err;
  }
}

export class InboxApi {
  private readonly base: string;

  constructor(private readonly config: InboxApiConfig) {
    // keeps a path prefix (https://example.com/nms) that a reverse proxy may add
    this.base = `${config.apiUrl.replace(/\/+$/, "")}/v1/subscribers/${encodeURIComponent(config.subscriberId)}/notifications`;
  }

  private headers(extra: Record<string, string> = {}): Record<string, string> {
    return {
      authorization: `Bearer ${this.config.publishableKey}`,
      "x-subscriber-id": this.config.subscriberId,
      "x-subscriber-hash": this.config.subscriberHash,
      ...extra,
    };
  }

  private async request<T>(method: string, path: string): Promise<T> {
    let res: Response;
    try {
      res = await fetch(this.base + path, { method, headers: this.headers({ accept: "application/json" }), credentials: "omit" });
    } catch (err) {
      throw InboxApiError.network(err);
    }
    if (!res.ok) throw await InboxApiError.fromResponse(res);
    try {
      return (await res.json()) as T;
    } catch {
      throw new InboxApiError(res.status, "invalid_response", "The notification service answered something that is not JSON");
    }
  }

  list(offset: number, limit: number): Promise<InboxPage> {
    return this.request<InboxPage>("GET", `?limit=${limit}&offset=${offset}`);
  }

  async unreadCount(): Promise<number> {
    return (await this.request<{ data: { count: number } }>("GET", "/unread-count")).data.count;
  }

  async markRead(itemId: string): Promise<InboxItem> {
    return (await this.request<{ data: InboxItem }>("POST", `/${encodeURIComponent(itemId)}/read`)).data;
  }

  async markAllRead(): Promise<number> {
    return (await this.request<{ data: { updated: number } }>("POST", "/read-all")).data.updated;
  }

  /** One connection to the event stream (the caller reads the body). */
  async openStream(lastEventId: string | undefined, signal: AbortSignal): Promise<Response> {
    const extra: Record<string, string> = { accept: "text/event-stream" };
    if (lastEventId !== undefined) extra["last-event-id"] = lastEventId;
    try {
      return await fetch(`${this.base}/stream`, { headers: this.headers(extra), signal, cache: "no-store", credentials: "omit" });
    } catch (err) {
      throw InboxApiError.network(err);
    }
  }
}
