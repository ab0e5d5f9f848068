// API response shapes of topics and broadcasts (issue 22): store rows as the routes answer them
// (schemas/topics.ts and schemas/broadcasts.ts describe the same shapes).
import { iso } from "../../store/time";
import type { TopicRow } from "../../store/topics";

export function serializeTopic(r: TopicRow) {
  return { id: r.id, key: r.key, name: r.name, subscriber_count: r.subscriber_count, created_at: iso(r.created_at)! };
}
