// The subscribers section: search and each subscriber's page (preferences, inbox, erasure).
import type { Section } from "../app/section";
import { SubscriberDetailPage } from "./subscriber-detail-page";
import { SubscriberListPage } from "./subscriber-list-page";

export const subscribers: Section = {
  nav: "Subscribers",
  path: "/subscribers",
  pages: [
    { pattern: "/subscribers", view: SubscriberListPage },
    { pattern: "/subscribers/:id", view: SubscriberDetailPage },
  ],
};
