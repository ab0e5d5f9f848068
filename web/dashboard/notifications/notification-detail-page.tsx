// One notification at its own URL: summary, status timeline, delivery attempts with the provider's
// answers, and the content it was sent with; refreshed while its delivery is still moving.
import type { DeliveryAttempt, Notification } from "../../../client";
import { useDashboard } from "../app/context";
import type { PageProps } from "../app/section";
import { Badge, Json, Time } from "../ui/format";
import { Link } from "../ui/link";
import { PageHeader } from "../ui/page-header";
import { Async, Empty } from "../ui/states";
import { useLoad } from "../ui/use-load";
import { StatusTimeline } from "./status-timeline";
import { TableHead } from "../ui/table-head";

/** Statuses that can still change without anyone acting: the page asks again until they settle. */
const MOVING = new Set(["pending", "sent"]);

export function NotificationDetailPage({ params }: PageProps) {
  const { api } = useDashboard();
  const load = useLoad(() => api.notifications.retrieve(params.id!), [params.id], {
    refreshMs: (n) => (MOVING.has(n.status) ? 1_500 : undefined),
  });
  return (
    <>
      <PageHeader title="Notification">
        <Link to="/notifications">All notifications</Link>
      </PageHeader>
      <Async load={load} label="Loading the notification" rows={8}>
        {(n) => <NotificationView n={n} />}
      </Async>
    </>
  );
}

function NotificationView({ n }: { n: Notification }) {
  const error = n.error as { code?: string; message?: string } | null;
  return (
    <div class="detail">
      <section aria-labelledby="summary-title">
        <h2 id="summary-title">Summary</h2>
        <dl class="facts">
          <dt>Status</dt>
          <dd>
            <Badge value={n.status} />
          </dd>
          <dt>Id</dt>
          <dd>
            <code>{n.id}</code>
          </dd>
          <dt>Channel</dt>
          <dd>{n.channel}</dd>
          <dt>Recipient</dt>
          <dd>{n.recipient ?? <span class="muted">erased</span>}</dd>
          <dt>Template</dt>
          <dd>{n.template_id ? <Link to={`/templates/${n.template_id}`}>{n.template_id}</Link> : <span class="muted">none (raw content)</span>}</dd>
          <dt>Locale</dt>
          <dd>{n.locale ?? <span class="muted">none (raw content)</span>}</dd>
          <dt>Category</dt>
          <dd>{n.category ?? <span class="muted">none</span>}</dd>
          <dt>Provider</dt>
          <dd>{n.provider ?? <span class="muted">not yet</span>}</dd>
          <dt>Subscriber</dt>
          <dd>{n.subscriber_id ? <Link to={`/subscribers/${n.subscriber_id}`}>{n.subscriber_id}</Link> : <span class="muted">none</span>}</dd>
          <dt>Workflow</dt>
          <dd class="workflow-step">
            {n.workflow_step ? (
              <Link to={`/workflow-runs/${n.workflow_step.run_id}`}>Step {n.workflow_step.step + 1} of workflow run {n.workflow_step.run_id.slice(0, 8)}…</Link>
            ) : (
              <span class="muted">none (sent directly)</span>
            )}
          </dd>
          <dt>Created</dt>
          <dd>
            <Time iso={n.created_at} />
          </dd>
        </dl>
        {error?.message ? (
          <p class="notice error-notice">
            <code>{error.code}</code> {error.message}
          </p>
        ) : null}
      </section>
      <section aria-labelledby="timeline-title">
        <h2 id="timeline-title">Status timeline</h2>
        <StatusTimeline notification={n} />
      </section>
      <section aria-labelledby="attempts-title">
        <h2 id="attempts-title">Delivery attempts</h2>
        {n.attempts.length ? <AttemptTable attempts={n.attempts} /> : <Empty title={n.status === "suppressed" ? "Never attempted: the notification was suppressed" : "No attempt yet"} />}
      </section>
      <section aria-labelledby="content-title">
        <h2 id="content-title">Content</h2>
        <Json value={n.data} label="Data the notification was sent with" />
        <h3>Metadata</h3>
        <Json value={n.metadata} label="Metadata" />
      </section>
    </div>
  );
}

function AttemptTable({ attempts }: { attempts: DeliveryAttempt[] }) {
  return (
    <table class="attempts">
      <TableHead columns={["#", "Status", "Provider", "Duration", "At", "Provider response"]} />
      <tbody>
        {attempts.map((a) => {
          const err = a.error as { code?: string; message?: string } | null;
          return (
            <tr key={a.id} class="attempt">
              <td>{a.attempt_number}</td>
              <td>
                <Badge value={a.status} />
                {err?.message ? <div class="field-error">{err.message}</div> : null}
              </td>
              <td>{a.provider ?? "—"}</td>
              <td>{a.duration_ms === null ? "—" : `${a.duration_ms} ms`}</td>
              <td>
                <Time iso={a.created_at} />
              </td>
              <td>
                <details>
                  <summary>Show</summary>
                  <Json value={a.provider_response} label={`Provider response of attempt ${a.attempt_number}`} />
                </details>
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}
