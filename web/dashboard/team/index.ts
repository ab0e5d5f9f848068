// The team section: the dashboard users of this account and their roles.
import type { Section } from "../app/section";
import { TeamPage } from "./team-page";

export const team: Section = { nav: "Team", path: "/team", pages: [{ pattern: "/team", view: TeamPage }] };
