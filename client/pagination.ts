// Lists: `await list` gives one page with its meta; `for await (const item of list)` walks every
// page (cursor or offset); `list.pages()` walks page by page. Nothing is fetched until used.
import type { CursorMeta } from "./types.js";

export interface Page<T, M> {
  data: T[];
  meta: M;
}

/** How a list moves on: the request parameters of the page after `page`, or undefined at the end. */
type NextOf<T, M, P> = (page: Page<T, M>, params: P) => P | undefined;

export class PageList<T, M, P> implements PromiseLike<Page<T, M>>, AsyncIterable<T> {
  #first: Promise<Page<T, M>> | undefined;

  constructor(
    private readonly load: (params: P) => Promise<Page<T, M>>,
    private readonly params: P,
    private readonly nextOf: NextOf<T, M, P>,
  ) {}

  /** The first page (fetched once, shared by `await` and iteration). */
  firstPage(): Promise<Page<T, M>> {
    return (this.#first ??= this.load(this.params));
  }

  then<A = Page<T, M>, B = never>(
    onFulfilled?: ((page: Page<T, M>) => A | PromiseLike<A>) | null,
    onRejected?: ((reason: unknown) => B | PromiseLike<B>) | null,
  ): Promise<A | B> {
    return this.firstPage().then(onFulfilled, onRejected);
  }

  async *pages(): AsyncGenerator<Page<T, M>, void, undefined> {
    let params = this.params;
    let page = await this.firstPage();
    for (;;) {
      yield page;
      const next = this.nextOf(page, params);
      if (next === undefined) return;
      params = next;
      page = await this.load(params);
    }
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<T, void, undefined> {
    for await (const page of this.pages()) yield* page.data;
  }

  /** Every item of every page, stopping after `max` items (default: all). */
  async toArray(max = Infinity): Promise<T[]> {
    const out: T[] = [];
    if (max <= 0) return out;
    for await (const item of this) {
      out.push(item);
      if (out.length >= max) break;
    }
    return out;
  }
}

/** meta {cursor, has_more}: the next page passes `cursor`. */
export function cursorList<T, P extends { cursor?: string }>(
  load: (params: P) => Promise<Page<T, CursorMeta>>,
  params: P,
): PageList<T, CursorMeta, P> {
  return new PageList(load, params, (page, p) =>
    page.meta.has_more && page.meta.cursor ? { ...p, cursor: page.meta.cursor } : undefined,
  );
}

/** meta {next_cursor} (the admin dead-letter list): the next page passes it as `cursor` until it is null. */
export function nextCursorList<T, M extends { next_cursor: string | null }, P extends { cursor?: string }>(
  load: (params: P) => Promise<Page<T, M>>,
  params: P,
): PageList<T, M, P> {
  return new PageList(load, params, (page, p) => (page.meta.next_cursor ? { ...p, cursor: page.meta.next_cursor } : undefined));
}

/** meta {total, limit, offset}: the next page starts after the items seen. */
export function offsetList<T, M extends { total: number; offset: number }, P extends { offset?: number | string | boolean }>(
  load: (params: P) => Promise<Page<T, M>>,
  params: P,
): PageList<T, M, P> {
  return new PageList(load, params, (page, p) => {
    const next = page.meta.offset + page.data.length;
    return page.data.length > 0 && next < page.meta.total ? { ...p, offset: next } : undefined;
  });
}

/** meta {total, page, per_page} (the /api-keys guide shape): the next page number. */
export function pageNumberList<T, M extends { total: number; page: number; per_page: number }, P extends { page?: number | string | boolean }>(
  load: (params: P) => Promise<Page<T, M>>,
  params: P,
): PageList<T, M, P> {
  return new PageList(load, params, (page, p) =>
    page.data.length > 0 && page.meta.page * page.meta.per_page < page.meta.total ? { ...p, page: page.meta.page + 1 } : undefined,
  );
}
