// TypeBox schemas of the topic routes (issue 22): topics, their members and the member changes'
// answers. Field rules (the key alphabet, lengths, 1-1,000 members) are checked in domain/topics/.
import { t } from "elysia";
import { PageMeta } from "./notifications";
import { SUBSCRIBER_EXAMPLE, SubscriberRecord } from "./subscribers";

const Field = (type: string, description: string) => t.Optional(t.Unknown({ description: `${type}. ${description}` }));

export const TOPIC_LIMITS = { keyLength: 100, nameLength: 255, members: 1000 } as const;

export const TopicCreateBody = t.Object(
  {
    key: Field("string", "1-100 characters of a-z, 0-9, `_`, `.`, `:` and `-`; unique in the scope (409 topic_already_exists)."),
    name: Field("string", "1-255 characters."),
  },
  { additionalProperties: t.Unknown(), examples: [{ key: "plan:pro", name: "Pro customers" }] },
);

export const TopicKeyParams = t.Object({ key: t.String({ description: "The topic's key" }) });

export const TopicListQuery = t.Object({
  limit: t.Optional(t.String({ description: "1-100, default 20" })),
  cursor: t.Optional(t.String({ description: "meta.cursor of the previous page" })),
});

const TOPIC_EXAMPLE = { id: "0192f0c4-7b1e-7c3a-9d2e-1f2a3b4c5d6e", key: "plan:pro", name: "Pro customers", subscriber_count: 2, created_at: "2026-11-26T12:00:00.000Z" };

export const TopicRecord = t.Object({
  id: t.String(),
  key: t.String(),
  name: t.String(),
  subscriber_count: t.Integer(),
  created_at: t.String(),
});
export const TopicResponse = t.Object({ data: TopicRecord }, { examples: [{ data: TOPIC_EXAMPLE }] });
export const TopicListResponse = t.Object({ data: t.Array(TopicRecord), meta: PageMeta }, { examples: [{ data: [TOPIC_EXAMPLE], meta: { cursor: null, has_more: false } }] });

export const TopicMembersBody = t.Object(
  { subscribers: Field("array of string", "1-1,000 subscribers, each an external_id or an id.") },
  { additionalProperties: t.Unknown(), examples: [{ subscribers: ["user-1", "user-2"] }] },
);

export const TopicMembersAdded = t.Object(
  {
    data: t.Object({
      added: t.Integer({ description: "Subscribers that became members" }),
      already: t.Integer({ description: "Subscribers that were members already" }),
      not_found: t.Array(t.String(), { description: "References that name no live subscriber, as given" }),
    }),
  },
  { examples: [{ data: { added: 1, already: 1, not_found: ["nobody"] } }] },
);

export const TopicMembersRemoved = t.Object(
  {
    data: t.Object({
      removed: t.Integer({ description: "Members removed" }),
      already: t.Integer({ description: "Subscribers that were not members" }),
      not_found: t.Array(t.String(), { description: "References that name no live subscriber, as given" }),
    }),
  },
  { examples: [{ data: { removed: 1, already: 0, not_found: [] } }] },
);

export const TopicMemberListResponse = t.Object(
  { data: t.Array(SubscriberRecord), meta: PageMeta },
  { examples: [{ data: [SUBSCRIBER_EXAMPLE], meta: { cursor: null, has_more: false } }] },
);
