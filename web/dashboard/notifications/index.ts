// The notifications section: the filterable list and each notification's own page.
import type { Section } from "../app/section";
import { NotificationDetailPage } from "./notification-detail-page";
import { NotificationListPage } from "./notification-list-page";

export const notifications: Section = {
  nav: "Notifications",
  path: "/notifications",
  pages: [
    { pattern: "/notifications", view: NotificationListPage },
    { pattern: "/notifications/:id", view: NotificationDetailPage },
  ],
};
