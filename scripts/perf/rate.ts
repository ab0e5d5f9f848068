// Open-loop fixed-rate load: POST /v1/notifications at R requests/s for D seconds whatever the server
// does, with latency measured from each request's SCHEDULED send time (coordinated-omission safe: a
// stall shows up as latency of every request that should have been sent during it, as in wrk2).
//
//   bun rate.ts --url http://127.0.0.1:4100/v1/notifications [--key KEY] [--rate 2000] [--duration 10]
//               [--timeout 5000] [--conns 256] [--client raw|fetch] [--label service]
//
// Prints one line:
//   rate <label>: 2000/s for 10 s: sent N, ok N, errors E [(http 429 x3, timeout x1)], achieved R/s,
//   p50 A ms, p90 B ms, p99 C ms, p99.9 D ms, max M ms; sender lag p99 L ms, max L ms; conns K
// Errors: non-2xx answers, network errors, and requests unanswered --timeout ms after their scheduled
// time. "sender lag" is how late this process itself fired requests (a busy machine); it is part of
// the latency, never subtracted from it.
//
// The default client ("raw") speaks HTTP/1.1 keep-alive over Bun.connect: on a 2-core machine it costs
// about half the CPU of fetch(), which would otherwise be taken from the server under test. It opens
// connections as needed (at most --conns) and queues a request when all are busy (the wait counts).
// --client fetch (used for https URLs) is the cross-check.
import { parseArgs } from "node:util";

const { values } = parseArgs({
  options: {
    url: { type: "string" },
    key: { type: "string", default: process.env.API_KEY ?? "" },
    rate: { type: "string", default: "2000" },
    duration: { type: "string", default: "10" },
    timeout: { type: "string", default: "5000" },
    conns: { type: "string", default: "256" },
    client: { type: "string", default: "raw" },
    label: { type: "string", default: "target" },
  },
});
const rate = Number(values.rate);
const duration = Number(values.duration);
const timeoutMs = Number(values.timeout);
const maxConns = Number(values.conns);
let target: URL;
try {
  target = new URL(values.url ?? "");
} catch {
  usage();
}
if (!(rate > 0) || !(duration > 0) || !(timeoutMs > 0) || !(maxConns > 0) || !["raw", "fetch"].includes(values.client!)) usage();
function usage(): never {
  console.error(
    "usage: bun rate.ts --url URL [--key KEY] [--rate 2000] [--duration 10] [--timeout 5000] [--conns 256] [--client raw|fetch] [--label NAME]",
  );
  process.exit(2);
}
const useRaw = values.client === "raw" && target.protocol === "http:";

const total = Math.round(rate * duration);
const interval = 1000 / rate; // ms between scheduled sends
const latency = new Float64Array(total); // ok requests: ms from scheduled time to the complete response
const lag = new Float64Array(total); // ms between scheduled time and the moment the request was handed to a socket
const errors = new Map<string, number>();
let ok = 0;
let resolved = 0;

function succeed(scheduled: number) {
  latency[ok++] = performance.now() - scheduled;
  resolved++;
}
function failed(kind: string) {
  errors.set(kind, (errors.get(kind) ?? 0) + 1);
  resolved++;
}
function body() {
  const n = Math.floor(Math.random() * 1_000_000).toString().padStart(6, "0");
  return `{"channel":"sms","to":"+5511999${n}","payload":{"content":"perf"}}`;
}

// ---- fetch client -------------------------------------------------------------------------------------
const headers: Record<string, string> = { "Content-Type": "application/json" };
if (values.key) headers.Authorization = `Bearer ${values.key}`;

async function sendFetch(i: number, scheduled: number) {
  lag[i] = performance.now() - scheduled;
  try {
    const res = await fetch(target, { method: "POST", headers, body: body(), signal: AbortSignal.timeout(timeoutMs) });
    await res.arrayBuffer();
    if (res.status >= 200 && res.status < 300) succeed(scheduled);
    else failed(`http ${res.status}`);
  } catch (e: any) {
    failed(e?.name === "TimeoutError" || e?.name === "AbortError" ? "timeout" : String(e?.code ?? e?.name ?? "error"));
  }
}

// ---- raw HTTP/1.1 keep-alive client ----------------------------------------------------------------------
type Req = { i: number; scheduled: number };
type Conn = { sock: any; current: Req | null; buf: Buffer | null; unsent: Buffer | null; dead: boolean };
const head =
  `POST ${target.pathname}${target.search} HTTP/1.1\r\nHost: ${target.host}\r\nContent-Type: application/json\r\n` +
  (values.key ? `Authorization: Bearer ${values.key}\r\n` : "");
const idle: Conn[] = [];
const busy = new Set<Conn>();
const waiting: Req[] = [];
let waitHead = 0;
let conns = 0;
let peakConns = 0;

function dispatch(r: Req) {
  const c = idle.pop();
  if (c) return start(c, r);
  if (conns < maxConns) return open(r);
  waiting.push(r);
}

function start(c: Conn, r: Req) {
  c.current = r;
  busy.add(c);
  lag[r.i] = performance.now() - r.scheduled;
  const b = body();
  const bytes = Buffer.from(`${head}Content-Length: ${b.length}\r\n\r\n${b}`, "latin1");
  const n = c.sock.write(bytes);
  if (n < bytes.length) c.unsent = bytes.subarray(Math.max(0, n));
}

function release(c: Conn) {
  c.current = null;
  busy.delete(c);
  if (c.dead) return;
  if (waitHead < waiting.length) {
    const r = waiting[waitHead++];
    if (waitHead > 4096 && waitHead * 2 > waiting.length) waiting.splice(0, waitHead), (waitHead = 0);
    return start(c, r);
  }
  idle.push(c);
}

function kill(c: Conn, reason: string) {
  if (c.dead) return;
  c.dead = true;
  conns--;
  const i = idle.indexOf(c);
  if (i >= 0) idle.splice(i, 1);
  if (c.current) {
    c.current = null;
    busy.delete(c);
    failed(reason);
  }
  try {
    c.sock?.terminate?.();
  } catch {}
}

function open(r: Req) {
  conns++;
  peakConns = Math.max(peakConns, conns);
  // The request rides on the connection while it opens, so the sweeper can time it out.
  const c: Conn = { sock: null, current: r, buf: null, unsent: null, dead: false };
  busy.add(c);
  Bun.connect({
    hostname: target.hostname.replace(/^\[|\]$/g, ""),
    port: Number(target.port || 80),
    socket: {
      data(_s, chunk) {
        onData(c, chunk as Buffer);
      },
      drain(s) {
        if (!c.unsent) return;
        const n = s.write(c.unsent);
        c.unsent = n < c.unsent.length ? c.unsent.subarray(Math.max(0, n)) : null;
      },
      close() {
        kill(c, "connection closed");
      },
      error(_s, e: any) {
        kill(c, String(e?.code ?? "socket error"));
      },
    },
  }).then(
    (sock) => {
      c.sock = sock;
      sock.setNoDelay?.(true);
      if (c.dead) return sock.terminate?.();
      start(c, r);
    },
    (e: any) => kill(c, String(e?.code ?? "connect error")),
  );
}

function onData(c: Conn, chunk: Buffer) {
  c.buf = c.buf ? Buffer.concat([c.buf, chunk]) : chunk;
  while (c.current && c.buf) {
    const buf: Buffer = c.buf;
    const he = buf.indexOf("\r\n\r\n");
    if (he < 0) return;
    const h = buf.toString("latin1", 0, he);
    const status = Number(h.slice(9, 12));
    let end: number;
    if (/\r\ntransfer-encoding:[^\r]*chunked/i.test(h)) {
      end = chunkedEnd(buf, he + 4);
      if (end < 0) return;
    } else {
      const m = /\r\ncontent-length:\s*(\d+)/i.exec(h);
      end = he + 4 + (m ? Number(m[1]) : 0);
      if (buf.length < end) return;
    }
    c.buf = end < buf.length ? buf.subarray(end) : null;
    const r = c.current;
    if (status >= 200 && status < 300) succeed(r.scheduled);
    else failed(`http ${status || "?"}`);
    const closing = /\r\nconnection:\s*close/i.test(h);
    if (closing) {
      c.current = null;
      busy.delete(c);
      kill(c, "connection closed");
      return;
    }
    release(c);
  }
}

// Offset just past a chunked body starting at p, or -1 while incomplete.
function chunkedEnd(buf: Buffer, p: number): number {
  for (;;) {
    const le = buf.indexOf("\r\n", p);
    if (le < 0) return -1;
    const size = parseInt(buf.toString("latin1", p, le), 16);
    if (size === 0) {
      const te = buf.indexOf("\r\n\r\n", le);
      return te < 0 ? -1 : te + 4;
    }
    p = le + 2 + size + 2;
    if (p > buf.length) return -1;
  }
}

// Requests unanswered timeoutMs after their scheduled time are errors (their connection is dropped).
const sweeper = setInterval(() => {
  const limit = performance.now() - timeoutMs;
  for (const c of [...busy]) if (c.current && c.current.scheduled < limit) kill(c, "timeout");
  while (waitHead < waiting.length && waiting[waitHead].scheduled < limit) waitHead++, failed("timeout");
}, 50);

// ---- scheduler -------------------------------------------------------------------------------------------
// Wake about every millisecond and fire every request whose time has come. Sleeping (never spinning)
// keeps this process's CPU small; the wake-up delay is counted in the latency and shown as sender lag.
const t0 = performance.now() + 20;
let next = 0;
let firstSend = 0;
while (next < total) {
  const now = performance.now();
  const due = Math.min(total, Math.floor((now - t0) / interval) + 1);
  if (next === 0 && due > 0) firstSend = now;
  for (; next < due; next++) {
    const scheduled = t0 + next * interval;
    if (useRaw) dispatch({ i: next, scheduled });
    else sendFetch(next, scheduled);
  }
  if (next < total) await Bun.sleep(Math.max(1, t0 + next * interval - performance.now()));
}
const sendSpan = performance.now() - firstSend;
while (resolved < total) await Bun.sleep(5);
clearInterval(sweeper);

function pct(sorted: Float64Array, p: number) {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}
const lat = latency.subarray(0, ok).sort();
const lags = lag.sort();
const f = (v: number) => (Number.isFinite(v) ? v.toFixed(2) : "n/a");
const errCount = total - ok;
const errDetail = errCount ? ` (${[...errors].map(([k, v]) => `${k} x${v}`).join(", ")})` : "";
const achieved = total > 1 && sendSpan > 0 ? (total - 1) / (sendSpan / 1000) : total;

console.log(
  `rate ${values.label}: ${rate}/s for ${duration} s: sent ${total}, ok ${ok}, errors ${errCount}${errDetail}, ` +
    `achieved ${achieved.toFixed(0)}/s, p50 ${f(pct(lat, 50))} ms, p90 ${f(pct(lat, 90))} ms, ` +
    `p99 ${f(pct(lat, 99))} ms, p99.9 ${f(pct(lat, 99.9))} ms, max ${f(lat.length ? lat[lat.length - 1] : NaN)} ms; ` +
    `sender lag p99 ${f(pct(lags, 99))} ms, max ${f(lags[lags.length - 1])} ms; ` +
    `client ${useRaw ? "raw" : "fetch"}, conns ${useRaw ? peakConns : "n/a"}`,
);
process.exit(0);
