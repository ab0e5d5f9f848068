// nms.deadLetters (admin token): messages the actors gave up on, newest first across actors (or
// one actor's), one with its stack, redrive onto its key's partition, drop (/api/internal/dead-letters).
import { nextCursorList, type Page } from "../pagination.js";
import { path, type RequestOptions, type Transport } from "../transport.js";
import type { DeadLetter, DeadLetterListMeta, DeadLetterListParams, DeadLetterRedriveResult } from "../types.js";

export class DeadLetters {
  constructor(private readonly transport: Transport) {}

  /** `meta.totals` counts each listed actor's dead letters; pages follow `meta.next_cursor`. Limit 1-500, default 50. */
  list(params: DeadLetterListParams = {}, opts?: RequestOptions) {
    return nextCursorList(
      (query) =>
        this.transport.request<Page<DeadLetter, DeadLetterListMeta>>({ method: "GET", path: "/api/internal/dead-letters", query, admin: true }, opts),
      params,
    );
  }

  /** An actor and an entry id name one dead letter; this answer also carries the error's stack. */
  retrieve(actor: string, id: string, opts?: RequestOptions): Promise<DeadLetter> {
    return this.transport.data({ method: "GET", path: path`/api/internal/dead-letters/${actor}/${id}`, admin: true }, opts);
  }

  /**
   * Appends the message to its key's partition with a fresh delivery count and deletes the dead
   * letter. The server completes an interrupted redrive without a second copy, so it is retried.
   */
  redrive(actor: string, id: string, opts?: RequestOptions): Promise<DeadLetterRedriveResult> {
    return this.transport.data({ method: "POST", path: path`/api/internal/dead-letters/${actor}/${id}/redrive`, admin: true, safe: true }, opts);
  }

  /** Drops it: the message is never delivered. */
  del(actor: string, id: string, opts?: RequestOptions): Promise<void> {
    return this.transport.request({ method: "DELETE", path: path`/api/internal/dead-letters/${actor}/${id}`, admin: true }, opts);
  }
}
