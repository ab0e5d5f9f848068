// Workflow runs: newest first, filtered by status and workflow version (kept in the URL), older pages
// on request; the first page refreshes while a run on it is still running.
import type { WorkflowRun } from "../../../client";
import { useDashboard } from "../app/context";
import type { PageProps } from "../app/section";
import { Choice } from "../ui/choice";
import { Badge, Time } from "../ui/format";
import { Link } from "../ui/link";
import { OlderButton, useOlderPages } from "../ui/older-pages";
import { PageHeader } from "../ui/page-header";
import { Async, Empty } from "../ui/states";
import { TableHead } from "../ui/table-head";
import { useLoad } from "../ui/use-load";
import { WORKFLOW_RUN_STATUS_LABELS, WORKFLOW_RUN_STATUSES, type WorkflowRunStatus } from "../vocabulary";

const PAGE_SIZE = 25;
const REFRESH_MS = 3_000;

export function RunListPage({ query }: PageProps) {
  const { api, go } = useDashboard();
  const status = WORKFLOW_RUN_STATUSES.find((s) => s === query.get("status"));
  const workflowId = query.get("workflow_id") || undefined;
  const params = { status, workflow_id: workflowId, limit: PAGE_SIZE };
  const older = useOlderPages<WorkflowRun>((cursor) => api.workflowRuns.list({ ...params, cursor }), [status, workflowId]);
  const load = useLoad(
    async () => await api.workflowRuns.list(params),
    [status, workflowId],
    { refreshMs: (page) => (!older.items.length && page.data.some((r) => r.status === "running") ? REFRESH_MS : undefined) },
  );
  const filter = (next: { status?: WorkflowRunStatus; workflow_id?: string }) =>
    go("/workflow-runs", { status: "status" in next ? next.status : status, workflow_id: "workflow_id" in next ? next.workflow_id : workflowId });

  return (
    <>
      <PageHeader title="Workflow runs">
        <Link to="/workflows">All workflows</Link>
      </PageHeader>
      <form class="filters" aria-label="Filter runs" onSubmit={(e) => e.preventDefault()}>
        <label for="run-status">Status</label>
        <Choice id="run-status" value={status} choices={WORKFLOW_RUN_STATUSES} labels={WORKFLOW_RUN_STATUS_LABELS} any="Any status" onChange={(v) => filter({ status: v })} />
        {workflowId ? (
          <span class="filter-chip">
            Workflow version <code>{workflowId}</code>{" "}
            <button type="button" class="secondary small" onClick={() => filter({ workflow_id: undefined })}>
              Show every workflow's runs
            </button>
          </span>
        ) : null}
      </form>
      <Async
        load={load}
        label="Loading runs"
        rows={6}
        isEmpty={(page) => page.data.length === 0}
        empty={
          <Empty title={status || workflowId ? "No run matches these filters" : "No runs yet"}>
            {status || workflowId ? (
              <Link to="/workflow-runs">Clear the filters</Link>
            ) : (
              <>
                Trigger one from a <Link to="/workflows">workflow's page</Link> or with <code>POST /v1/workflows/:slug/trigger</code>.
              </>
            )}
          </Empty>
        }
      >
        {(page) => (
          <>
            <RunTable runs={[...page.data, ...older.items]} />
            <OlderButton pages={older} first={page} label="Show older runs" />
          </>
        )}
      </Async>
    </>
  );
}

function RunTable({ runs }: { runs: WorkflowRun[] }) {
  return (
    <table class="runs">
      <caption class="visually-hidden">Workflow runs, newest first</caption>
      <TableHead columns={["Recipient", "Workflow", "Status", "Step", "Started", "Finished"]} />
      <tbody>
        {runs.map((r) => (
          <tr key={r.id} data-id={r.id}>
            <td>
              <Link to={`/workflow-runs/${r.id}`}>{r.recipient}</Link>
            </td>
            <td>
              <Link to={`/workflows/${r.workflow_id}`}>
                {r.workflow_slug} v{r.workflow_version}
              </Link>
            </td>
            <td>
              <Badge value={r.status} />
            </td>
            <td>{r.status === "completed" ? "all" : r.current_step + 1}</td>
            <td>
              <Time iso={r.started_at} />
            </td>
            <td>
              <Time iso={r.completed_at} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
