// TypeBox schemas of the admin dead-letter routes (/api/internal/dead-letters): a dead letter as the
// dashboard and `npm run dead-letters` show it, the list page, and a redrive's answer.
import { t } from "elysia";

export const ACTOR_NAME_PATTERN = "^[A-Za-z0-9_-]{1,100}$";
export const ENTRY_ID_PATTERN = "^[0-9]{1,20}-[0-9]{1,20}$";

export const DeadLetter = t.Object({
  id: t.String({ description: "Entry id in the actor's dead-letter stream; an actor and an id name one dead letter", examples: ["1767225600000-0"] }),
  actor: t.String({ examples: ["channel-sender"] }),
  partition: t.Integer({ description: "Partition it was read from" }),
  message_id: t.String({ description: "Its entry id in the partition stream when it failed" }),
  key: t.String({ description: "The message's actor key (one at a time per key)" }),
  message: t.Unknown({ description: "The message as sent (JSON); the raw text when it was not readable JSON" }),
  error: t.String({ description: "Message of the last error" }),
  stack: t.Optional(t.String({ description: "Stack of the last error (in the single dead letter only)" })),
  deliveries: t.Integer({ description: "Runs before it was dead-lettered" }),
  failed_at: t.String({ description: "When it was dead-lettered (ISO 8601)" }),
});

export const DeadLetterParams = t.Object({
  actor: t.String({ pattern: ACTOR_NAME_PATTERN }),
  id: t.String({ pattern: ENTRY_ID_PATTERN }),
});

export const DeadLetterListQuery = t.Object({
  actor: t.Optional(t.String({ pattern: ACTOR_NAME_PATTERN, description: "Only this actor's dead letters (default: every actor's)" })),
  cursor: t.Optional(t.String({ description: "meta.next_cursor of the previous page" })),
  limit: t.Optional(t.String({ description: "1-500, default 50" })),
});

const DEAD_LETTER_EXAMPLE = {
  id: "1767225600000-0",
  actor: "channel-sender",
  partition: 3,
  message_id: "1767225590000-4",
  key: "0198c3a0-1111-7222-8333-444455556666:production:email:17",
  message: { type: "send", notificationId: "0198c3b3-0a1b-7c2d-9e3f-4a5b6c7d8e9f", attempt: 2 },
  error: "connect ECONNREFUSED 10.0.0.5:5432",
  deliveries: 5,
  failed_at: "2026-01-01T00:00:00.000Z",
};

export const DeadLetterList = t.Object(
  {
    data: t.Array(DeadLetter, { description: "Newest first" }),
    meta: t.Object({
      limit: t.Integer(),
      next_cursor: t.Union([t.String(), t.Null()], { description: "Pass as cursor for the next page; null on the last" }),
      /** per actor listed, dead letters in its stream */
      totals: t.Record(t.String(), t.Integer(), { description: "Actor name -> dead letters it holds now" }),
    }),
  },
  { examples: [{ data: [DEAD_LETTER_EXAMPLE], meta: { limit: 50, next_cursor: null, totals: { "channel-sender": 1 } } }] },
);

export const DeadLetterResponse = t.Object(
  { data: DeadLetter },
  { examples: [{ data: { ...DEAD_LETTER_EXAMPLE, stack: "Error: connect ECONNREFUSED 10.0.0.5:5432\n    at ..." } }] },
);

export const RedriveResponse = t.Object(
  {
    data: t.Object({
      id: t.String({ description: "The dead letter's id (now deleted)" }),
      actor: t.String(),
      partition: t.Integer({ description: "The partition of its key, where it was appended" }),
      entry_id: t.String({ description: "Its new entry id in that partition stream (delivery count starts again at 1)" }),
    }),
  },
  { examples: [{ data: { id: "1767225600000-0", actor: "channel-sender", partition: 3, entry_id: "1767229200000-0" } }] },
);
