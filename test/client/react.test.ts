// The @nms/react package's boundaries: it imports only React, @nms/client and its own files, type-checks
// without Bun or Node types, renders on a server (react-dom/server) touching no browser API, and builds to ES modules Node runs.
import { afterAll, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { createElement, type ReactNode } from "react";
import { renderToString } from "react-dom/server";

const root = join(import.meta.dir, "..", "..");
const pkgDir = join(root, "react");
const CONFIG = { apiUrl: "https://nms.example.com", publishableKey: "pk_test_x", subscriberId: "user-42", subscriberHash: "ab".repeat(32) };
const ALLOWED = new Set(["react", "react/jsx-runtime", "@nms/client"]);

afterAll(() => rmSync(join(pkgDir, "dist"), { recursive: true, force: true }));

function importsOf(text: string): string[] {
  return [...text.matchAll(/^(?:import|export)\s[^;]*?from\s+"([^"]+)"|^import\s+"([^"]+)"/gms)].map((m) => (m[1] ?? m[2])!);
}

/** Runs `fn` with fetch and EventSource replaced by traps; returns what touched them. */
async function withoutBrowserApis<T>(fn: () => Promise<T>): Promise<{ value: T; touched: string[] }> {
  const touched: string[] = [];
  const saved = ["fetch", "EventSource"].map((name) => [name, Object.getOwnPropertyDescriptor(globalThis, name)] as const);
  for (const [name] of saved) {
    Object.defineProperty(globalThis, name, {
      configurable: true,
      get() {
        touched.push(name);
        return () => {
          throw new Error(`${name} used on the server`);
        };
      },
    });
  }
  try {
    return { value: await fn(), touched };
  } finally {
    for (const [name, d] of saved) {
      if (d) Object.defineProperty(globalThis, name, d);
      else delete (globalThis as Record<string, unknown>)[name];
    }
  }
}

describe("react/ sources", () => {
  test("import only react, react/jsx-runtime, @nms/client and their own files (named .js, so the built modules run in Node)", () => {
    const files = readdirSync(pkgDir).filter((f) => /\.tsx?$/.test(f));
    expect(files.length).toBeGreaterThan(5);
    const offending = files.flatMap((f) =>
      importsOf(readFileSync(join(pkgDir, f), "utf8"))
        .filter((spec) => !(ALLOWED.has(spec) || (spec.startsWith("./") && spec.endsWith(".js"))))
        .map((spec) => `${f}: ${spec}`),
    );
    expect(offending).toEqual([]);
  });

  test("type-check with the DOM and ES2022 libraries only (no Bun, no Node types)", () => {
    const r = spawnSync(join(root, "node_modules/.bin/tsc"), ["--noEmit", "-p", "react"], { cwd: root, encoding: "utf8" });
    expect(r.stdout + r.stderr).toBe("");
    expect(r.status).toBe(0);
  });
});

describe("server-side rendering", () => {
  test("importing the package and rendering <NmsProvider>, <Inbox>, <Preferences> and the hooks with react-dom/server uses no fetch, EventSource, window or document", async () => {
    expect(typeof window).toBe("undefined");
    expect(typeof document).toBe("undefined");
    const { value: html, touched } = await withoutBrowserApis(async () => {
      const lib = await import("../../react/index");
      function Hooks(): ReactNode {
        const n = lib.useNotifications();
        const p = lib.usePreferences();
        return createElement("output", null, `${n.status} ${n.items.length} ${n.connection} ${lib.useUnreadCount()} ${p.status}`);
      }
      return renderToString(
        createElement(
          lib.NmsProvider,
          { ...CONFIG, locale: "pt-BR" },
          createElement(lib.Inbox, { defaultOpen: true }),
          createElement(lib.Preferences),
          createElement(Hooks),
        ),
      );
    });
    expect(touched).toEqual([]);
    expect(html).toContain('aria-label="Notificações"'); // the bell, in the provider's locale, no unread count yet
    expect(html).toContain('role="dialog"');
    expect(html.match(/Carregando…/g)?.length).toBe(2); // the inbox and the preferences wait for the browser
    expect(html).toContain("<output>loading 0 off 0 loading</output>");
  });

  test("a hook or component outside <NmsProvider> says what is missing", async () => {
    const lib = await import("../../react/index");
    expect(() => renderToString(createElement(lib.Inbox))).toThrow("needs an <NmsProvider> above it");
  });
});

describe("the built package", () => {
  test("npm run build:react writes ES modules with .d.ts that Node imports and renders on a server without fetch", () => {
    const build = spawnSync("npm", ["run", "build:react"], { cwd: root, encoding: "utf8" });
    expect(build.status).toBe(0);
    const dist = readdirSync(join(pkgDir, "dist"));
    expect(dist).toContain("index.js");
    expect(dist).toContain("index.d.ts");
    const imports = dist.filter((f) => f.endsWith(".js")).flatMap((f) => importsOf(readFileSync(join(pkgDir, "dist", f), "utf8")));
    expect(imports.filter((spec) => !(ALLOWED.has(spec) || spec.startsWith("./")))).toEqual([]);

    // what a Next.js server does: import the package, render, no browser API (Node has no window, document or EventSource)
    const script = `delete globalThis.fetch;
const { createElement: h } = await import("react");
const { renderToString } = await import("react-dom/server");
const { NmsProvider, Inbox, Preferences } = await import("@nms/react");
console.log(renderToString(h(NmsProvider, ${JSON.stringify(CONFIG)}, h(Inbox), h(Preferences))));`;
    const r = spawnSync("node", ["--input-type=module", "-e", script], { cwd: root, encoding: "utf8" });
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('aria-label="Notifications"');
    expect(r.stdout).toContain('aria-label="Notification preferences"');
  }, 120_000);
});
