// The workflows section: the list, a new workflow, each version's page with its trigger form, the
// editor of a new version; and the runs: their list and each run's page, which follows it.
import type { Section } from "../app/section";
import { RunDetailPage } from "./run-detail-page";
import { RunListPage } from "./run-list-page";
import { WorkflowDetailPage } from "./workflow-detail-page";
import { WorkflowEditorPage } from "./workflow-editor-page";
import { WorkflowListPage } from "./workflow-list-page";

export const workflows: Section = {
  nav: "Workflows",
  path: "/workflows",
  pages: [
    { pattern: "/workflows", view: WorkflowListPage },
    // before /workflows/:id (workflow ids are UUIDs, never "new")
    { pattern: "/workflows/new", view: WorkflowEditorPage },
    { pattern: "/workflows/:id", view: WorkflowDetailPage },
    { pattern: "/workflows/:id/edit", view: WorkflowEditorPage },
    // /workflow-runs is not an API path (the API's is /v1/workflow-runs)
    { pattern: "/workflow-runs", view: RunListPage },
    { pattern: "/workflow-runs/:id", view: RunDetailPage },
  ],
};
