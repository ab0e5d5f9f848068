// Cursor-paged lists (runs, deliveries, domains): the first page comes from useLoad, older pages are
// appended on request by a "Show older" button; while any are shown the first page is not refreshed.
import { useEffect, useState } from "preact/hooks";
import type { Page } from "../../../client";
import { ErrorNotice } from "./states";
import { useAction, type Action } from "./use-load";

type CursorPage<T> = Page<T, { cursor: string | null; has_more: boolean }>;

export interface OlderPages<T> {
  items: T[];
  /** The cursor of the page after what is shown: the first page's while no older page is shown. */
  cursorAfter(first: CursorPage<T>): string | null;
  more: Action<[string]>;
}

/**
 * `fetchPage` loads the page after a cursor. The older pages are forgotten when `filters` change
 * (the first page loads again then), not when the first page is refreshed in place.
 */
export function useOlderPages<T>(fetchPage: (cursor: string) => PromiseLike<CursorPage<T>>, filters: unknown[]): OlderPages<T> {
  const [older, setOlder] = useState<{ items: T[]; cursor: string | null }>({ items: [], cursor: null });
  useEffect(() => setOlder((o) => (o.items.length ? { items: [], cursor: null } : o)), filters);
  const more = useAction(async (cursor: string) => {
    const page = await fetchPage(cursor);
    setOlder((o) => ({ items: [...o.items, ...page.data], cursor: page.meta.has_more ? page.meta.cursor : null }));
  });
  return {
    items: older.items,
    cursorAfter: (first) => (older.items.length ? older.cursor : first.meta.has_more ? first.meta.cursor : null),
    more,
  };
}

/** The "Show older …" button under a list, with the error of the last try. */
export function OlderButton<T>({ pages, first, label }: { pages: OlderPages<T>; first: CursorPage<T>; label: string }) {
  const cursor = pages.cursorAfter(first);
  return (
    <>
      {pages.more.error ? <ErrorNotice error={pages.more.error} /> : null}
      {cursor ? (
        <button type="button" class="secondary" disabled={pages.more.pending} onClick={() => pages.more.run(cursor)}>
          {pages.more.pending ? "Loading…" : label}
        </button>
      ) : null}
    </>
  );
}
