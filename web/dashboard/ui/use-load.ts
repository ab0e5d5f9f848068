// Loading data for a page: loading, error and ready states from one API call, stale answers
// ignored, an optional quiet refresh; and useAction for a button's call with pending and error.
import { useCallback, useEffect, useRef, useState } from "preact/hooks";
import { isSessionLost, shownError, type ShownError } from "../api";
import { useDashboard } from "../app/context";

export type Loaded<T> =
  | { status: "loading"; data?: undefined; error?: undefined }
  | { status: "error"; error: ShownError; data?: undefined }
  /** `stale`: new parameters (a filter) are loading; the page keeps showing these meanwhile. */
  | { status: "ready"; data: T; error?: undefined; stale?: boolean };

export type Load<T> = Loaded<T> & {
  /** Loads again, showing the loading state. */
  reload(): void;
  /** Replaces the data after a change the page made itself. */
  setData(data: T): void;
};

export interface LoadOptions<T> {
  /**
   * Fetches again quietly (no loading state, the page keeps its layout) after this many ms while
   * the data says so: e.g. a notification that is not final yet.
   */
  refreshMs?: (data: T) => number | undefined;
}

/** Runs `fn` when `deps` change (and on reload). The API instance is a dependency by itself. */
export function useLoad<T>(fn: () => Promise<T>, deps: unknown[], opts: LoadOptions<T> = {}): Load<T> {
  const { api, sessionLost } = useDashboard();
  const [state, setState] = useState<Loaded<T>>({ status: "loading" });
  const [round, setRound] = useState(0);
  const run = useRef(0);
  const refreshMs = useRef(opts.refreshMs);
  refreshMs.current = opts.refreshMs;

  useEffect(() => {
    const mine = ++run.current;
    let timer: ReturnType<typeof setTimeout> | undefined;
    // data already shown stays (dimmed) while the next answer loads: a filter change moves nothing
    setState((prev) => (prev.status === "ready" ? { ...prev, stale: true } : { status: "loading" }));
    const fetchOnce = async (quiet: boolean) => {
      try {
        const data = await fn();
        if (run.current !== mine) return;
        setState({ status: "ready", data });
        const wait = refreshMs.current?.(data);
        if (wait !== undefined) timer = setTimeout(() => fetchOnce(true), wait);
      } catch (err) {
        if (run.current !== mine) return;
        const shown = shownError(err);
        if (isSessionLost(shown)) return sessionLost();
        // a failed quiet refresh keeps what the page shows and tries again later
        if (quiet) timer = setTimeout(() => fetchOnce(true), 5_000);
        else setState({ status: "error", error: shown });
      }
    };
    fetchOnce(false);
    return () => {
      run.current++;
      if (timer) clearTimeout(timer);
    };
  }, [api, round, ...deps]);

  const reload = useCallback(() => setRound((r) => r + 1), []);
  const setData = useCallback((data: T) => setState({ status: "ready", data }), []);
  return { ...state, reload, setData } as Load<T>;
}

export interface Action<A extends unknown[]> {
  run(...args: A): Promise<boolean>;
  pending: boolean;
  error: ShownError | null;
  clearError(): void;
}

/** A call a person starts (save, revoke, send): pending while it runs, its error kept for display. */
export function useAction<A extends unknown[]>(fn: (...args: A) => Promise<unknown>): Action<A> {
  const { sessionLost } = useDashboard();
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<ShownError | null>(null);
  const mounted = useRef(true);
  useEffect(() => () => void (mounted.current = false), []);
  const run = async (...args: A): Promise<boolean> => {
    setPending(true);
    setError(null);
    try {
      await fn(...args);
      return true;
    } catch (err) {
      const shown = shownError(err);
      if (isSessionLost(shown)) sessionLost();
      else if (mounted.current) setError(shown);
      return false;
    } finally {
      if (mounted.current) setPending(false);
    }
  };
  return { run, pending, error, clearError: () => setError(null) };
}
