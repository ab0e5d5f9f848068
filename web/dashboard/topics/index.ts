// The topics section (issue 22): topics and their members, a trigger to a topic, and the broadcast
// page that follows its fan-out.
import type { Section } from "../app/section";
import { BroadcastPage } from "./broadcast-page";
import { TopicDetailPage } from "./topic-detail-page";
import { TopicListPage } from "./topic-list-page";

export const topics: Section = {
  nav: "Topics",
  path: "/topics",
  pages: [
    { pattern: "/topics", view: TopicListPage },
    { pattern: "/topics/:key", view: TopicDetailPage },
    { pattern: "/broadcasts/:id", view: BroadcastPage },
  ],
};
