// /v1/workflows (SPEC Endpoints "Workflows"): versioned definitions (create, list, get any version,
// PUT = new version, soft DELETE) and the trigger that starts a run of the active version (202).
import { Elysia, t } from "elysia";
import { releaseBulkGarbage } from "../../basics/memory-ceiling";
import { createWorkflow, deleteWorkflow, updateWorkflow, workflowNotFound } from "../../domain/workflows/definitions";
import { triggerWorkflow } from "../../domain/workflows/runs";
import { triggerWorkflowBulk } from "../../domain/workflows/bulk-trigger";
import { BroadcastStartedResponse, BulkRunsResponse, BulkTriggerBody } from "../../schemas/broadcasts";
import { startBroadcast, topicTarget } from "../../domain/broadcasts/broadcasts";
import {
  RunResponse,
  TriggerBody,
  WorkflowCreateBody,
  WorkflowIdParams,
  WorkflowListQuery,
  WorkflowListResponse,
  WorkflowResponse,
  WorkflowSlugParams,
  WorkflowUpdateBody,
} from "../../schemas/workflows";
import { validationFailed } from "../../basics/errors";
import { decodeCursor, pageOf } from "../../store/cursor";
import { isUuid } from "../../store/ids";

import { serializeRun } from "../responses/workflow-runs";
import { serializeWorkflow } from "../responses/workflows";
import { findWorkflow, listWorkflows } from "../../store/workflows";
import { parseLimit } from "../pagination";
import { accessPlugin } from "../plugins/access";
import { scopeOf } from "../plugins/auth";
import { BODY_ERRORS, errors, KEY_ERRORS, NoContent } from "../route-docs";

const LIST_DEFAULT = 50;


export const workflowRoutes = new Elysia({ name: "routes.workflows" })
  .use(accessPlugin)
  .post(
    "/v1/workflows",
    async ({ auth, body, set }) => {
      const row = await createWorkflow(scopeOf(auth), body as Record<string, unknown>);
      set.status = 201;
      return { data: serializeWorkflow(row) };
    },
    {
      access: "secret-write",
      body: WorkflowCreateBody,
      response: { 201: WorkflowResponse, ...errors(KEY_ERRORS, BODY_ERRORS, 409) },
      detail: { summary: "Create a workflow (version 1, active)", description: "Steps run in order for each run: send (a channel and template), delay (up to 7 days) and fallback (try channels in turn until one is delivered). The slug is what POST /v1/workflows/{slug}/trigger names.", tags: ["workflows"] },
    },
  )
  .get(
    "/v1/workflows",
    async ({ auth, query }) => {
      const limit = parseLimit(query.limit, LIST_DEFAULT);
      const cursor = decodeCursor(query.cursor);
      if (query.include_inactive !== undefined && !["true", "false"].includes(query.include_inactive)) {
        throw validationFailed({ include_inactive: ["must be true or false"] });
      }
      const rows = await listWorkflows(scopeOf(auth), {
        limit,
        afterId: cursor?.id ?? null,
        slug: query.slug,
        includeInactive: query.include_inactive === "true",
      });
      const { page, meta } = pageOf(rows, limit, (r) => ({ t: r.inserted_at.toISOString(), id: r.id }));
      return { data: page.map(serializeWorkflow), meta };
    },
    {
      access: "secret-read",
      query: WorkflowListQuery,
      response: { 200: WorkflowListResponse, ...errors(KEY_ERRORS, 422) },
      detail: { summary: "List workflows (active versions unless include_inactive=true), newest first", description: "Cursor paged; filter by slug to see a workflow's versions.", tags: ["workflows"] },
    },
  )
  .get(
    "/v1/workflows/:id",
    async ({ auth, params }) => {
      const row = isUuid(params.id) ? await findWorkflow(scopeOf(auth), params.id) : null;
      if (!row) throw workflowNotFound();
      return { data: serializeWorkflow(row) };
    },
    {
      access: "secret-read",
      params: WorkflowIdParams,
      response: { 200: WorkflowResponse, ...errors(KEY_ERRORS, 404) },
      detail: { summary: "A workflow version by id (inactive versions too)", description: "Any version, so a run can always show the definition it ran.", tags: ["workflows"] },
    },
  )
  .put(
    "/v1/workflows/:id",
    async ({ auth, params, body }) => {
      if (!isUuid(params.id)) throw workflowNotFound();
      const row = await updateWorkflow(scopeOf(auth), params.id, body as Record<string, unknown>);
      return { data: serializeWorkflow(row) };
    },
    {
      access: "secret-write",
      params: WorkflowIdParams,
      body: WorkflowUpdateBody,
      response: { 200: WorkflowResponse, ...errors(KEY_ERRORS, BODY_ERRORS, 404, 409) },
      detail: {
        summary: "Update: a new version (new id, version + 1, active) replaces the active version; the slug may change", description: "Runs already started finish on the version they started with; new triggers use the new version.",
        tags: ["workflows"],
      },
    },
  )
  .delete(
    "/v1/workflows/:id",
    async ({ auth, params, set }) => {
      if (!isUuid(params.id)) throw workflowNotFound();
      await deleteWorkflow(scopeOf(auth), params.id);
      set.status = 204;
    },
    {
      access: "secret-write",
      params: WorkflowIdParams,
      response: { 204: NoContent, ...errors(KEY_ERRORS, 404, 409) },
      detail: { summary: "Soft delete: the active version becomes inactive; runs in progress continue", description: "Triggering its slug afterwards is 404; its runs and their notifications stay readable.", tags: ["workflows"] },
    },
  )
  .post(
    "/v1/workflows/:slug/trigger",
    async ({ auth, params, body, set }) => {
      // {"to":{"topic":"<key>"}}: a broadcast, fanned out by the broadcast actor (domain/broadcasts/)
      const topic = topicTarget(body as Record<string, unknown>);
      if (topic !== null) {
        const b = await startBroadcast(scopeOf(auth), params.slug, topic, body as Record<string, unknown>);
        set.status = 202;
        return { data: { id: b.id, topic: b.topic_key, workflow_slug: b.workflow_slug, status: b.status, recipients: null } };
      }
      const run = await triggerWorkflow(scopeOf(auth), params.slug, body as Record<string, unknown>);
      set.status = 202;
      return { data: serializeRun(run) };
    },
    {
      access: "secret-write",
      params: WorkflowSlugParams,
      body: TriggerBody,
      response: { 202: t.Union([RunResponse, BroadcastStartedResponse]), ...errors(KEY_ERRORS, BODY_ERRORS, 404, 409) },
      detail: {
        summary: "Start a run of the active version for one recipient, or a broadcast to a topic (202)",
        description: "The recipient is a subscriber (id or external_id) or a literal address; data is the payload of every step's template. Follow the run with GET /v1/workflow-runs/{id} or the workflow.* webhooks. With {\"to\":{\"topic\":\"<key>\"}} the answer is a broadcast that fans out to the topic's members asynchronously (GET /v1/broadcasts/{id}).",
        tags: ["workflows"],
      },
    },
  )
  .post(
    "/v1/workflows/:slug/trigger/bulk",
    async ({ auth, params, body, set }) => {
      const runs = await triggerWorkflowBulk(scopeOf(auth), params.slug, body as Record<string, unknown>);
      set.status = 202;
      return { data: runs.map((r) => serializeRun(r)) };
    },
    {
      access: "secret-write",
      params: WorkflowSlugParams,
      body: BulkTriggerBody,
      afterResponse: releaseBulkGarbage,
      response: { 202: BulkRunsResponse, ...errors(KEY_ERRORS, BODY_ERRORS, 404, 409) },
      detail: {
        summary: "Start 1-1,000 runs of the active version, all or nothing (202)",
        description: "Every event is validated first (422 with details keyed events[i].field, nothing created); then the runs are created in the events' order. One Idempotency-Key covers the batch: a replay creates no run.",
        tags: ["workflows"],
      },
    },
  );
