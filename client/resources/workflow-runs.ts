// nms.workflowRuns: the runs triggered by nms.workflows.trigger: cursor-paged list (status,
// workflow_id), one run with its step results, cancel (SPEC "Workflow run", /v1/workflow-runs).
import { cursorList, type Page } from "../pagination.js";
import { path, type RequestOptions, type Transport } from "../transport.js";
import type { CursorMeta, WorkflowRun, WorkflowRunListParams } from "../types.js";

export class WorkflowRuns {
  constructor(private readonly transport: Transport) {}

  /** Newest first; filters `status` (running, completed, failed, cancelled), `workflow_id` (a version) and `subscriber` (external_id or id). */
  list(params: WorkflowRunListParams = {}, opts?: RequestOptions) {
    return cursorList(
      (query) => this.transport.request<Page<WorkflowRun, CursorMeta>>({ method: "GET", path: "/v1/workflow-runs", query }, opts),
      params,
    );
  }

  retrieve(id: string, opts?: RequestOptions): Promise<WorkflowRun> {
    return this.transport.data({ method: "GET", path: path`/v1/workflow-runs/${id}` }, opts);
  }

  /**
   * Later steps never run; notifications already created stay. Cancelling twice changes nothing, so
   * it is retried; a run already over answers 409 run_not_cancellable.
   */
  cancel(id: string, opts?: RequestOptions): Promise<WorkflowRun> {
    return this.transport.data({ method: "POST", path: path`/v1/workflow-runs/${id}/cancel`, safe: true }, opts);
  }
}
