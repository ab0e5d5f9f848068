// One webhook endpoint at its own URL: what it receives, enable/disable, change, delete; the test
// event, its deliveries (retry a failed one) and a replay of a time window.
import { useState } from "preact/hooks";
import type { Webhook, WebhookEventType } from "../../../client";
import { useDashboard } from "../app/context";
import type { PageProps } from "../app/section";
import { ConfirmButton } from "../ui/confirm";
import { Time } from "../ui/format";
import { Link } from "../ui/link";
import { PageHeader } from "../ui/page-header";
import { Async, ErrorNotice } from "../ui/states";
import { useAction, useLoad } from "../ui/use-load";
import { Deliveries } from "./deliveries";
import { EndpointFields, type EndpointDraft } from "./endpoint-fields";
import { EndpointState } from "./endpoint-state";
import { ReplayForm, TestEvent } from "./test-and-replay";

export function EndpointDetailPage({ params, query }: PageProps) {
  const { api } = useDashboard();
  const load = useLoad(() => api.webhooks.retrieve(params.id!), [params.id]);
  // a test or a replay made deliveries: the list loads again
  const [round, setRound] = useState(0);
  const again = () => setRound((r) => r + 1);
  return (
    <>
      <PageHeader title="Webhook endpoint">
        <Link to="/webhook-endpoints">All endpoints</Link>
      </PageHeader>
      <Async load={load} label="Loading the endpoint" rows={5}>
        {(w) => (
          <div class="detail" key={w.id}>
            <EndpointSummary webhook={w} onChange={load.setData} />
            <TestEvent webhook={w} onSent={again} />
            <Deliveries webhook={w} query={query} round={round} />
            <ReplayForm webhook={w} onQueued={again} />
          </div>
        )}
      </Async>
    </>
  );
}

function EndpointSummary({ webhook: w, onChange }: { webhook: Webhook; onChange(w: Webhook): void }) {
  const { api, go } = useDashboard();
  const [editing, setEditing] = useState(false);
  const [message, setMessage] = useState<string | null>(null);
  const toggle = useAction(async () => {
    const next = await api.webhooks.update(w.id, { active: !w.active });
    onChange(next);
    setMessage(next.active ? "Enabled: new events are delivered again." : "Disabled: nothing is delivered, scheduled retries included.");
  });
  const remove = useAction(async () => {
    await api.webhooks.del(w.id);
    go("/webhook-endpoints", {}, { notice: `Endpoint ${w.url} deleted.` });
  });
  return (
    <section aria-labelledby="summary-title">
      <h2 id="summary-title">Summary</h2>
      <dl class="facts">
        <dt>URL</dt>
        <dd>
          <code>{w.url}</code>
        </dd>
        <dt>State</dt>
        <dd>
          <EndpointState webhook={w} />
        </dd>
        <dt>Events</dt>
        <dd>
          {w.events.map((e) => (
            <code key={e} class="event-type">
              {e}{" "}
            </code>
          ))}
        </dd>
        <dt>Description</dt>
        <dd>{w.description ?? <span class="muted">none</span>}</dd>
        <dt>Created</dt>
        <dd>
          <Time iso={w.created_at} />
        </dd>
        <dt>Id</dt>
        <dd>
          <code>{w.id}</code>
        </dd>
      </dl>
      <p class="hint">The signing secret was shown once, when the endpoint was added. To change it, add a new endpoint and delete this one.</p>
      {toggle.error ? <ErrorNotice error={toggle.error} title="Not changed" /> : null}
      {remove.error ? <ErrorNotice error={remove.error} title="Not deleted" /> : null}
      <p class="form-status" role="status">
        {message}
      </p>
      <div class="button-row">
        <button type="button" class="secondary" disabled={toggle.pending} onClick={() => toggle.run()}>
          {w.active ? "Disable" : "Enable"}
        </button>
        <button type="button" class="secondary" aria-expanded={editing} aria-controls="edit-endpoint" onClick={() => setEditing(!editing)}>
          {editing ? "Close the form" : "Change"}
        </button>
        <ConfirmButton label="Delete" title={`Delete the endpoint ${w.url}?`} confirmLabel="Delete endpoint" onConfirm={() => remove.run()} disabled={remove.pending}>
          <p>It receives nothing more; its delivery records and queued deliveries are deleted too.</p>
        </ConfirmButton>
      </div>
      {editing ? (
        <EditEndpoint
          webhook={w}
          onSaved={(next) => {
            onChange(next);
            setEditing(false);
            setMessage("Saved.");
          }}
        />
      ) : null}
    </section>
  );
}

function EditEndpoint({ webhook: w, onSaved }: { webhook: Webhook; onSaved(w: Webhook): void }) {
  const { api } = useDashboard();
  const [draft, setDraft] = useState<EndpointDraft>({ url: w.url, events: w.events as WebhookEventType[], description: w.description ?? "" });
  const save = useAction(async () => onSaved(await api.webhooks.update(w.id, { url: draft.url.trim(), events: draft.events, description: draft.description.trim() || null })));
  return (
    <form
      id="edit-endpoint"
      class="stack"
      aria-label="Change the endpoint"
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        save.run();
      }}
    >
      <EndpointFields idPrefix="edit-endpoint" draft={draft} onChange={setDraft} details={save.error?.details} />
      {save.error ? <ErrorNotice error={save.error} title="Not saved" /> : null}
      <div class="button-row">
        <button type="submit" disabled={save.pending}>
          Save
        </button>
      </div>
    </form>
  );
}
