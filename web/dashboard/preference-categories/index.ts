// The preference categories section (issue 28): the categories a notification's or workflow
// step's `category` names, with their default channels and whether they can be turned off.
import type { Section } from "../app/section";
import { PreferenceCategoriesPage } from "./preference-categories-page";

// /preference-categories is not an API path (the API's is /v1/preference-categories)
export const preferenceCategories: Section = {
  nav: "Preference categories",
  path: "/preference-categories",
  pages: [{ pattern: "/preference-categories", view: PreferenceCategoriesPage }],
};
