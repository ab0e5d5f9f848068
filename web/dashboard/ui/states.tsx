// The three states every page has besides its data: loading (a placeholder of the same size, so
// nothing jumps), the API's error with its message, and empty with what to do next.
import type { ComponentChildren } from "preact";
import type { ShownError } from "../api";
import type { Load } from "./use-load";

export function Loading({ label, rows = 3 }: { label: string; rows?: number }) {
  return (
    <div class="loading" role="status" aria-live="polite" aria-busy="true">
      <span class="visually-hidden">{label}</span>
      {Array.from({ length: rows }, (_, i) => (
        <div key={i} class="skeleton" aria-hidden="true" />
      ))}
    </div>
  );
}

/** The standard error body as a person reads it: the message first, then the code and fields. */
export function ErrorNotice({ error, onRetry, title }: { error: ShownError; onRetry?: () => void; title?: string }) {
  const fields = Object.entries(error.details ?? {});
  return (
    <div class="notice error-notice" role="alert">
      {title ? <p class="notice-title">{title}</p> : null}
      <p class="error-message">{error.message}</p>
      {fields.length > 0 ? (
        <ul class="error-details">
          {fields.map(([field, messages]) => (
            <li key={field}>
              <code>{field}</code> {messages.join("; ")}
            </li>
          ))}
        </ul>
      ) : null}
      <p class="error-code">
        <code>{error.code}</code>
        {error.status ? ` · HTTP ${error.status}` : ""}
        {error.requestId ? ` · request ${error.requestId}` : ""}
      </p>
      {onRetry ? (
        <button type="button" class="secondary" onClick={onRetry}>
          Try again
        </button>
      ) : null}
    </div>
  );
}

export function Empty({ title, children }: { title: string; children?: ComponentChildren }) {
  return (
    <div class="empty">
      <p class="empty-title">{title}</p>
      {children ? <div class="empty-hint">{children}</div> : null}
    </div>
  );
}

interface AsyncProps<T> {
  load: Load<T>;
  /** What is loading, for screen readers ("Loading notifications"). */
  label: string;
  rows?: number;
  isEmpty?: (data: T) => boolean;
  empty?: ComponentChildren;
  children: (data: T) => ComponentChildren;
}

/** Loading, error (with Try again), empty or the data, from one useLoad result. */
export function Async<T>({ load, label, rows, isEmpty, empty, children }: AsyncProps<T>) {
  if (load.status === "loading") return <Loading label={label} rows={rows} />;
  if (load.status === "error") return <ErrorNotice error={load.error} onRetry={load.reload} />;
  const view = isEmpty?.(load.data) ? empty : children(load.data);
  if (!load.stale) return <>{view}</>;
  return (
    <div class="stale" aria-busy="true">
      <span class="visually-hidden" role="status">
        {label}
      </span>
      {view}
    </div>
  );
}
