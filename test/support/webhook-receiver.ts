// Local webhook receivers for tests: a Bun server on 127.0.0.1 that records every request (headers,
// raw body, arrival time) and answers through a function the test can change (fail, hang, redirect).
export interface Received {
  headers: Record<string, string>;
  body: string;
  json: any;
  at: number;
}

export type Respond = (req: Received, n: number) => Response | Promise<Response>;

export interface Receiver {
  url: string;
  port: number;
  received: Received[];
  /** arrival times of each event id (the body's id) */
  ids(): string[];
  respond: Respond;
  stop(): Promise<void>;
}

export function startReceiver(respond: Respond = () => new Response("ok")): Receiver {
  const received: Received[] = [];
  const r: Receiver = {
    url: "",
    port: 0,
    received,
    ids: () => received.map((x) => x.json?.id),
    respond,
    async stop() {
      server.stop(true);
    },
  };
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: 0,
    async fetch(req) {
      const body = await req.text();
      const headers: Record<string, string> = {};
      req.headers.forEach((v, k) => (headers[k] = v));
      let json: any = null;
      try {
        json = JSON.parse(body);
      } catch {}
      const rec = { headers, body, json, at: Date.now() };
      received.push(rec);
      return await r.respond(rec, received.length);
    },
  });
  r.port = server.port!;
  r.url = `http://127.0.0.1:${server.port}/hook`;
  return r;
}

/** A response that never comes (until the receiver stops). */
export const hang = () => new Promise<Response>(() => {});
