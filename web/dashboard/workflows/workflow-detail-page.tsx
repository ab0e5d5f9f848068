// One workflow version at its own URL (inactive versions too): its steps, the other versions of the
// slug, its runs; for the active version also edit (a new version), delete (soft) and a trigger form.
import type { Workflow } from "../../../client";
import { useDashboard } from "../app/context";
import type { PageProps } from "../app/section";
import { ConfirmButton } from "../ui/confirm";
import { Badge, Time } from "../ui/format";
import { Link } from "../ui/link";
import { PageHeader } from "../ui/page-header";
import { Async, ErrorNotice } from "../ui/states";
import { TableHead } from "../ui/table-head";
import { useAction, useLoad } from "../ui/use-load";
import { stepSummary } from "./steps";
import { TriggerForm } from "./trigger-form";

export function WorkflowDetailPage({ params }: PageProps) {
  const { api } = useDashboard();
  const load = useLoad(() => api.workflows.retrieve(params.id!), [params.id]);
  return (
    <>
      <PageHeader title="Workflow">
        <Link to="/workflows">All workflows</Link>
      </PageHeader>
      <Async load={load} label="Loading the workflow" rows={6}>
        {(w) => <WorkflowView key={w.id} w={w} />}
      </Async>
    </>
  );
}

function WorkflowView({ w }: { w: Workflow }) {
  const { api, go } = useDashboard();
  const remove = useAction(async () => {
    await api.workflows.del(w.id);
    go("/workflows", {}, { notice: `Workflow ${w.slug} deleted: it can no longer be triggered; runs in progress continue.` });
  });
  return (
    <div class="detail">
      <section aria-labelledby="summary-title">
        <h2 id="summary-title">{w.name}</h2>
        <dl class="facts">
          <dt>Slug</dt>
          <dd>
            <code>{w.slug}</code>
          </dd>
          <dt>Version</dt>
          <dd>
            {w.version} <Badge value={w.active ? "active" : "draft"}>{w.active ? "active" : "inactive"}</Badge>
          </dd>
          <dt>Id</dt>
          <dd>
            <code>{w.id}</code>
          </dd>
          <dt>Created</dt>
          <dd>
            <Time iso={w.inserted_at} />
          </dd>
          <dt>Runs</dt>
          <dd>
            <Link to="/workflow-runs" params={{ workflow_id: w.id }}>
              Runs of version {w.version}
            </Link>
          </dd>
        </dl>
        {!w.active ? <p class="notice">This version is no longer active: it cannot be triggered or changed. Runs started on it keep it.</p> : null}
        <h3>Steps</h3>
        <ol class="step-summary">
          {w.steps.map((s, i) => (
            <li key={i}>{stepSummary(s)}</li>
          ))}
        </ol>
        {remove.error ? <ErrorNotice error={remove.error} title="Not deleted" /> : null}
        {w.active ? (
          <div class="button-row">
            <Link to={`/workflows/${w.id}/edit`} class="button">
              Edit
            </Link>
            <ConfirmButton label="Delete" title={`Delete the workflow ${w.slug}?`} confirmLabel="Delete workflow" onConfirm={() => remove.run()} disabled={remove.pending}>
              <p>It can no longer be triggered. Runs in progress continue on their version, and its versions stay readable here.</p>
            </ConfirmButton>
          </div>
        ) : null}
      </section>
      {w.active ? <TriggerForm workflow={w} /> : null}
      <Versions w={w} />
    </div>
  );
}

/** Every version with this slug, newest first (a renamed workflow's older slugs are not listed). */
function Versions({ w }: { w: Workflow }) {
  const { api } = useDashboard();
  const load = useLoad(() => api.workflows.list({ slug: w.slug, include_inactive: true, limit: 100 }).toArray(100), [w.slug]);
  return (
    <section aria-labelledby="versions-title">
      <h2 id="versions-title">Versions</h2>
      <Async load={load} label="Loading the versions" rows={2}>
        {(versions) => (
          <table class="versions">
            <TableHead columns={["Version", "Name", "State", "Steps", "Created"]} />
            <tbody>
              {versions.map((v) => (
                <tr key={v.id} class={v.id === w.id ? "current" : undefined}>
                  <td>{v.id === w.id ? <strong aria-current="page">{v.version} (shown)</strong> : <Link to={`/workflows/${v.id}`}>Version {v.version}</Link>}</td>
                  <td>{v.name}</td>
                  <td>
                    <Badge value={v.active ? "active" : "draft"}>{v.active ? "active" : "inactive"}</Badge>
                  </td>
                  <td>{v.steps.length}</td>
                  <td>
                    <Time iso={v.inserted_at} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </Async>
    </section>
  );
}
