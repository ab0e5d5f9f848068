// The dashboard's URLs on the History API: the current location as a hook, navigate(), and the
// environment carried in every URL (?env=sandbox), so a copied link opens the same data.
import { useEffect, useState } from "preact/hooks";
import type { Environment } from "../api";

export interface Location {
  path: string;
  query: URLSearchParams;
  /** What the page that navigated here had to say ("Published."), kept with this history entry. */
  notice?: string;
}

const listeners = new Set<() => void>();

function read(): Location {
  const notice = (window.history.state as { notice?: unknown } | null)?.notice;
  return { path: window.location.pathname, query: new URLSearchParams(window.location.search), notice: typeof notice === "string" ? notice : undefined };
}

window.addEventListener("popstate", () => listeners.forEach((l) => l()));

export interface NavigateOptions {
  replace?: boolean;
  /** Shown at the top of the next page, e.g. after an action that left the page it happened on. */
  notice?: string;
}

/** Moves to `to` (path and query) as a new history entry, or in place with `replace`. */
export function navigate(to: string, opts: NavigateOptions = {}): void {
  const here = window.location.pathname + window.location.search;
  if (to === here && !opts.notice) return;
  const state = opts.notice ? { notice: opts.notice } : null;
  if (opts.replace) window.history.replaceState(state, "", to);
  else window.history.pushState(state, "", to);
  listeners.forEach((l) => l());
}

export function useLocation(): Location {
  const [location, setLocation] = useState(read);
  useEffect(() => {
    const update = () => setLocation(read());
    listeners.add(update);
    return () => void listeners.delete(update);
  }, []);
  return location;
}

const STORED_ENV = "nms.environment";

/** The URL's environment, else the one used last (stored), else production. */
export function environmentOf(query: URLSearchParams): Environment {
  const v = query.get("env");
  if (v === "production" || v === "sandbox") return v;
  try {
    return window.localStorage.getItem(STORED_ENV) === "sandbox" ? "sandbox" : "production";
  } catch {
    return "production";
  }
}

export function rememberEnvironment(env: Environment): void {
  try {
    window.localStorage.setItem(STORED_ENV, env);
  } catch {
    // private windows may refuse storage: the URL still carries the environment
  }
}

/**
 * `path` with query `params` (empty values left out) and the environment: every link and
 * navigation of the dashboard is built here.
 */
export function href(path: string, env: Environment, params: Record<string, string | undefined> = {}): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== "") q.set(k, v);
  q.set("env", env);
  return `${path}?${q.toString()}`;
}

/** `pattern` ("/notifications/:id") against `path`: the named segments, or null. */
export function matchPath(pattern: string, path: string): Record<string, string> | null {
  const want = pattern.split("/").filter(Boolean);
  const got = path.split("/").filter(Boolean);
  if (want.length !== got.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < want.length; i++) {
    const w = want[i]!;
    if (w.startsWith(":")) {
      try {
        params[w.slice(1)] = decodeURIComponent(got[i]!);
      } catch {
        return null;
      }
    } else if (w !== got[i]) return null;
  }
  return params;
}
