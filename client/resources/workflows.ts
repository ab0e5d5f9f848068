// nms.workflows: versioned definitions (create, list, retrieve any version, update = a new version,
// soft delete) and trigger, which starts a run of the active version (SPEC Endpoints "Workflows").
import { cursorList, type Page } from "../pagination.js";
import { path, type RequestOptions, type Transport } from "../transport.js";
import type {
  CursorMeta,
  Workflow,
  WorkflowCreateParams,
  WorkflowListParams,
  WorkflowRun,
  WorkflowTriggerParams,
  WorkflowUpdateParams,
} from "../types.js";

export class Workflows {
  constructor(private readonly transport: Transport) {}

  /** Version 1, active; 409 when an active workflow of this scope has the slug. */
  create(params: WorkflowCreateParams, opts?: RequestOptions): Promise<Workflow> {
    return this.transport.data({ method: "POST", path: "/v1/workflows", body: params, idempotent: true }, opts);
  }

  /** Active versions, newest first; `include_inactive: true` lists every version. */
  list(params: WorkflowListParams = {}, opts?: RequestOptions) {
    return cursorList(
      (query) => this.transport.request<Page<Workflow, CursorMeta>>({ method: "GET", path: "/v1/workflows", query }, opts),
      params,
    );
  }

  /** One version by its id (inactive versions too). */
  retrieve(id: string, opts?: RequestOptions): Promise<Workflow> {
    return this.transport.data({ method: "GET", path: path`/v1/workflows/${id}` }, opts);
  }

  /** Answers the new version (new id, version + 1, active); runs already started keep theirs. */
  update(id: string, params: WorkflowUpdateParams, opts?: RequestOptions): Promise<Workflow> {
    return this.transport.data({ method: "PUT", path: path`/v1/workflows/${id}`, body: params }, opts);
  }

  /** Soft delete: the active version becomes inactive; runs in progress continue. */
  del(id: string, opts?: RequestOptions): Promise<void> {
    return this.transport.request({ method: "DELETE", path: path`/v1/workflows/${id}` }, opts);
  }

  /** Starts a run (202, status running); its steps run in the background: read it back with workflowRuns.retrieve. */
  trigger(slug: string, params: WorkflowTriggerParams, opts?: RequestOptions): Promise<WorkflowRun> {
    return this.transport.data({ method: "POST", path: path`/v1/workflows/${slug}/trigger`, body: params, idempotent: true }, opts);
  }
}
