// A subscriber's history on their page: the newest notifications sent to them on every channel
// (GET /v1/notifications?subscriber=) and the workflow runs triggered for them (GET /v1/workflow-runs?subscriber=).
import type { Subscriber } from "../../../client";
import { useDashboard } from "../app/context";
import { Badge, Time } from "../ui/format";
import { Link } from "../ui/link";
import { Async, Empty } from "../ui/states";
import { TableHead } from "../ui/table-head";
import { useLoad } from "../ui/use-load";
import { NotificationTable } from "../notifications/notification-table";

const SHOWN = 10;
const REFRESH_MS = 3_000;

export function SubscriberHistory({ subscriber, round }: { subscriber: Subscriber; round: number }) {
  const { api } = useDashboard();
  const notifications = useLoad(async () => await api.notifications.list({ subscriber: subscriber.id, limit: SHOWN }), [subscriber.id, round], {
    refreshMs: (page) => (page.data.some((n) => n.status === "pending" || n.status === "sent") ? REFRESH_MS : undefined),
  });
  const runs = useLoad(async () => await api.workflowRuns.list({ subscriber: subscriber.id, limit: SHOWN }), [subscriber.id, round], {
    refreshMs: (page) => (page.data.some((r) => r.status === "running") ? REFRESH_MS : undefined),
  });
  return (
    <>
      <section aria-labelledby="history-title">
        <h2 id="history-title">Notifications</h2>
        <Async
          load={notifications}
          label="Loading the subscriber's notifications"
          rows={3}
          isEmpty={(page) => page.data.length === 0}
          empty={<Empty title="Nothing sent to this subscriber yet">Send a test below, or trigger a workflow for them.</Empty>}
        >
          {(page) => (
            <>
              <NotificationTable items={page.data} caption="Notifications to this subscriber on every channel, newest first" />
              {page.meta.has_more ? (
                <Link to="/notifications" params={{ subscriber: subscriber.external_id }}>
                  All notifications to {subscriber.external_id}
                </Link>
              ) : null}
            </>
          )}
        </Async>
      </section>
      <section aria-labelledby="runs-title">
        <h2 id="runs-title">Workflow runs</h2>
        <Async
          load={runs}
          label="Loading the subscriber's workflow runs"
          rows={2}
          isEmpty={(page) => page.data.length === 0}
          empty={<Empty title="No workflow run for this subscriber yet" />}
        >
          {(page) => (
            <div class="table-scroll">
              <table class="subscriber-runs">
                <caption class="visually-hidden">Workflow runs for this subscriber, newest first</caption>
                <TableHead columns={["Run", "Workflow", "Status", "Step", "Started"]} />
                <tbody>
                  {page.data.map((r) => (
                    <tr key={r.id}>
                      <td>
                        <Link to={`/workflow-runs/${r.id}`}>{r.id.slice(0, 8)}…</Link>
                      </td>
                      <td>
                        {r.workflow_slug} <span class="muted">v{r.workflow_version}</span>
                      </td>
                      <td>
                        <Badge value={r.status} />
                      </td>
                      <td>{r.current_step}</td>
                      <td>
                        <Time iso={r.started_at} />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </Async>
      </section>
    </>
  );
}
