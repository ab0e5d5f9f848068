// The client package's boundaries: it imports only its own files (the schema types are generated into
// it and kept current), it type-checks without Bun or Node types, `npm pack` makes a tarball that
// installs into an empty Node 20 project and works there from plain JavaScript and TypeScript, its
// bundle runs for browsers, and it covers the API: every resource method is tested, every operation
// of /openapi.json has a method.
import { afterAll, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { Webhook as StandardWebhook } from "standardwebhooks";
import { IDEMPOTENT_POST_RE } from "../../http/plugins/idempotency";
import { app } from "../support/fixtures";

const root = join(import.meta.dir, "..", "..");
const clientDir = join(root, "client");
const tmp = mkdtempSync(join(tmpdir(), "nms-client-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith(".ts") ? [join(dir, e.name)] : [],
  );
}

describe("client/ imports", () => {
  test("only its own files, each named with its .js extension (so the built ES modules run in Node)", () => {
    const offending: string[] = [];
    const files = sources(clientDir).filter((f) => !f.includes("/dist/"));
    for (const file of files) {
      const text = readFileSync(file, "utf8");
      for (const m of text.matchAll(/^(import|export)\s+(type\s+)?[^;]*?from\s+"([^"]+)"/gms)) {
        const spec = m[3]!;
        const target = spec.startsWith(".") ? relative(root, join(file, "..", spec)) : spec;
        if (!target.startsWith("client/") || !spec.endsWith(".js")) offending.push(`${relative(root, file)}: ${m[0].split("\n")[0]}`);
      }
    }
    expect(files.length).toBeGreaterThan(40);
    expect(offending).toEqual([]);
  });

  test("the schema types in client/schema-types/ are what scripts/generate-client-types.ts writes from schemas/ now", async () => {
    const { generatedFiles, SCHEMA_TYPES_DIR } = await import("../../scripts/generate-client-types");
    const want = await generatedFiles();
    const have = new Map(readdirSync(SCHEMA_TYPES_DIR).map((f) => [f, readFileSync(join(SCHEMA_TYPES_DIR, f), "utf8")]));
    expect([...have.keys()].sort()).toEqual([...want.keys()].sort());
    const stale = [...want].filter(([f, text]) => have.get(f) !== text).map(([f]) => f);
    // run `npm run generate:client-types` after changing a schema the client uses
    expect(stale).toEqual([]);
  });

  test("type-checks with the DOM and ES2022 libraries only (no Bun, no Node types)", () => {
    const r = spawnSync(join(root, "node_modules/.bin/tsc"), ["--noEmit", "-p", "client"], { cwd: root, encoding: "utf8" });
    expect(r.stdout + r.stderr).toBe("");
    expect(r.status).toBe(0);
  });
});

describe("the packed package in an empty Node 20 project", () => {
  test("npm pack builds ES modules with .d.ts; the tarball installs offline and works from JavaScript, and its types from TypeScript", async () => {
    const pack = spawnSync("npm", ["pack", "-w", "client", "--pack-destination", tmp, "--json"], { cwd: root, encoding: "utf8" });
    expect(pack.status).toBe(0);
    const [packed] = JSON.parse(pack.stdout) as { filename: string; files: { path: string }[] }[];
    const paths = packed!.files.map((f) => f.path);
    expect(paths).toContain("dist/index.js");
    expect(paths).toContain("dist/index.d.ts");
    expect(paths.some((p) => p.endsWith(".ts") && !p.endsWith(".d.ts"))).toBe(false); // no TypeScript sources needed
    const app = join(tmp, "app");
    mkdirSync(app);
    writeFileSync(join(app, "package.json"), JSON.stringify({ name: "app", private: true, type: "module" }));
    const install = spawnSync("npm", ["install", "--offline", "--no-audit", "--no-fund", join(tmp, packed!.filename)], { cwd: app, encoding: "utf8" });
    expect(install.stderr).not.toContain("ERR");
    expect(install.status).toBe(0);

    const server = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      fetch: (req) => Response.json({ data: [{ channel: "email", provider: "smtp", auth: req.headers.get("authorization") }] }),
    });
    try {
      writeFileSync(
        join(app, "use.mjs"),
        `import { Nms, NmsError, verifyWebhookSignature } from "@nms/client";
const nms = new Nms({ baseUrl: ${JSON.stringify(`http://127.0.0.1:${server.port}`)}, apiKey: "nk_test_packed" });
const channels = await nms.channels.list();
const key = await crypto.subtle.importKey("raw", new TextEncoder().encode("s"), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
const mac = Buffer.from(await crypto.subtle.sign("HMAC", key, new TextEncoder().encode("body"))).toString("hex");
let refused = null;
try { await new Nms({ baseUrl: "http://127.0.0.1:9", apiKey: "nk_test_x", maxRetries: 0 }).channels.list(); } catch (e) { refused = e instanceof NmsError ? e.code : String(e); }
console.log(JSON.stringify({ node: process.version, channels, signed: await verifyWebhookSignature("body", "sha256=" + mac, "s"), refused }));`,
      );
      const r = Bun.spawn(["node", "use.mjs"], { cwd: app, stdout: "pipe", stderr: "pipe" });
      const [stdout, stderr, code] = await Promise.all([new Response(r.stdout).text(), new Response(r.stderr).text(), r.exited]);
      expect(stderr).toBe("");
      expect(code).toBe(0);
      const result = JSON.parse(stdout);
      expect(Number(result.node.slice(1).split(".")[0])).toBeGreaterThanOrEqual(20);
      expect(result).toMatchObject({ channels: [{ channel: "email", provider: "smtp", auth: "Bearer nk_test_packed" }], signed: true, refused: "connection_error" });
    } finally {
      server.stop(true);
    }

    // TypeScript in that project finds the declarations through the package's exports
    writeFileSync(
      join(app, "use.ts"),
      `import { Nms, type Notification, type NotificationCreateParams } from "@nms/client";
const params: NotificationCreateParams = { channel: "email", to: "ana@example.com", data: { name: "Ana" } };
export async function send(nms: Nms): Promise<Notification["status"]> {
  const n = await nms.notifications.create(params);
  return (await nms.notifications.retrieve(n.id)).status;
}
// @ts-expect-error: not a channel
export const wrong: NotificationCreateParams = { channel: "fax", to: "x" };
`,
    );
    writeFileSync(join(app, "tsconfig.json"), JSON.stringify({ compilerOptions: { strict: true, module: "nodenext", moduleResolution: "nodenext", target: "es2022", lib: ["es2022", "dom"], noEmit: true, types: [] }, files: ["use.ts"] }));
    const tsc = spawnSync(join(root, "node_modules/.bin/tsc"), ["-p", "tsconfig.json"], { cwd: app, encoding: "utf8" });
    expect(tsc.stdout + tsc.stderr).toBe("");
    expect(tsc.status).toBe(0);
  }, 120_000);
});

describe("client bundle", () => {
  test("for browsers: no server code, no Node built-ins", async () => {
    const out = await Bun.build({ entrypoints: [join(clientDir, "index.ts")], target: "browser", minify: false });
    expect(out.success).toBe(true);
    const js = await out.outputs[0]!.text();
    expect(js).not.toMatch(/from\s*"node:|require\("node:|elysia|postgres|ioredis/);
    expect(js).toContain("class Nms");
  });

  test("runs in plain Node: a request through fetch and both webhook checks through Web Crypto", async () => {
    const out = await Bun.build({ entrypoints: [join(clientDir, "index.ts")], target: "node", format: "esm" });
    expect(out.success).toBe(true);
    writeFileSync(join(tmp, "client.mjs"), await out.outputs[0]!.text());
    const server = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      fetch: (req) => Response.json({ data: [{ channel: "sms", auth: req.headers.get("authorization") }] }),
    });
    const whsec = `whsec_${Buffer.alloc(32, 3).toString("base64")}`;
    const at = new Date();
    const standard = { "webhook-id": "msg_1", "webhook-timestamp": String(Math.floor(at.getTime() / 1000)), "webhook-signature": new StandardWebhook(whsec).sign("msg_1", at, "body") };
    try {
      writeFileSync(
        join(tmp, "check.mjs"),
        `import { Nms, verifyStandardWebhook, verifyWebhookSignature } from "./client.mjs";
const nms = new Nms({ baseUrl: ${JSON.stringify(`http://127.0.0.1:${server.port}`)}, apiKey: "nk_test_node" });
const channels = await nms.channels.list();
const key = await crypto.subtle.importKey("raw", new TextEncoder().encode("s"), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
const mac = Buffer.from(await crypto.subtle.sign("HMAC", key, new TextEncoder().encode("body"))).toString("hex");
const standard = await verifyStandardWebhook("body", new Headers(${JSON.stringify(standard)}), ${JSON.stringify(whsec)});
console.log(JSON.stringify({ node: process.version, channels, ok: await verifyWebhookSignature("body", "sha256=" + mac, "s"), standard }));`,
      );
      const r = Bun.spawn(["node", join(tmp, "check.mjs")], { stdout: "pipe", stderr: "pipe" });
      const [stdout, stderr] = await Promise.all([new Response(r.stdout).text(), new Response(r.stderr).text()]);
      expect(stderr).toBe("");
      const result = JSON.parse(stdout);
      expect(Number(result.node.slice(1).split(".")[0])).toBeGreaterThanOrEqual(20);
      expect(result.channels).toEqual([{ channel: "sms", auth: "Bearer nk_test_node" }]);
      expect(result.ok).toBe(true);
      expect(result.standard).toBe(true);
    } finally {
      server.stop(true);
    }
  });
});

describe("client coverage", () => {
  test("every resource method of Nms is called in test/client/resources.test.ts", async () => {
    const { Nms } = await import("../../client");
    const calls = readFileSync(join(import.meta.dir, "resources.test.ts"), "utf8");
    const methods: string[] = [];
    const walk = (obj: object, path: string) => {
      for (const name of Object.getOwnPropertyNames(Object.getPrototypeOf(obj))) {
        if (name !== "constructor") methods.push(`${path}.${name}`);
      }
      for (const [key, value] of Object.entries(obj)) {
        // nested namespaces (subscribers.inbox, apiKeys.guide ...), not the shared transport
        if (key !== "transport" && value && typeof value === "object") walk(value, `${path}.${key}`);
      }
    };
    walk(new Nms(), "");
    expect(methods.length).toBeGreaterThan(50);
    const missing = methods.map((m) => m.slice(1)).filter((m) => !new RegExp(`\\.${m.replace(/\./g, "\\.")}\\(`).test(calls));
    expect(missing).toEqual([]);
  });

  /** Operations a browser reaches by itself (links, redirects, pages) or a provider calls: no client method. */
  const NOT_FOR_THE_CLIENT: Record<string, RegExp> = {
    // the dashboard's calls (session, providers, magic-link request, logout) are client methods
    "sign-in pages a browser opens: the magic link's verify redirect and the OAuth redirects": /^\/auth\/(magic-link\/verify|\{provider\}(\/callback)?)$/,
    "the unsubscribe page a recipient opens from an email": /^\/unsubscribe\//,
    "the hosted preference center a subscriber opens from a link": /^\/preferences\//,
    "provider callbacks (WhatsApp, Twilio, SendGrid) called by the providers": /^\/webhooks\//,
    "open and click tracking reached from emails": /^\/track\//,
    "the inbox embed's script, loaded by a <script> tag": /^\/embed\//,
    "Prometheus scrape": /^\/metrics$/,
    "uptime checks": /^\/health$/,
    "the dashboard's own page and assets, loaded by the browser": /^\/(assets\/\*|\*)?$/,
  };

  test("every operation of /openapi.json (but the browser-only flows) has a client method, and every request of a method is an operation", async () => {
    const { Nms } = await import("../../client");
    const doc = (await (await app().handle(new Request("http://localhost/openapi.json"))).json()) as { paths: Record<string, Record<string, unknown>> };
    const operations: { name: string; method: string; re: RegExp; literals: number }[] = [];
    const skipped = new Set<string>();
    for (const [p, item] of Object.entries(doc.paths)) {
      for (const method of Object.keys(item).filter((m) => ["get", "post", "put", "patch", "delete"].includes(m))) {
        const name = `${method.toUpperCase()} ${p}`;
        const reason = Object.entries(NOT_FOR_THE_CLIENT).find(([, re]) => re.test(p));
        if (reason) {
          skipped.add(reason[0]);
          continue;
        }
        const re = new RegExp(`^${p.replace(/\{[^}]+\}/g, "[^/]+")}$`);
        operations.push({ name, method: method.toUpperCase(), re, literals: p.split("/").filter((seg) => !seg.startsWith("{")).length });
      }
    }
    // every exclusion still names something the document serves
    expect([...skipped].sort()).toEqual(Object.keys(NOT_FOR_THE_CLIENT).sort());
    expect(operations.length).toBeGreaterThan(90);

    // every method called once with placeholder arguments; a fetch records each request and
    // answers an empty page (an event stream for the stream)
    const reached = new Set<string>();
    const stray: string[] = [];
    const keys: string[] = [];
    const recording = (async (input: RequestInfo | URL, init?: RequestInit) => {
      const url = new URL(String(input));
      const method = init?.method ?? "GET";
      // the most specific operation: /v1/domains/alerts, not /v1/domains/{id}
      const op = operations.filter((o) => o.method === method && o.re.test(url.pathname)).sort((a, b) => b.literals - a.literals)[0];
      if (op) reached.add(op.name);
      else stray.push(`${method} ${url.pathname}`);
      if (method === "POST" && new Headers(init?.headers).has("idempotency-key") !== IDEMPOTENT_POST_RE.test(url.pathname)) keys.push(`${method} ${url.pathname}`);
      if (url.pathname.endsWith("/stream")) return new Response("", { headers: { "content-type": "text/event-stream" } });
      return Response.json({ data: [], meta: { cursor: null, has_more: false, next_cursor: null, total: 0, limit: 1, offset: 0, page: 1, per_page: 1 } });
    }) as typeof fetch;
    const nms = new Nms({ baseUrl: "http://client.test", apiKey: "nk_test_x", adminToken: "admin", fetch: recording, maxRetries: 0 });
    const calls: [object, string][] = [];
    const walk = (obj: object) => {
      for (const name of Object.getOwnPropertyNames(Object.getPrototypeOf(obj))) if (name !== "constructor") calls.push([obj, name]);
      for (const [key, value] of Object.entries(obj)) if (key !== "transport" && value && typeof value === "object") walk(value);
    };
    walk(nms);
    for (const [obj, name] of calls) {
      const fn = (obj as Record<string, (...args: unknown[]) => unknown>)[name]!;
      const result = fn.apply(obj, Array.from({ length: fn.length }, (_, i) => `arg${i}`)) as any;
      if (typeof result?.then === "function") await result;
      else if (typeof result?.next === "function") {
        await result.next();
        await result.return();
      }
    }
    expect(stray).toEqual([]);
    expect(keys).toEqual([]); // an Idempotency-Key exactly on the POSTs the server deduplicates
    expect(operations.map((o) => o.name).filter((n) => !reached.has(n))).toEqual([]);
  });
});
