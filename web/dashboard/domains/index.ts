// The sending-domains section: the list with the add form, and each domain's page with its DNS
// records, verification, health and alerts.
import type { Section } from "../app/section";
import { DomainDetailPage } from "./domain-detail-page";
import { DomainListPage } from "./domain-list-page";

export const domains: Section = {
  nav: "Domains",
  path: "/domains",
  pages: [
    { pattern: "/domains", view: DomainListPage },
    { pattern: "/domains/:id", view: DomainDetailPage },
  ],
};
