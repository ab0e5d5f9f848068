// The templates section: the list, a new template, and the editor of each (by slug).
import type { Section } from "../app/section";
import { TemplateEditorPage } from "./template-editor-page";
import { TemplateListPage } from "./template-list-page";

export const templates: Section = {
  nav: "Templates",
  path: "/templates",
  pages: [
    { pattern: "/templates", view: TemplateListPage },
    // before /templates/:slug; a template whose slug is "new" is linked by its id instead
    { pattern: "/templates/new", view: TemplateEditorPage },
    { pattern: "/templates/:slug", view: TemplateEditorPage },
  ],
};
