// One workflow run at its own URL: its status, each step's result with the notifications it created,
// and Cancel; it refreshes every 2 seconds while the run is running, so a person can follow it.
import type { WorkflowRun } from "../../../client";
import { useDashboard } from "../app/context";
import type { PageProps } from "../app/section";
import { ConfirmButton } from "../ui/confirm";
import { Badge, Json, Time } from "../ui/format";
import { Link } from "../ui/link";
import { PageHeader } from "../ui/page-header";
import { Async, ErrorNotice } from "../ui/states";
import { useAction, useLoad } from "../ui/use-load";
import { StepResults } from "./step-results";

const FOLLOW_MS = 2_000;
const MOVING = new Set(["pending", "sent"]);

export function RunDetailPage({ params }: PageProps) {
  const { api } = useDashboard();
  const load = useLoad(() => api.workflowRuns.retrieve(params.id!), [params.id], {
    // a finished run's notifications may still move (sent -> delivered or bounced): follow those too
    refreshMs: (run) => (run.status === "running" || run.step_results.some((s) => MOVING.has(s.notification_status ?? "")) ? FOLLOW_MS : undefined),
  });
  return (
    <>
      <PageHeader title="Workflow run">
        <Link to="/workflow-runs">All runs</Link>
      </PageHeader>
      <Async load={load} label="Loading the run" rows={6}>
        {(run) => <RunView key={run.id} run={run} onChange={load.setData} />}
      </Async>
    </>
  );
}

function RunView({ run, onChange }: { run: WorkflowRun; onChange(run: WorkflowRun): void }) {
  const { api } = useDashboard();
  // the version's steps, to show the steps still to come; a run keeps its version, so once is enough
  const version = useLoad(() => api.workflows.retrieve(run.workflow_id), [run.workflow_id]);
  const cancel = useAction(async () => {
    try {
      onChange(await api.workflowRuns.cancel(run.id));
    } catch (err) {
      // refused (409: it ended meanwhile): the page shows why and where the run is now
      api.workflowRuns.retrieve(run.id).then(onChange, () => {});
      throw err;
    }
  });
  const steps = version.status === "ready" ? version.data.steps : null;
  return (
    <div class="detail">
      <section aria-labelledby="summary-title">
        <h2 id="summary-title">Summary</h2>
        <dl class="facts">
          <dt>Status</dt>
          <dd class="run-status" aria-live="polite">
            <Badge value={run.status} />
            {run.status === "running" ? <span class="muted"> following it…</span> : null}
          </dd>
          <dt>Workflow</dt>
          <dd>
            <Link to={`/workflows/${run.workflow_id}`}>
              {run.workflow_slug} version {run.workflow_version}
            </Link>
          </dd>
          <dt>Recipient</dt>
          <dd>{run.recipient}</dd>
          <dt>Step</dt>
          <dd>{run.status === "completed" ? "all done" : `${run.current_step + 1}${steps ? ` of ${steps.length}` : ""}`}</dd>
          <dt>Started</dt>
          <dd>
            <Time iso={run.started_at} />
          </dd>
          <dt>Finished</dt>
          <dd>
            <Time iso={run.completed_at} fallback={run.status === "running" ? "not yet" : "—"} />
          </dd>
          <dt>Id</dt>
          <dd>
            <code>{run.id}</code>
          </dd>
        </dl>
        {cancel.error ? <ErrorNotice error={cancel.error} title="Not cancelled" /> : null}
        {run.status === "running" ? (
          <div class="button-row">
            <ConfirmButton label="Cancel run" title="Cancel this run?" confirmLabel="Cancel run" dismissLabel="Keep it running" onConfirm={() => cancel.run()} disabled={cancel.pending}>
              <p>Its later steps never run. Notifications it already created are not taken back.</p>
            </ConfirmButton>
          </div>
        ) : null}
      </section>
      <section aria-labelledby="steps-title">
        <h2 id="steps-title">Steps</h2>
        {version.status === "error" ? <ErrorNotice error={version.error} title="The workflow version could not be read: only the results are shown" /> : null}
        <StepResults run={run} steps={steps} />
      </section>
      <section aria-labelledby="data-title">
        <h2 id="data-title">Data</h2>
        <Json value={run.data} label="Data the run was triggered with" />
      </section>
    </div>
  );
}
