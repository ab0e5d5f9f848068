// A local SMTP server (smtp-server) that records each message with its parsed headers and answers
// from a script: accept, permanent 5xx, transient 4xx (at RCPT or DATA), or a hang for timeout tests.
import { randomBytes } from "node:crypto";
import type { AddressInfo } from "node:net";
import { SMTPServer } from "smtp-server";
import { stopStarted } from "./fake-http";

export interface FakeSmtpMessage {
  mailFrom: string;
  rcptTo: string[];
  /** the raw RFC 5322 message as received after DATA */
  raw: string;
  /** header name (lower-case) -> unfolded values, in order */
  headers: Record<string, string[]>;
  /** the first value of a header, unfolded (case-insensitive name) */
  header(name: string): string | undefined;
  body: string;
  /** SMTP AUTH user of the session, when the client authenticated */
  user?: string;
  /** queue id reported in the 250 reply */
  queueId: string;
}

export type SmtpScripted =
  | { kind: "accept" }
  /** permanent refusal, 550 by default */
  | { kind: "reject"; code?: number; message?: string; stage?: "rcpt" | "data" }
  /** transient refusal, 451 by default */
  | { kind: "temp_fail"; code?: number; message?: string; stage?: "rcpt" | "data" }
  /** never answer the end of DATA (for `ms`, then accept; or until stop()) */
  | { kind: "hang"; ms?: number };

export interface FakeSmtp {
  readonly host: string;
  readonly port: number;
  readonly messages: FakeSmtpMessage[];
  /** one scripted outcome per incoming message, in order; default accept */
  script(...outcomes: SmtpScripted[]): void;
  always(outcome: SmtpScripted | undefined): void;
  reset(): void;
  waitForMessages(n: number, timeoutMs?: number): Promise<FakeSmtpMessage[]>;
  stop(): Promise<void>;
}

export interface FakeSmtpOptions {
  port?: number;
  /** require SMTP AUTH with these credentials (PLAIN/LOGIN over plaintext, as test servers allow) */
  auth?: { user: string; pass: string };
}

/** split a raw message into unfolded headers and body */
export function parseRawMessage(raw: string): { headers: Record<string, string[]>; body: string } {
  const split = raw.indexOf("\r\n\r\n");
  const head = split >= 0 ? raw.slice(0, split) : raw;
  const body = split >= 0 ? raw.slice(split + 4) : "";
  const headers: Record<string, string[]> = {};
  for (const line of head.replace(/\r\n([ \t])/g, "$1").split("\r\n")) {
    const colon = line.indexOf(":");
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    (headers[name] ??= []).push(line.slice(colon + 1).trim());
  }
  return { headers, body };
}

function smtpError(code: number, message: string): Error {
  return Object.assign(new Error(message), { responseCode: code });
}

const started = new Set<FakeSmtp>();

export async function start(opts: FakeSmtpOptions = {}): Promise<FakeSmtp> {
  const messages: FakeSmtpMessage[] = [];
  const queue: SmtpScripted[] = [];
  let fallback: SmtpScripted | undefined;
  const hanging = new Set<() => void>();
  // the outcome of the message a session is carrying, decided at its first RCPT
  const current = new Map<string, SmtpScripted>();
  const waiters = new Set<() => void>();

  const outcomeFor = (sessionId: string): SmtpScripted => {
    let o = current.get(sessionId);
    if (!o) {
      o = queue.shift() ?? fallback ?? { kind: "accept" };
      current.set(sessionId, o);
    }
    return o;
  };

  const server = new SMTPServer({
    // plaintext on purpose: nodemailer would try STARTTLS against a self-signed cert otherwise
    disabledCommands: opts.auth ? ["STARTTLS"] : ["STARTTLS", "AUTH"],
    authOptional: !opts.auth,
    allowInsecureAuth: true,
    logger: false,
    banner: "fake-smtp ready",
    // stop() should not wait the default 30 s for a client stuck in a scripted hang
    closeTimeout: 500,
    disableReverseLookup: true,
    onAuth(auth, _session, callback) {
      if (opts.auth && auth.username === opts.auth.user && auth.password === opts.auth.pass) {
        return callback(null, { user: auth.username });
      }
      callback(smtpError(535, "5.7.8 Authentication credentials invalid"));
    },
    onMailFrom(_address, session, callback) {
      current.delete(session.id);
      callback();
    },
    onRcptTo(_address, session, callback) {
      const o = outcomeFor(session.id);
      if ((o.kind === "reject" || o.kind === "temp_fail") && o.stage === "rcpt") {
        const code = o.code ?? (o.kind === "reject" ? 550 : 451);
        return callback(smtpError(code, o.message ?? (o.kind === "reject" ? "5.1.1 No such user" : "4.2.1 Mailbox busy, try later")));
      }
      callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (c: Buffer) => chunks.push(c));
      stream.on("end", async () => {
        const o = outcomeFor(session.id);
        current.delete(session.id);
        if (o.kind === "hang") {
          const released = await new Promise<boolean>((resolve) => {
            let t: ReturnType<typeof setTimeout> | undefined;
            const release = () => {
              if (t) clearTimeout(t);
              hanging.delete(release);
              resolve(true);
            };
            hanging.add(release);
            if (o.ms !== undefined) t = setTimeout(() => (hanging.delete(release), resolve(false)), o.ms);
          });
          if (released) return callback(smtpError(421, "4.3.2 fake server shutting down"));
        }
        if (o.kind === "reject" && o.stage !== "rcpt") {
          return callback(smtpError(o.code ?? 550, o.message ?? "5.7.1 Message rejected as spam"));
        }
        if (o.kind === "temp_fail" && o.stage !== "rcpt") {
          return callback(smtpError(o.code ?? 451, o.message ?? "4.7.1 Greylisted, please try again later"));
        }
        const raw = Buffer.concat(chunks).toString("utf8");
        const { headers, body } = parseRawMessage(raw);
        const queueId = randomBytes(6).toString("hex").toUpperCase();
        messages.push({
          mailFrom: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
          rcptTo: session.envelope.rcptTo.map((r) => r.address),
          raw,
          headers,
          header: (name) => headers[name.toLowerCase()]?.[0],
          body,
          user: session.user === undefined || session.user === null ? undefined : String(session.user),
          queueId,
        });
        for (const w of [...waiters]) w();
        callback(null, `2.0.0 Ok: queued as ${queueId}`);
      });
    },
  });
  // smtp-server emits socket errors from clients that hang up mid-session (timeout tests); they are expected
  server.on("error", () => {});
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port ?? 0, "127.0.0.1", () => resolve());
  });
  const port = (server.server.address() as AddressInfo).port;

  const handle: FakeSmtp = {
    host: "127.0.0.1",
    port,
    messages,
    script: (...outcomes) => void queue.push(...outcomes),
    always: (outcome) => void (fallback = outcome),
    reset: () => {
      messages.length = 0;
      queue.length = 0;
      fallback = undefined;
    },
    async waitForMessages(n, timeoutMs = 5000) {
      const deadline = Date.now() + timeoutMs;
      while (messages.length < n) {
        if (Date.now() > deadline) throw new Error(`fake smtp: expected ${n} messages, got ${messages.length}`);
        await new Promise<void>((resolve) => {
          const done = () => (waiters.delete(done), clearTimeout(t), resolve());
          const t = setTimeout(done, 50);
          waiters.add(done);
        });
      }
      return messages;
    },
    async stop() {
      started.delete(handle);
      for (const release of [...hanging]) release();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  started.add(handle);
  return handle;
}

export async function stop(handle?: FakeSmtp): Promise<void> {
  await stopStarted(started, handle);
}
