// Webhook endpoints of the environment (/v1/webhooks): the list with enable/disable and delete, and
// adding one, whose signing secret is shown once with a copy button. At /webhook-endpoints: /webhooks is the API's.
import { useState } from "preact/hooks";
import type { Webhook, WebhookWithSecret } from "../../../client";
import { useDashboard } from "../app/context";
import type { PageProps } from "../app/section";
import { ConfirmButton } from "../ui/confirm";
import { SecretValue } from "../ui/copy";
import { Time } from "../ui/format";
import { Link } from "../ui/link";
import { PageHeader } from "../ui/page-header";
import { Async, Empty, ErrorNotice } from "../ui/states";
import { TableHead } from "../ui/table-head";
import { useAction, useLoad } from "../ui/use-load";
import { EndpointFields, type EndpointDraft } from "./endpoint-fields";
import { EndpointState } from "./endpoint-state";

/** SPEC Limits: webhooks per tenant (both environments together). */
const MAX_WEBHOOKS = 10;
const EMPTY: EndpointDraft = { url: "", events: [], description: "" };

export function EndpointListPage(_: PageProps) {
  const { api, environment } = useDashboard();
  const load = useLoad(() => api.webhooks.list(), []);
  const [created, setCreated] = useState<WebhookWithSecret | null>(null);
  const toggle = useAction(async (w: Webhook) => {
    await api.webhooks.update(w.id, { active: !w.active });
    load.reload();
  });
  const remove = useAction(async (w: Webhook) => {
    await api.webhooks.del(w.id);
    load.reload();
  });
  return (
    <>
      <PageHeader title="Webhooks" />
      <p class="lead">
        Endpoints that receive this account's {environment} events, signed with their own secret (Standard Webhooks). Failed deliveries are retried for about 9 hours.
      </p>
      {created ? <ShownOnce webhook={created} onDone={() => setCreated(null)} /> : null}
      {toggle.error ? <ErrorNotice error={toggle.error} title="Not changed" /> : null}
      {remove.error ? <ErrorNotice error={remove.error} title="Not deleted" /> : null}
      <Async load={load} label="Loading webhooks" rows={3} isEmpty={(list) => list.length === 0} empty={<Empty title="No webhook endpoints yet">Add one below to receive events as they happen.</Empty>}>
        {(list) => (
          <table class="webhooks">
            <TableHead columns={["URL", "Events", "State", "Created", { label: "Actions", hidden: true }]} />
            <tbody>
              {list.map((w) => (
                <tr key={w.id} data-id={w.id}>
                  <td>
                    <Link to={`/webhook-endpoints/${w.id}`}>{w.url}</Link>
                    {w.description ? <div class="hint">{w.description}</div> : null}
                  </td>
                  <td>{w.events.length === 1 ? <code>{w.events[0]}</code> : `${w.events.length} types`}</td>
                  <td>
                    <EndpointState webhook={w} />
                  </td>
                  <td>
                    <Time iso={w.created_at} />
                  </td>
                  <td class="actions">
                    <button type="button" class="secondary" disabled={toggle.pending} onClick={() => toggle.run(w)} aria-label={`${w.active ? "Disable" : "Enable"} ${w.url}`}>
                      {w.active ? "Disable" : "Enable"}
                    </button>
                    <ConfirmButton label="Delete" title={`Delete the endpoint ${w.url}?`} confirmLabel="Delete endpoint" onConfirm={() => remove.run(w)} disabled={remove.pending}>
                      <p>It receives nothing more; its delivery records and queued deliveries are deleted too.</p>
                    </ConfirmButton>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </Async>
      <AddEndpoint
        onCreated={(w) => {
          setCreated(w);
          load.reload();
        }}
      />
    </>
  );
}

/** The signing secret, readable in the creation answer only. */
function ShownOnce({ webhook, onDone }: { webhook: WebhookWithSecret; onDone(): void }) {
  return (
    <div class="notice success-notice shown-once" role="status">
      <p>
        Endpoint added: <Link to={`/webhook-endpoints/${webhook.id}`}>{webhook.url}</Link>. Copy its signing secret now: it is shown only this once. To change it, add a new endpoint and delete this one.
      </p>
      <SecretValue id="new-signing-secret" label="Signing secret" value={webhook.signing_secret} />
      <button type="button" class="secondary" onClick={onDone}>
        I have copied it
      </button>
    </div>
  );
}

function AddEndpoint({ onCreated }: { onCreated(w: WebhookWithSecret): void }) {
  const { api } = useDashboard();
  const [draft, setDraft] = useState<EndpointDraft>(EMPTY);
  const add = useAction(async () => {
    const w = await api.webhooks.create({ url: draft.url.trim(), events: draft.events, ...(draft.description.trim() ? { description: draft.description.trim() } : {}) });
    setDraft(EMPTY);
    onCreated(w);
  });
  return (
    <form
      class="stack"
      aria-labelledby="add-endpoint-title"
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        add.run();
      }}
    >
      <h2 id="add-endpoint-title">Add an endpoint</h2>
      <p class="hint">At most {MAX_WEBHOOKS} endpoints per account, both environments together.</p>
      <EndpointFields idPrefix="new-endpoint" draft={draft} onChange={setDraft} details={add.error?.details} />
      {add.error ? <ErrorNotice error={add.error} title="Not added" /> : null}
      <div class="button-row">
        <button type="submit" disabled={add.pending}>
          {add.pending ? "Adding…" : "Add endpoint"}
        </button>
      </div>
    </form>
  );
}
