// What the dashboard's browser tests share: an API process on APP_URL's default origin with a fake
// SMTP server for the sign-in mail, sign-in by magic link, calls from the page, waits on what it shows.
import type { Locator, Page } from "playwright-core";
import { buildWeb } from "../../scripts/build-web";
import { sql } from "../../store/db";
import { startApiProcess, type ApiProcess } from "./api-process";
import { start as startSmtp, type FakeSmtp } from "./fake-smtp";

// 20 s was passed by a replayed webhook's delivery with the suite beside other work (load 20+ on 2 cores)
export const WAIT_MS = 30_000;
/** Per test: each waits for conditions (WAIT_MS each), never for fixed times; a loaded machine may need many. */
export const TEST_MS = 60_000;

export async function freePort(): Promise<number> {
  const probe = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response() });
  const port = probe.port!;
  probe.stop(true);
  return port;
}

export interface DashboardServer {
  /** http://localhost:<port>: APP_URL's default for the process's PORT, so the Origin rule holds as shipped. */
  base: string;
  smtp: FakeSmtp;
  api: ApiProcess;
  /** The sign-in link of the newest mail to `to` (quoted-printable unfolded). */
  linkMailedTo(to: string): Promise<string>;
  /** A call to the API as a program would make it (Bearer key), from the test. */
  apiCall(method: string, path: string, key: string, body?: unknown): Promise<{ status: number; body: any }>;
  stop(): Promise<void>;
}

/**
 * Builds the dashboard and starts an API process with `env` on a free port, mailing through a
 * fake SMTP server. APP_URL and PUBLIC_URL stay at their defaults (http://localhost:PORT): the
 * dashboard is served by the API it calls, and its state-changing requests pass the Origin check as shipped.
 */
export async function startDashboardServer(env: Record<string, string> = {}): Promise<DashboardServer> {
  await buildWeb(); // npm test built it already; a single-file run may not have
  const smtp = await startSmtp();
  const port = await freePort();
  const base = `http://localhost:${port}`;
  let api: ApiProcess;
  try {
    // a channel test waits for the provider's answer as shipped (the preload shortens it for in-process tests)
    api = await startApiProcess({ PORT: String(port), SMTP_URL: `smtp://127.0.0.1:${smtp.port}`, CHANNEL_TEST_WAIT_MS: "20000", ...env });
  } catch (err) {
    await smtp.stop();
    throw err;
  }
  return {
    base,
    smtp,
    api,
    async linkMailedTo(to) {
      const deadline = Date.now() + WAIT_MS;
      while (Date.now() < deadline) {
        const msg = [...smtp.messages].reverse().find((m) => m.rcptTo.includes(to) && m.body.includes("magic-link"));
        if (msg) {
          const body = msg.raw.replace(/=\r?\n/g, "").replace(/=3D/g, "=");
          const m = /(http:\/\/[^\s"<]+\/auth\/magic-link\/verify\?token=[A-Za-z0-9_%-]+)/.exec(body);
          if (m) return m[1]!;
        }
        await Bun.sleep(50);
      }
      throw new Error(`no sign-in link mailed to ${to}`);
    },
    async apiCall(method, path, key, body) {
      const res = await fetch(`${base}${path}`, {
        method,
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : null };
    },
    async stop() {
      await api.stop();
      await smtp.stop();
    },
  };
}

/** Waits until the page's h1 reads `title` (all of it: "Workflow" is not "Workflow runs") and nothing is loading any more. */
export async function pageShown(p: Page, title: string | RegExp): Promise<void> {
  await p.getByRole("heading", { level: 1, name: title, exact: true }).waitFor({ timeout: WAIT_MS });
  await p.waitForFunction(() => !document.querySelector("[aria-busy=true]"), null, { timeout: WAIT_MS });
}

/** The trimmed text of the first match, once it exists and says something. */
export async function textOf(l: Locator): Promise<string> {
  const first = l.first();
  await first.waitFor({ timeout: WAIT_MS });
  const deadline = Date.now() + WAIT_MS;
  let text = "";
  while ((text = ((await first.textContent()) ?? "").trim()) === "" && Date.now() < deadline) await Bun.sleep(25);
  return text;
}

/** Asks until `check` gives a value (what the page did has reached the API), or fails after WAIT_MS. */
export async function eventually<T>(check: () => Promise<T | null>, what = "the API never showed the change the page made"): Promise<T> {
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    const got = await check();
    if (got !== null) return got;
    if (Date.now() > deadline) throw new Error(what);
    await Bun.sleep(50);
  }
}

/** Follows the navigation link `name` and waits for the page titled `title`. */
export async function navTo(p: Page, name: string, title: string | RegExp = name): Promise<void> {
  await p.getByRole("navigation", { name: "Dashboard" }).getByRole("link", { name, exact: true }).click();
  await pageShown(p, title);
}

/** Signs `email` in on `p` through the mailed magic link and waits for the overview; returns the link. */
export async function signInByMagicLink(p: Page, server: DashboardServer, email: string): Promise<string> {
  await p.goto(`${server.base}/`);
  await pageShown(p, "Sign in to NMS");
  await p.getByLabel("Email address").fill(email);
  await p.getByRole("button", { name: "Email me a sign-in link" }).click();
  await p.getByRole("status").filter({ hasText: "We sent a sign-in link" }).waitFor({ timeout: WAIT_MS });
  const link = await server.linkMailedTo(email);
  await p.goto(link);
  await pageShown(p, "Overview");
  return link;
}

/** A call to the API from the page, as the dashboard makes it: the session cookie, same origin. */
export async function sessionCall(p: Page, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  return await p.evaluate(
    async ([method, path, body]) => {
      const res = await fetch(path as string, { method: method as string, headers: { "content-type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) });
      return { status: res.status, body: await res.json() };
    },
    [method, path, body] as const,
  );
}

/**
 * Signs `email` in by magic link and creates a production secret key (read, write) from the page, as
 * a new owner does first: the tenant the sign-up made and the key's raw value.
 */
export async function signInWithKey(p: Page, server: DashboardServer, email: string, label: string): Promise<{ tenantId: string; key: string }> {
  await signInByMagicLink(p, server, email);
  const [user] = await sql`select tenant_id from users where email = ${email}`;
  if (!user) throw new Error(`signing in made no user ${email}`);
  const created = await sessionCall(p, "POST", "/v1/api-keys", { label, key_type: "secret", environment: "production", permissions: ["read", "write"] });
  if (created.status !== 201) throw new Error(`creating a key from the page answered ${created.status}: ${JSON.stringify(created.body)}`);
  return { tenantId: user.tenant_id, key: created.body.data.raw_key };
}
