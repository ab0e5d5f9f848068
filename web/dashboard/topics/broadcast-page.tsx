// One broadcast (/v1/broadcasts/:id): its fan-out followed live (refreshed every second while
// fanning out), and its cancel.
import type { PageProps } from "../app/section";
import { useDashboard } from "../app/context";
import { Time } from "../ui/format";
import { Link } from "../ui/link";
import { PageHeader } from "../ui/page-header";
import { Async, ErrorNotice } from "../ui/states";
import { useAction, useLoad } from "../ui/use-load";

export function BroadcastPage({ params }: PageProps) {
  const { api } = useDashboard();
  const id = params.id!;
  const load = useLoad(async () => await api.broadcasts.retrieve(id), [id], { refreshMs: (b) => (b.status === "fanning_out" ? 1000 : undefined) });
  const cancel = useAction(async () => {
    load.setData(await api.broadcasts.cancel(id));
  });
  return (
    <>
      <PageHeader title="Broadcast" />
      <Async load={load} label="Loading the broadcast" rows={3}>
        {(b) => (
          <>
            <dl class="facts">
              <dt>Topic</dt>
              <dd>
                <Link to={`/topics/${encodeURIComponent(b.topic)}`}>
                  <code>{b.topic}</code>
                </Link>
              </dd>
              <dt>Workflow</dt>
              <dd>
                <code>{b.workflow_slug}</code> v{b.workflow_version}
              </dd>
              <dt>Status</dt>
              <dd data-testid="broadcast-status">{b.status}</dd>
              <dt>Runs created</dt>
              <dd data-testid="broadcast-runs">
                {b.runs_created}
                {b.recipients !== null ? ` of ${b.recipients}` : ""}
              </dd>
              {b.recipients ? (
                <>
                  <dt>Progress</dt>
                  <dd>
                    <progress max={b.recipients} value={b.runs_created} aria-label="Fan-out progress" />
                  </dd>
                </>
              ) : null}
              <dt>Started</dt>
              <dd>
                <Time iso={b.created_at} />
              </dd>
              <dt>Finished</dt>
              <dd>{b.completed_at ? <Time iso={b.completed_at} /> : "—"}</dd>
            </dl>
            {cancel.error ? <ErrorNotice error={cancel.error} title="Not cancelled" /> : null}
            {b.status === "fanning_out" ? (
              <div class="button-row">
                <button type="button" class="secondary" disabled={cancel.pending} onClick={() => cancel.run()}>
                  Cancel the rest
                </button>
              </div>
            ) : null}
          </>
        )}
      </Async>
    </>
  );
}
