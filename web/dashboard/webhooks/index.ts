// The webhooks section: the endpoints (add, secret shown once, enable/disable, delete) and each
// endpoint's page with its test event, deliveries, retry and replay.
import type { Section } from "../app/section";
import { EndpointDetailPage } from "./endpoint-detail-page";
import { EndpointListPage } from "./endpoint-list-page";

// /webhook-endpoints, not /webhooks: that path belongs to the API (the WhatsApp inbound webhook)
export const webhooks: Section = {
  nav: "Webhooks",
  path: "/webhook-endpoints",
  pages: [
    { pattern: "/webhook-endpoints", view: EndpointListPage },
    { pattern: "/webhook-endpoints/:id", view: EndpointDetailPage },
  ],
};
