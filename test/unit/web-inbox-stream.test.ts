// The inbox embed's event-stream pieces without a browser: the SSE parser (chunk boundaries,
// CRLF, comments, retry), the reconnect delay, and the reader loop's resume and give-up rules.
import { describe, expect, test } from "bun:test";
import { InboxStream, reconnectDelay, SseParser, type StreamEvent } from "../../web/inbox/event-stream";
import { InboxApiError } from "../../web/inbox/inbox-api";
import { relativeTime } from "../../web/inbox/relative-time";

describe("SseParser", () => {
  test("frames split anywhere still parse; comments are skipped; id and retry are kept", () => {
    const text = "retry: 3000\n: connected\n\nid: e1\nevent: inbox.notification.received\ndata: {\"a\":1}\n\n: heartbeat\n\nid: e2\ndata: x\ndata: y\n\n";
    for (let cut = 1; cut < text.length; cut++) {
      const p = new SseParser();
      const events = [...p.feed(text.slice(0, cut)), ...p.feed(text.slice(cut))];
      expect(events).toEqual([
        { id: "e1", event: "inbox.notification.received", data: '{"a":1}' },
        { id: "e2", event: "message", data: "x\ny" },
      ]);
      expect(p.retryMs).toBe(3000);
      expect(p.lastEventId).toBe("e2");
    }
  });

  test("CRLF and CR line ends, a CRLF split between chunks, no space after the colon", () => {
    const p = new SseParser();
    const events = [...p.feed("id:a\r\nevent:t\r"), ...p.feed("\ndata:1\r\n\r\n"), ...p.feed("data:2\r\r")];
    expect(events).toEqual([
      { id: "a", event: "t", data: "1" },
      { id: "a", event: "message", data: "2" },
    ]);
  });

  test("an event without data is not dispatched; a bad retry is ignored", () => {
    const p = new SseParser();
    expect(p.feed("event: x\nretry: soon\n\n")).toEqual([]);
    expect(p.retryMs).toBeUndefined();
  });
});

describe("reconnectDelay", () => {
  test("doubles from the base, caps at the maximum, jitters between 50% and 100%", () => {
    expect([0, 1, 2, 3].map((a) => reconnectDelay(a, 1000, 30_000, 1))).toEqual([1000, 2000, 4000, 8000]);
    expect(reconnectDelay(10, 1000, 30_000, 1)).toBe(30_000);
    expect(reconnectDelay(0, 1000, 30_000, 0)).toBe(500);
    expect(reconnectDelay(1000, 1000, 30_000, 0.5)).toBe(22_500);
  });
});

/** A response whose body yields `chunks` and then ends (a server that closes the stream). */
function sse(chunks: string[], status = 200): Response {
  const enc = new TextEncoder();
  return new Response(new ReadableStream({ start(c) { for (const x of chunks) c.enqueue(enc.encode(x)); c.close(); } }), {
    status,
    headers: { "content-type": "text/event-stream" },
  });
}

describe("InboxStream", () => {
  test("reconnects after the server ends the stream, sending the last event id; gives up on a 403", async () => {
    const sent: (string | undefined)[] = [];
    const events: StreamEvent[] = [];
    const opens: boolean[] = [];
    const retries: number[] = [];
    const answers = [
      () => sse(["retry: 5\n\nid: e1\nevent: inbox.notification.received\ndata: {}\n\n"]),
      () => sse(["id: e2\nevent: inbox.notification.read\ndata: {}\n\n"]),
      () => new Response(JSON.stringify({ error: { code: "origin_not_allowed", message: "no" } }), { status: 403 }),
    ];
    const fatal = await new Promise<InboxApiError>((resolve) => {
      new InboxStream({
        connect: async (lastEventId) => {
          sent.push(lastEventId);
          return answers[sent.length - 1]!();
        },
        onOpen: (resumed) => opens.push(resumed),
        onEvent: (e) => events.push(e),
        onRetry: (ms) => retries.push(ms),
        onFatal: resolve,
        baseDelayMs: 1,
        random: () => 1,
      }).start();
    });
    expect(sent).toEqual([undefined, "e1", "e2"]);
    expect(opens).toEqual([false, true]);
    expect(events.map((e) => e.id)).toEqual(["e1", "e2"]);
    expect(retries).toEqual([5, 5]); // the server's retry: replaced the base delay; attempts reset on open
    expect(fatal).toMatchObject({ status: 403, code: "origin_not_allowed", message: "no" });
  });

  test("network failures back off and retry until stop()", async () => {
    let calls = 0;
    const { retries, opened } = await retriesOf(async () => {
      calls++;
      throw new TypeError("Failed to fetch");
    }, 2);
    expect(retries).toEqual([[2, "network_error"], [4, "network_error"], [8, "network_error"]]);
    expect(opened).toBe(0);
    await Bun.sleep(20);
    expect(calls).toBe(3); // stopped: no fourth attempt
  });

  test("a 200 that is not an event stream (a proxy's page) never counts as opened: the delay grows", async () => {
    const html = () => new Response("<html>login</html>", { status: 200, headers: { "content-type": "text/html" } });
    const { retries, opened } = await retriesOf(async () => html(), 1);
    expect(retries).toEqual([[1, "invalid_response"], [2, "invalid_response"], [4, "invalid_response"]]);
    expect(opened).toBe(0);
  });
});

/** Runs a stream over `connect` until its third retry, then stops it; returns [delay, error code] per retry. */
async function retriesOf(connect: () => Promise<Response>, baseDelayMs: number) {
  const retries: [number, string | undefined][] = [];
  let opened = 0;
  const stream = new InboxStream({
    connect,
    onOpen: () => opened++,
    onEvent: () => {},
    onRetry: (ms, err) => {
      retries.push([ms, err?.code]);
      if (retries.length === 3) stream.stop();
    },
    onFatal: () => {},
    baseDelayMs,
    random: () => 1,
  });
  stream.start();
  while (retries.length < 3) await Bun.sleep(5);
  return { retries, opened };
}

describe("relativeTime", () => {
  const now = Date.parse("2026-03-10T12:00:00Z");
  test("now, minutes, hours, days, then the date", () => {
    expect(relativeTime("2026-03-10T11:59:40Z", now, "en")).toBe("now");
    expect(relativeTime("2026-03-10T11:55:00Z", now, "en")).toBe("5 min. ago");
    expect(relativeTime("2026-03-10T09:00:00Z", now, "en")).toBe("3 hr. ago");
    expect(relativeTime("2026-03-09T12:00:00Z", now, "en")).toBe("yesterday");
    expect(relativeTime("2026-02-01T12:00:00Z", now, "en")).toBe("Feb 1");
    expect(relativeTime("2025-02-01T12:00:00Z", now, "en")).toBe("Feb 1, 2025");
    expect(relativeTime("not a date", now, "en")).toBe("");
  });
});
