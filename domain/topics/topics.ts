// Topics (issue 22): named groups of subscribers per tenant and environment. Field rules, create
// (409 topic_already_exists on a taken key), and member changes answered as added/already/not_found.
import { fieldErrors, AppError, notFound, validationFailed, type ErrorDetails } from "../../basics/errors";
import { sql, type Scope } from "../../store/db";
import { newId } from "../../store/ids";
import { addMembers, findTopic, insertTopic, removeMembers, resolveSubscriberRefs, type TopicRow } from "../../store/topics";
import { TOPIC_LIMITS } from "../../schemas/topics";

export const TOPIC_KEY_RE = /^[a-z0-9_.:-]+$/;

export const topicNotFound = () => notFound("topic_not_found", "Topic not found");

/** Every problem of a topic key, or none. */
export function topicKeyProblems(key: unknown): string[] {
  if (key === undefined || key === null) return ["is required"];
  if (typeof key !== "string") return ["must be a string"];
  if (key.length < 1 || key.length > TOPIC_LIMITS.keyLength) return [`must be 1 to ${TOPIC_LIMITS.keyLength} characters`];
  if (!TOPIC_KEY_RE.test(key)) return ["may contain only a-z, 0-9, _ . : and -"];
  return [];
}

export async function createTopic(scope: Scope, body: Record<string, unknown>): Promise<TopicRow> {
  const details: ErrorDetails = fieldErrors();
  const keyProblems = topicKeyProblems(body.key);
  if (keyProblems.length) details.key = keyProblems;
  const name = body.name;
  if (name === undefined || name === null) details.name = ["is required"];
  else if (typeof name !== "string") details.name = ["must be a string"];
  else if (name.trim() === "" || name.length > TOPIC_LIMITS.nameLength) details.name = [`must be 1 to ${TOPIC_LIMITS.nameLength} characters`];
  for (const k of Object.keys(body)) if (k !== "key" && k !== "name") details[k] = ["is not a known field"];
  if (Object.keys(details).length) throw validationFailed(details);
  const row = await insertTopic(sql, scope, { id: newId(), key: body.key as string, name: name as string });
  if (!row) throw new AppError("topic_already_exists", `A topic with key ${body.key} already exists`);
  return row;
}

/** The `subscribers` list of a member change: 1-1,000 non-empty strings, every bad entry named. */
function memberRefs(body: Record<string, unknown>): string[] {
  const list = body.subscribers;
  if (!Array.isArray(list)) throw validationFailed({ subscribers: ["must be an array of external_id or id strings"] });
  if (list.length < 1 || list.length > TOPIC_LIMITS.members) {
    throw validationFailed({ subscribers: [`must hold 1 to ${TOPIC_LIMITS.members} subscribers`] });
  }
  const details: ErrorDetails = fieldErrors();
  list.forEach((v, i) => {
    if (typeof v !== "string" || v.trim() === "" || v.length > 255) details[`subscribers[${i}]`] = ["must be an external_id or id (1-255 characters)"];
  });
  if (Object.keys(details).length) throw validationFailed(details);
  return [...new Set(list as string[])];
}

export interface MemberChange {
  changed: number;
  already: number;
  not_found: string[];
}

/** Adds or removes members in one transaction, the topic row locked (its count moves with them). */
export async function changeMembers(scope: Scope, key: string, body: Record<string, unknown>, op: "add" | "remove"): Promise<MemberChange> {
  const refs = memberRefs(body);
  return (await sql.begin(async (tx) => {
    const topic = await findTopic(scope, key, tx, { forUpdate: true });
    if (!topic) throw topicNotFound();
    const found = await resolveSubscriberRefs(tx, scope, refs);
    const ids = [...new Set(found.values())];
    const changed = op === "add" ? await addMembers(tx, topic.id, ids) : await removeMembers(tx, topic.id, ids);
    return { changed, already: ids.length - changed, not_found: refs.filter((r) => !found.has(r)) };
  })) as MemberChange;
}
