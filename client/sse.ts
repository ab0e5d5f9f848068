// Server-Sent Events parsing (WHATWG "event stream interpretation"), shared by the client's
// subscribers.inbox.stream() and web/inbox's <nms-inbox>, which reads the same stream over fetch.

export interface StreamEvent {
  id: string | undefined;
  event: string;
  data: string;
}

/**
 * Incremental text/event-stream parser (WHATWG HTML "event stream interpretation"): feed it text
 * as it arrives, get back the complete events. Comment lines are ignored, `retry:` is kept.
 */
export class SseParser {
  retryMs: number | undefined;
  lastEventId: string | undefined;
  private buffer = "";
  private eventType = "";
  private data: string[] = [];
  private sawCr = false;

  feed(chunk: string): StreamEvent[] {
    let text = chunk;
    // a CRLF split across two chunks: the LF belongs to the CR already handled
    if (this.sawCr && text.startsWith("\n")) text = text.slice(1);
    this.sawCr = text.endsWith("\r");
    this.buffer += text;
    const out: StreamEvent[] = [];
    const lines = this.buffer.split(/\r\n|\r|\n/);
    this.buffer = lines.pop() ?? "";
    for (const line of lines) this.line(line, out);
    return out;
  }

  private line(line: string, out: StreamEvent[]): void {
    if (line === "") {
      if (this.data.length > 0) out.push({ id: this.lastEventId, event: this.eventType || "message", data: this.data.join("\n") });
      this.data = [];
      this.eventType = "";
      return;
    }
    if (line.startsWith(":")) return;
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "data") this.data.push(value);
    else if (field === "event") this.eventType = value;
    else if (field === "id" && !value.includes("\u0000")) this.lastEventId = value;
    else if (field === "retry" && /^\d+$/.test(value)) this.retryMs = Number(value);
  }
}

/**
 * The frames of an event-stream response as they arrive. No byte for `idleMs` (the server sends a
 * comment every 15 s) ends it with `onIdle()`'s error; `controller` aborts the connection, and is
 * aborted when the loop stops (a `break`, a throw, the end of the stream).
 */
export async function* framesOf(
  res: Response,
  controller: AbortController,
  idleMs: number,
  onIdle: () => Error,
): AsyncGenerator<StreamEvent, void, undefined> {
  if (!res.body) return;
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  const parser = new SseParser();
  let idle = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const arm = () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      idle = true;
      controller.abort();
    }, idleMs);
  };
  try {
    for (;;) {
      arm();
      const chunk = await reader.read().catch((err: unknown) => {
        throw idle ? onIdle() : controller.signal.aborted ? controller.signal.reason : err;
      });
      if (chunk.done) return;
      yield* parser.feed(decoder.decode(chunk.value, { stream: true }));
    }
  } finally {
    clearTimeout(timer);
    controller.abort();
    reader.releaseLock();
  }
}
