// /v1/workflow-runs (SPEC Endpoints "Workflows"): the cursor-paged run list (status, workflow_id),
// one run with its step results, and cancel (200 cancelled; 409 run_not_cancellable when terminal).
import { Elysia } from "elysia";
import { cancelRun } from "../../domain/workflows/runs";
import { RunIdParams, RunListQuery, RunListResponse, RunResponse } from "../../schemas/workflows";
import { fieldErrors, notFound, validationFailed } from "../../basics/errors";
import { decodeCursor, pageOf } from "../../store/cursor";
import { isUuid } from "../../store/ids";
import { getRun, listRuns } from "../../store/workflow-runs";
import { findSubscriber } from "../../store/subscribers";
import { serializeRun, stepNotificationIds } from "../responses/workflow-runs";
import { notificationStatuses } from "../../store/notification-feed";
import { parseLimit } from "../pagination";
import { accessPlugin } from "../plugins/access";
import { scopeOf } from "../plugins/auth";
import { errors, KEY_ERRORS } from "../route-docs";

const LIST_DEFAULT = 50; // SPEC Limits: workflow run list default 50
const RUN_STATUSES = ["running", "completed", "failed", "cancelled"];

const runNotFound = () => notFound("workflow_run_not_found", "Workflow run not found");

export const workflowRunRoutes = new Elysia({ name: "routes.workflow-runs" })
  .use(accessPlugin)
  .get(
    "/v1/workflow-runs",
    async ({ auth, query }) => {
      const limit = parseLimit(query.limit, LIST_DEFAULT);
      const cursor = decodeCursor(query.cursor);
      const details = fieldErrors();
      if (query.status !== undefined && !RUN_STATUSES.includes(query.status)) details.status = [`must be one of ${RUN_STATUSES.join(", ")}`];
      if (query.workflow_id !== undefined && !isUuid(query.workflow_id)) details.workflow_id = ["must be a UUID"];
      if (query.subscriber !== undefined && query.subscriber.trim() === "") details.subscriber = ["must not be empty"];
      if (Object.keys(details).length) throw validationFailed(details);
      const subscriber = query.subscriber === undefined ? null : await findSubscriber(scopeOf(auth), query.subscriber.trim());
      if (query.subscriber !== undefined && !subscriber) return { data: [], meta: { cursor: null, has_more: false } };
      const rows = await listRuns(scopeOf(auth), {
        limit,
        afterId: cursor?.id ?? null,
        status: query.status,
        workflowId: query.workflow_id,
        subscriberId: subscriber?.id,
      });
      const { page, meta } = pageOf(rows, limit, (r) => ({ t: r.started_at.toISOString(), id: r.id }));
      const statuses = await notificationStatuses(scopeOf(auth), stepNotificationIds(page));
      return { data: page.map((r) => serializeRun(r, statuses)), meta };
    },
    {
      access: "secret-read",
      query: RunListQuery,
      response: { 200: RunListResponse, ...errors(KEY_ERRORS, 422) },
      detail: {
        summary: "List workflow runs, newest first",
        description: "Filters: status, workflow_id (one version), subscriber (external_id or id: the runs triggered for that subscriber).",
        tags: ["workflows"],
      },
    },
  )
  .get(
    "/v1/workflow-runs/:id",
    async ({ auth, params }) => {
      const run = isUuid(params.id) ? await getRun(scopeOf(auth), params.id) : null;
      if (!run) throw runNotFound();
      return { data: serializeRun(run, await notificationStatuses(scopeOf(auth), stepNotificationIds([run]))) };
    },
    {
      access: "secret-read",
      params: RunIdParams,
      response: { 200: RunResponse, ...errors(KEY_ERRORS, 404) },
      detail: { summary: "A workflow run with its step results", description: "The run's status, the step it is on and each step's result; a send step shows its notification's current status.", tags: ["workflows"] },
    },
  )
  .post(
    "/v1/workflow-runs/:id/cancel",
    async ({ auth, params }) => {
      if (!isUuid(params.id)) throw runNotFound();
      const run = await cancelRun(scopeOf(auth), params.id);
      return { data: serializeRun(run, await notificationStatuses(scopeOf(auth), stepNotificationIds([run]))) };
    },
    {
      access: "secret-write",
      params: RunIdParams,
      response: { 200: RunResponse, ...errors(KEY_ERRORS, 404, 409) },
      detail: { summary: "Cancel a running run: later steps never run; notifications already created stay", description: "A run that already ended is 409 run_not_cancellable.", tags: ["workflows"] },
    },
  );
