// Shared core of the fake provider HTTP servers (fake-sendgrid, fake-twilio, ...): a Bun.serve on a
// free port that records every request and answers from a script of outcomes, then a default.

/** One request as the fake received it. */
export interface RecordedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  /** lower-cased header names */
  headers: Record<string, string>;
  rawBody: Uint8Array;
  /** body as UTF-8 text ("" for binary bodies that are not text) */
  body: string;
  /** parsed when the body is JSON */
  json?: unknown;
  /** parsed when the body is application/x-www-form-urlencoded */
  form?: Record<string, string>;
  receivedAt: number;
  /** filled by the provider fake: what it decided this request was (e.g. "send", "token") */
  kind?: string;
  /** provider-specific extras (decrypted web push payload, verified JWT claims ...) */
  extra?: Record<string, unknown>;
}

/**
 * What the fake answers to the next request of a kind. Provider fakes render `error`,
 * `rate_limit` and `server_error` in that provider's documented error shape.
 */
export type ScriptedResponse =
  /** the provider's normal success; `body`/`headers` override parts of it */
  | { kind: "success"; status?: number; body?: unknown; headers?: Record<string, string> }
  /** a provider error (4xx by default permanent); `code` is the provider's own error code */
  | { kind: "error"; status: number; code?: string | number; message?: string; headers?: Record<string, string> }
  /** HTTP 429; Retry-After in seconds (or an HTTP-date string) when given */
  | { kind: "rate_limit"; retryAfter?: number | string; code?: string | number; message?: string }
  /** HTTP 5xx (500 by default) in the provider's shape; Retry-After when given */
  | { kind: "server_error"; status?: number; retryAfter?: number | string; code?: string | number; message?: string }
  /** no answer for `ms` (then the normal success), or until stop() when ms is omitted: timeout tests */
  | { kind: "hang"; ms?: number }
  /** exactly this answer, bypassing the provider shape */
  | { kind: "raw"; status: number; body?: string; headers?: Record<string, string> };

export interface FakeHttpHandle {
  /** base URL, e.g. http://127.0.0.1:41234 (pass as settings.base_url) */
  readonly url: string;
  readonly port: number;
  /** every request received, oldest first */
  readonly requests: RecordedRequest[];
  /** queue answers for the next requests of the main kind (one per request, in order) */
  script(...responses: ScriptedResponse[]): void;
  /** answer every request of the main kind with this once the script is empty (undefined: success) */
  always(response: ScriptedResponse | undefined): void;
  /** forget recorded requests, the script and `always` */
  reset(): void;
  /** resolves when at least n requests of the kind arrived */
  waitForRequests(n: number, opts?: { kind?: string; timeoutMs?: number }): Promise<RecordedRequest[]>;
  /** answers every hanging request now (503, as stop() does) without stopping the server */
  releaseHanging(): void;
  stop(): Promise<void>;
}

export type Route = (req: Request, rec: RecordedRequest, core: FakeHttpCore) => Response | undefined | Promise<Response | undefined>;

/** The scripting/recording machinery; provider fakes add their routes and shapes on top. */
export class FakeHttpCore {
  readonly requests: RecordedRequest[] = [];
  private readonly queues = new Map<string, ScriptedResponse[]>();
  private readonly defaults = new Map<string, ScriptedResponse | undefined>();
  private readonly hanging = new Set<() => void>();
  private readonly waiters = new Set<() => void>();
  server!: ReturnType<typeof Bun.serve>;

  get url(): string {
    return `http://127.0.0.1:${this.server.port}`;
  }

  script(kind: string, responses: ScriptedResponse[]): void {
    const q = this.queues.get(kind) ?? [];
    q.push(...responses);
    this.queues.set(kind, q);
  }

  always(kind: string, response: ScriptedResponse | undefined): void {
    this.defaults.set(kind, response);
  }

  /** the scripted answer for this request of a kind, or undefined for the provider's success */
  next(kind: string): ScriptedResponse | undefined {
    const q = this.queues.get(kind);
    if (q && q.length > 0) return q.shift();
    return this.defaults.get(kind);
  }

  reset(): void {
    this.requests.length = 0;
    this.queues.clear();
    this.defaults.clear();
  }

  /** wait ms (or until stop) before answering; resolves true when released by stop() */
  hang(ms?: number): Promise<boolean> {
    return new Promise((resolve) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const release = () => {
        if (timer) clearTimeout(timer);
        this.hanging.delete(release);
        resolve(true);
      };
      this.hanging.add(release);
      if (ms !== undefined) {
        timer = setTimeout(() => {
          this.hanging.delete(release);
          resolve(false);
        }, ms);
      }
    });
  }

  notify(): void {
    for (const w of [...this.waiters]) w();
  }

  async waitForRequests(n: number, opts: { kind?: string; timeoutMs?: number } = {}): Promise<RecordedRequest[]> {
    const matching = () => this.requests.filter((r) => opts.kind === undefined || r.kind === opts.kind);
    const deadline = Date.now() + (opts.timeoutMs ?? 5000);
    while (matching().length < n) {
      if (Date.now() > deadline) throw new Error(`fake server: expected ${n} requests, got ${matching().length}`);
      await new Promise<void>((resolve) => {
        const done = () => {
          this.waiters.delete(done);
          clearTimeout(t);
          resolve();
        };
        const t = setTimeout(done, 50);
        this.waiters.add(done);
      });
    }
    return matching();
  }

  releaseHanging(): void {
    for (const release of [...this.hanging]) release();
  }

  async stop(): Promise<void> {
    this.releaseHanging();
    await this.server.stop(true);
  }
}

async function record(req: Request): Promise<RecordedRequest> {
  const url = new URL(req.url);
  const rawBody = new Uint8Array(await req.arrayBuffer());
  const headers: Record<string, string> = {};
  req.headers.forEach((v, k) => (headers[k.toLowerCase()] = v));
  const body = new TextDecoder().decode(rawBody);
  const rec: RecordedRequest = {
    method: req.method,
    path: url.pathname,
    query: Object.fromEntries(url.searchParams),
    headers,
    rawBody,
    body,
    receivedAt: Date.now(),
  };
  const type = headers["content-type"] ?? "";
  if (type.includes("json")) {
    try {
      rec.json = JSON.parse(body);
    } catch {
      /* left undefined: the fake answers 400 like the provider would */
    }
  } else if (type.includes("x-www-form-urlencoded")) {
    rec.form = Object.fromEntries(new URLSearchParams(body));
  }
  return rec;
}

export function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", ...headers } });
}

export function retryAfterHeader(value: number | string | undefined): Record<string, string> {
  return value === undefined ? {} : { "retry-after": String(value) };
}

/** Starts a fake on a free port (or opts.port); routes are tried in order, the first Response wins. */
export function startFakeHttp(routes: Route[], opts: { port?: number } = {}): FakeHttpCore {
  const core = new FakeHttpCore();
  core.server = Bun.serve({
    hostname: "127.0.0.1",
    port: opts.port ?? 0,
    // long hangs are the point of timeout tests; Bun's default idle timeout would cut them at 10 s
    idleTimeout: 0,
    async fetch(req) {
      const rec = await record(req);
      core.requests.push(rec);
      core.notify();
      for (const route of routes) {
        const res = await route(req, rec, core);
        if (res) return res;
      }
      return json(404, { error: "not found", path: rec.path });
    },
  });
  return core;
}

/**
 * A route for the POSTs whose path matches `path`: marks them `kind` and hands the path match to
 * `answer`; every other request falls through to the next route.
 */
export function postRoute(
  kind: string,
  path: RegExp,
  answer: (rec: RecordedRequest, match: RegExpExecArray, core: FakeHttpCore) => Promise<Response>,
): Route {
  return (req, rec, core) => {
    const match = path.exec(rec.path);
    if (req.method !== "POST" || !match) return undefined;
    rec.kind = kind;
    return answer(rec, match, core);
  };
}

/** The provider's JSON success, a scripted `success`'s status, body and headers taking the defaults' place. */
export function successJson(scripted: ScriptedResponse | undefined, status: number, body: unknown): Response {
  const extra = scripted?.kind === "success" ? scripted : undefined;
  return json(extra?.status ?? status, extra?.body ?? body, extra?.headers);
}

/** Wraps a core as the public handle; `kind` is the request kind script()/always() apply to. */
export function handleOf(core: FakeHttpCore, kind: string): FakeHttpHandle {
  return {
    get url() {
      return core.url;
    },
    get port() {
      return core.server.port as number;
    },
    requests: core.requests,
    script: (...responses) => core.script(kind, responses),
    always: (response) => core.always(kind, response),
    reset: () => core.reset(),
    waitForRequests: (n, opts = {}) => core.waitForRequests(n, { kind: opts.kind ?? kind, timeoutMs: opts.timeoutMs }),
    releaseHanging: () => core.releaseHanging(),
    stop: () => core.stop(),
  };
}

/** Handles the generic parts of a scripted answer; returns undefined for "render success". */
export async function scriptedPrelude(core: FakeHttpCore, scripted: ScriptedResponse | undefined): Promise<
  { done: Response } | { scripted: ScriptedResponse | undefined }
> {
  if (scripted?.kind === "hang") {
    const released = await core.hang(scripted.ms);
    if (released) return { done: new Response("fake server stopped", { status: 503 }) };
    return { scripted: undefined };
  }
  if (scripted?.kind === "raw") {
    return { done: new Response(scripted.body ?? "", { status: scripted.status, headers: scripted.headers }) };
  }
  return { scripted };
}

/** Makes stop() also forget the handle in its module's set, and reset() clear the fake's own lists. */
export function track<T extends FakeHttpHandle>(handle: T, started: Set<T>, onReset?: () => void): T {
  const stopCore = handle.stop;
  const resetCore = handle.reset;
  handle.stop = async () => {
    started.delete(handle);
    await stopCore();
  };
  handle.reset = () => {
    resetCore();
    onReset?.();
  };
  started.add(handle);
  return handle;
}

/** A fake module's stop() (fake-smtp's too): the handle given, or every one the module started and has not stopped yet. */
export async function stopStarted<T extends { stop(): Promise<void> }>(started: Set<T>, handle?: T): Promise<void> {
  for (const h of handle ? [handle] : [...started]) await h.stop();
}
