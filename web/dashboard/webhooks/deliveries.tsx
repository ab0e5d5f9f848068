// An endpoint's delivery attempts, newest first: status, attempt, the receiver's response, the next
// automatic retry; Retry on a failed one; filtered by status (in the URL), older pages on request.
import type { Webhook, WebhookDelivery } from "../../../client";
import { useDashboard } from "../app/context";
import { Choice } from "../ui/choice";
import { Badge, Time } from "../ui/format";
import { OlderButton, useOlderPages } from "../ui/older-pages";
import { Async, Empty, ErrorNotice } from "../ui/states";
import { TableHead } from "../ui/table-head";
import { useAction, useLoad } from "../ui/use-load";
import { DELIVERY_STATUS_LABELS, DELIVERY_STATUSES } from "../vocabulary";

const PAGE_SIZE = 20;
/** A pending attempt is being made now: followed closely; otherwise new events still show up. */
const PENDING_MS = 2_000;
const IDLE_MS = 5_000;

interface Props {
  webhook: Webhook;
  query: URLSearchParams;
  /** Changes when the page made a delivery (test, replay): the list loads again. */
  round: number;
}

export function Deliveries({ webhook: w, query, round }: Props) {
  const { api, go } = useDashboard();
  const status = DELIVERY_STATUSES.find((s) => s === query.get("status"));
  const params = { status, limit: PAGE_SIZE };
  const older = useOlderPages<WebhookDelivery>((cursor) => api.webhooks.deliveries(w.id, { ...params, cursor }), [w.id, status, round]);
  const load = useLoad(
    async () => await api.webhooks.deliveries(w.id, params),
    [w.id, status, round],
    { refreshMs: (page) => (older.items.length ? undefined : page.data.some((d) => d.status === "pending") ? PENDING_MS : IDLE_MS) },
  );
  const retry = useAction(async (d: WebhookDelivery) => {
    await api.webhooks.retry(w.id, d.id);
    load.reload();
  });
  return (
    <section aria-labelledby="deliveries-title">
      <h2 id="deliveries-title">Deliveries</h2>
      <form class="filters" aria-label="Filter deliveries" onSubmit={(e) => e.preventDefault()}>
        <label for="delivery-status">Status</label>
        <Choice id="delivery-status" value={status} choices={DELIVERY_STATUSES} labels={DELIVERY_STATUS_LABELS} any="Any status" onChange={(v) => go(`/webhook-endpoints/${w.id}`, { status: v })} />
      </form>
      {retry.error ? <ErrorNotice error={retry.error} title="Not retried" /> : null}
      <Async
        load={load}
        label="Loading deliveries"
        rows={4}
        isEmpty={(page) => page.data.length === 0}
        empty={<Empty title={status ? "No delivery matches this filter" : "No deliveries yet"}>Events this endpoint receives appear here as they are sent; try the test event above.</Empty>}
      >
        {(page) => (
          <>
            <table class="deliveries">
              <caption class="visually-hidden">Delivery attempts, newest first</caption>
              <TableHead columns={["Event", { label: "Attempt", num: true }, "Status", "Response", "Next retry", "At", { label: "Actions", hidden: true }]} />
              <tbody>
                {withLaterAttempts([...page.data, ...older.items]).map(({ d, later }) => (
                  <DeliveryRow key={d.id} d={d} later={later} onRetry={() => retry.run(d)} retrying={retry.pending} />
                ))}
              </tbody>
            </table>
            <OlderButton pages={older} first={page} label="Show older deliveries" />
          </>
        )}
      </Async>
    </section>
  );
}

/** Each delivery with the latest later attempt of its event in the list, if any (a retry or replay replaced it). */
function withLaterAttempts(list: WebhookDelivery[]): { d: WebhookDelivery; later?: WebhookDelivery }[] {
  const latest = new Map<string, WebhookDelivery>();
  for (const d of list) if ((latest.get(d.event_id)?.attempt ?? 0) < d.attempt) latest.set(d.event_id, d);
  return list.map((d) => {
    const last = latest.get(d.event_id)!;
    return { d, later: last.attempt > d.attempt ? last : undefined };
  });
}

interface RowProps {
  d: WebhookDelivery;
  /** The event's latest attempt when it came after this one: no retry is offered here then. */
  later?: WebhookDelivery;
  onRetry(): void;
  retrying: boolean;
}

function DeliveryRow({ d, later, onRetry, retrying }: RowProps) {
  // test deliveries are not retried by the API (409 delivery_not_retryable): send another test instead
  const retryable = d.status === "failed" && d.event_type !== "notification.test" && !later;
  return (
    <tr data-id={d.id} data-event-type={d.event_type} data-status={d.status}>
      <td>
        <code>{d.event_type}</code>
        <div class="hint" title={d.event_id}>
          event {d.event_id.slice(0, 8)}…
        </div>
      </td>
      <td class="num">{d.attempt}</td>
      <td>
        <Badge value={d.status} />
      </td>
      <td class="response">
        {d.response_status === null ? <span class="muted">no answer</span> : <span class="response-status">HTTP {d.response_status}</span>}
        {d.duration_ms !== null ? <span class="muted"> · {d.duration_ms} ms</span> : null}
        {d.error ? (
          <div class="field-error">
            <code>{d.error.code}</code> {d.error.message}
          </div>
        ) : null}
        {d.response_body ? (
          <details>
            <summary>Body</summary>
            <pre class="json">{d.response_body}</pre>
          </details>
        ) : null}
      </td>
      <td>
        {later ? <span class="muted">replaced by attempt {later.attempt} ({later.status})</span> : <Time iso={d.next_retry_at} fallback={d.status === "failed" ? "none" : "—"} />}
      </td>
      <td>
        <Time iso={d.created_at} />
      </td>
      <td class="actions">
        {retryable ? (
          <button type="button" class="secondary" disabled={retrying} onClick={onRetry} aria-label={`Retry the ${d.event_type} delivery of attempt ${d.attempt}`}>
            Retry now
          </button>
        ) : null}
      </td>
    </tr>
  );
}
