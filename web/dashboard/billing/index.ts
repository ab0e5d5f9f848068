// The billing section: the account's plan, usage and subscription, and the operator's plans page.
import type { Section } from "../app/section";
import { BillingPage } from "./billing-page";
import { OperatorPlansPage } from "./operator-plans-page";

export const billing: Section = {
  nav: "Billing",
  path: "/billing",
  pages: [
    { pattern: "/billing", view: BillingPage },
    { pattern: "/billing/plans", view: OperatorPlansPage },
  ],
};
