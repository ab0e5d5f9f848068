// Operator actions on dead letters (admin routes and `npm run dead-letters`): list across actors,
// show, redrive onto the partition of its key, drop. Every action is logged with who asked.
import { logger } from "../../basics/log";
import { AppError, validationFailed } from "../../basics/errors";
import * as dl from "../../runtime";
import type { DeadLetter } from "../../runtime";
import { getRuntime } from "../../store/runtime-handle";

const log = logger.child({ component: "dead-letters" });

/** The JSON shape of a dead letter (schemas/dead-letters.ts DeadLetter); the stack only when asked. */
export function deadLetterView(d: DeadLetter, withStack = false) {
  let message: unknown = d.json;
  try {
    message = JSON.parse(d.json);
  } catch {
    // unreadable JSON is why some messages are here: show it as it is
  }
  return {
    id: d.id,
    actor: d.actor,
    partition: d.partition,
    message_id: d.messageId,
    key: d.key,
    message,
    error: d.error,
    ...(withStack ? { stack: d.stack } : {}),
    deliveries: d.deliveries,
    failed_at: d.failedAt,
  };
}

const notFound = (actor: string, id: string) => new AppError("dead_letter_not_found", `No dead letter ${id} for actor ${actor}`);

const CURSOR = /^(\d+-\d+):([A-Za-z0-9_-]+)$/;

/** Newest first over every actor (or one): the cursor is the last item's "<id>:<actor>" (ids repeat across actors). */
export async function listDeadLetters(opts: { actor?: string; cursor?: string; limit: number }, by: string) {
  const runtime = getRuntime();
  let after: { id: string; actor: string } | null = null;
  if (opts.cursor) {
    const m = CURSOR.exec(opts.cursor);
    if (!m) throw validationFailed({ cursor: ["is not a cursor this list returned"] });
    after = { id: m[1]!, actor: m[2]! };
  }
  const actors = opts.actor ? [opts.actor] : await dl.deadLetterActors(runtime);
  const perActor = await Promise.all(
    actors.map(async (actor) => ({
      actor,
      total: await dl.countDeadLetters(runtime, actor),
      // at most one of them is the cursor's own entry (ids are unique in a stream), and one more
      // than the page tells whether another page follows
      rows: await dl.listDeadLetters(runtime, actor, { limit: opts.limit + 2, maxId: after?.id }),
    })),
  );
  const newestFirst = (a: DeadLetter, b: DeadLetter) => dl.compareEntryIds(b.id, a.id) || (a.actor < b.actor ? 1 : a.actor > b.actor ? -1 : 0);
  const rows = perActor
    .flatMap((p) => p.rows.map((r) => ({ ...r, actor: p.actor })))
    .filter((r) => !after || newestFirst(r, { ...r, id: after.id, actor: after.actor }) > 0)
    .sort(newestFirst);
  const page = rows.slice(0, opts.limit);
  const last = page[page.length - 1];
  log.info({ action: "dead_letter.list", actor: opts.actor ?? null, cursor: opts.cursor ?? null, returned: page.length, by }, "dead letters listed");
  return {
    items: page,
    nextCursor: rows.length > opts.limit && last ? `${last.id}:${last.actor}` : null,
    totals: Object.fromEntries(perActor.map((p) => [p.actor, p.total])),
  };
}

export async function showDeadLetter(actor: string, id: string, by: string): Promise<DeadLetter> {
  const d = await dl.getDeadLetter(getRuntime(), actor, id);
  if (!d) throw notFound(actor, id);
  log.info({ action: "dead_letter.show", actor, dead_letter_id: id, by }, "dead letter shown");
  return d;
}

/** Puts it back on the partition of its key with a fresh delivery count and deletes it (runtime/dead-letters.ts). */
export async function redriveDeadLetter(actor: string, id: string, by: string) {
  const r = await dl.redriveDeadLetter(getRuntime(), actor, id);
  if (!r) throw notFound(actor, id);
  log.info(
    { action: "dead_letter.redrive", actor, dead_letter_id: id, message_id: r.deadLetter.messageId, key: r.deadLetter.key, partition: r.partition, entry_id: r.entryId, by },
    "dead letter redriven",
  );
  return r;
}

export async function dropDeadLetter(actor: string, id: string, by: string): Promise<DeadLetter> {
  const d = await dl.dropDeadLetter(getRuntime(), actor, id);
  if (!d) throw notFound(actor, id);
  log.info({ action: "dead_letter.drop", actor, dead_letter_id: id, message_id: d.messageId, key: d.key, error: d.error, by }, "dead letter dropped");
  return d;
}
