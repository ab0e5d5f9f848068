// Reading and handling an actor's dead letters (`<prefix>:dead:<actor>`): list newest first, one by
// id, re-drive onto the partition of its key with a fresh delivery count, drop. Knows nothing of notifications.
import { partitionOf } from "./partition";
import { scanKeys } from "./redis-client";
import type { Runtime } from "./types";

export interface DeadLetter {
  /** the entry id in the dead-letter stream (ids are per actor: an actor and an id name one) */
  id: string;
  actor: string;
  /** the partition it was read from */
  partition: number;
  /** its entry id in the partition stream when it failed */
  messageId: string;
  key: string;
  /** the message JSON as it was sent */
  json: string;
  error: string;
  stack: string;
  deliveries: number;
  failedAt: string;
}

/**
 * A redrive's hash entry is left to expire rather than deleted, so two operators redriving the same
 * dead letter at once still append it once; it only has to outlive the gap between the two steps.
 */
const REDRIVEN_TTL_MS = 24 * 3600 * 1000;
const ENTRY_ID = /^\d+-\d+$/;

function toDeadLetter(actor: string, id: string, fields: string[]): DeadLetter {
  const f = new Map<string, string>();
  for (let i = 0; i + 1 < fields.length; i += 2) f.set(fields[i]!, fields[i + 1]!);
  return {
    id,
    actor: f.get("actor") ?? actor,
    partition: Number(f.get("partition") ?? 0),
    messageId: f.get("id") ?? "",
    key: f.get("k") ?? "",
    json: f.get("m") ?? "",
    error: f.get("error") ?? "",
    stack: f.get("stack") ?? "",
    deliveries: Number(f.get("deliveries") ?? 0),
    failedAt: f.get("failedAt") ?? "",
  };
}

/** Actor names that have a dead-letter stream (SCAN; on a cluster, every master). */
export async function deadLetterActors(runtime: Runtime): Promise<string[]> {
  const prefix = runtime.keys.dead("");
  const names = new Set<string>();
  for await (const keys of scanKeys(runtime.redis, `${prefix}*`, 500)) for (const k of keys) names.add(k.slice(prefix.length));
  return [...names].filter((n) => /^[A-Za-z0-9_-]+$/.test(n)).sort();
}

/** Newest first, at most `limit`, with ids at or below `maxId` when given. */
export async function listDeadLetters(runtime: Runtime, actor: string, opts: { limit: number; maxId?: string }): Promise<DeadLetter[]> {
  const max = opts.maxId && ENTRY_ID.test(opts.maxId) ? opts.maxId : "+";
  const rows = (await runtime.redis.xrevrange(runtime.keys.dead(actor), max, "-", "COUNT", opts.limit)) as [string, string[]][];
  return rows.map(([id, fields]) => toDeadLetter(actor, id, fields));
}

export async function countDeadLetters(runtime: Runtime, actor: string): Promise<number> {
  return runtime.redis.xlen(runtime.keys.dead(actor));
}

export async function getDeadLetter(runtime: Runtime, actor: string, id: string): Promise<DeadLetter | null> {
  if (!ENTRY_ID.test(id)) return null;
  const rows = (await runtime.redis.xrange(runtime.keys.dead(actor), id, id)) as [string, string[]][];
  return rows[0] ? toDeadLetter(actor, rows[0][0], rows[0][1]) : null;
}

export interface Redriven {
  deadLetter: DeadLetter;
  /** the partition stream it was appended to: the partition of its key now */
  partition: number;
  /** its new entry id there */
  entryId: string;
}

/**
 * Appends the message to the partition of its key (a new entry: delivery count 1) and then deletes
 * the dead letter. Safe to repeat: a crash between the two steps leaves the dead letter in place, and
 * the next redrive of it finds the entry already appended (redriveDeadLetter-2.lua) and only deletes.
 * `partitions` is the actor's partition count when it has its own (ActorAddress.partitions).
 */
export async function redriveDeadLetter(runtime: Runtime, actor: string, id: string, partitions = runtime.partitions): Promise<Redriven | null> {
  const deadLetter = await getDeadLetter(runtime, actor, id);
  if (!deadLetter) return null;
  const p = partitionOf(deadLetter.key, partitions);
  const [entryId] = await runtime.redis.nmsRuntime_redriveDeadLetter(
    runtime.keys.stream(actor, p),
    runtime.keys.redriven(actor, p),
    id,
    deadLetter.key,
    deadLetter.json,
    REDRIVEN_TTL_MS,
  );
  await runtime.redis.xdel(runtime.keys.dead(actor), id);
  return { deadLetter, partition: p, entryId };
}

/** Deletes a dead letter; resolves to it, or null when there was none with that id. */
export async function dropDeadLetter(runtime: Runtime, actor: string, id: string): Promise<DeadLetter | null> {
  const deadLetter = await getDeadLetter(runtime, actor, id);
  if (!deadLetter) return null;
  const removed = await runtime.redis.xdel(runtime.keys.dead(actor), id);
  return removed > 0 ? deadLetter : null;
}
