// The overview section: analytics at the dashboard's front page.
import type { Section } from "../app/section";
import { OverviewPage } from "./overview-page";

export const overview: Section = { nav: "Overview", path: "/", pages: [{ pattern: "/", view: OverviewPage }] };
