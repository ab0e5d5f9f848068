// The subscribers section: search, create, CSV import, editing, and each subscriber's page
// (history, workflow runs, a test send, a workflow trigger, preferences, inbox, erasure).
import type { Section } from "../app/section";
import { SubscriberDetailPage } from "./subscriber-detail-page";
import { SubscriberEditPage } from "./subscriber-edit-page";
import { SubscriberImportPage } from "./subscriber-import-page";
import { SubscriberListPage } from "./subscriber-list-page";
import { SubscriberNewPage } from "./subscriber-new-page";

export const subscribers: Section = {
  nav: "Subscribers",
  path: "/subscribers",
  pages: [
    { pattern: "/subscribers", view: SubscriberListPage },
    // before /subscribers/:id, which would take "new" and "import" for ids
    { pattern: "/subscribers/new", view: SubscriberNewPage },
    { pattern: "/subscribers/import", view: SubscriberImportPage },
    { pattern: "/subscribers/:id/edit", view: SubscriberEditPage },
    { pattern: "/subscribers/:id", view: SubscriberDetailPage },
  ],
};
