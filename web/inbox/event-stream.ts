// Server-Sent Events over fetch for <nms-inbox>: the reconnect delay policy and a reader loop that
// resumes with Last-Event-ID after a drop (frames parsed by client/sse.ts, re-exported here).
// (EventSource cannot send the Authorization and X-Subscriber-* headers, hence fetch.)
import { SseParser, type StreamEvent } from "../../client/sse";
import { InboxApiError } from "./inbox-api";

export { SseParser, type StreamEvent };

/**
 * Milliseconds to wait before reconnect number `attempt` (0 = first): exponential from `baseMs`,
 * capped at `maxMs`, with jitter in [50%, 100%] so the clients of a stopped server do not all
 * come back in the same instant.
 */
export function reconnectDelay(attempt: number, baseMs: number, maxMs: number, random: number): number {
  const ceiling = Math.min(maxMs, baseMs * 2 ** Math.min(attempt, 16));
  return Math.round(ceiling * (0.5 + random / 2));
}

/** Errors a retry cannot fix: wrong key, hash, origin or subscriber. */
export function isFatal(err: InboxApiError): boolean {
  return err.status >= 400 && err.status < 500 && err.status !== 408 && err.status !== 429;
}

export interface InboxStreamOptions {
  /** Opens one connection; `lastEventId` is sent as Last-Event-ID when set. */
  connect(lastEventId: string | undefined, signal: AbortSignal): Promise<Response>;
  /** The first bytes of a connection arrived (the server sends them once it listens). */
  onOpen(resumed: boolean): void;
  onEvent(event: StreamEvent): void;
  /** Waiting `delayMs` before the next attempt, because of `error` (null: the server ended the stream). */
  onRetry(delayMs: number, error: InboxApiError | null): void;
  /** Gave up: the error will not go away by retrying. */
  onFatal(error: InboxApiError): void;
  baseDelayMs?: number;
  maxDelayMs?: number;
  /** No byte for this long (the server sends a heartbeat every 15 s): the connection is dead. */
  idleTimeoutMs?: number;
  random?: () => number;
}

/** Keeps one event-stream connection open until stop(), reconnecting with back-off. */
export class InboxStream {
  lastEventId: string | undefined;
  private stopped = false;
  private readonly stopper = new AbortController();

  constructor(private readonly opts: InboxStreamOptions) {}

  start(): void {
    void this.run();
  }

  stop(): void {
    this.stopped = true;
    this.stopper.abort();
  }

  private async run(): Promise<void> {
    const { opts } = this;
    let baseMs = opts.baseDelayMs ?? 1000;
    let attempt = 0;
    while (!this.stopped) {
      let error: InboxApiError | null = null;
      const connection = new AbortController();
      const abortConnection = () => connection.abort();
      this.stopper.signal.addEventListener("abort", abortConnection);
      let idle: ReturnType<typeof setTimeout> | undefined;
      const armIdle = () => {
        clearTimeout(idle);
        idle = setTimeout(abortConnection, opts.idleTimeoutMs ?? 45_000);
      };
      try {
        armIdle();
        const resumed = this.lastEventId !== undefined;
        const res = await opts.connect(this.lastEventId, connection.signal);
        if (!res.ok || !res.body) throw await InboxApiError.fromResponse(res);
        if (!/^text\/event-stream/i.test(res.headers.get("content-type") ?? "")) {
          // a proxy's page, say: retried with a growing delay, as it never counts as opened
          await res.body.cancel().catch(() => {});
          throw new InboxApiError(res.status, "invalid_response", "The notification service did not answer with an event stream");
        }
        const reader = res.body.getReader();
        const decoder = new TextDecoder();
        const parser = new SseParser();
        let opened = false;
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          armIdle();
          const events = parser.feed(decoder.decode(value, { stream: true }));
          if (parser.retryMs !== undefined) baseMs = parser.retryMs;
          if (!opened) {
            opened = true;
            attempt = 0;
            opts.onOpen(resumed);
          }
          for (const e of events) {
            if (e.id !== undefined) this.lastEventId = e.id;
            opts.onEvent(e);
          }
        }
      } catch (err) {
        if (this.stopped) break;
        error = err instanceof InboxApiError ? err : InboxApiError.network(err);
        if (isFatal(error)) {
          this.stop();
          opts.onFatal(error);
          break;
        }
      } finally {
        clearTimeout(idle);
        this.stopper.signal.removeEventListener("abort", abortConnection);
        connection.abort();
      }
      if (this.stopped) break;
      const delay = error?.retryAfterMs ?? reconnectDelay(attempt++, baseMs, opts.maxDelayMs ?? 30_000, (opts.random ?? Math.random)());
      opts.onRetry(delay, error);
      await this.sleep(delay);
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      const signal = this.stopper.signal;
      function done() {
        clearTimeout(timer);
        signal.removeEventListener("abort", done);
        resolve();
      }
      signal.addEventListener("abort", done);
    });
  }
}
