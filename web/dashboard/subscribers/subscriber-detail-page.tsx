// One subscriber: the record and consent (Edit), their notifications on every channel and their
// workflow runs, a test send and a workflow trigger for them, preferences (toggled and added here),
// a link to their hosted preference center, the in-app inbox, and erasure (LGPD) behind a confirmation.
import { useState } from "preact/hooks";
import type { ChannelName, InboxItem, Preference, Subscriber } from "../../../client";
import { useDashboard } from "../app/context";
import type { PageProps } from "../app/section";
import { ConfirmButton } from "../ui/confirm";
import { Field } from "../ui/field";
import { Badge, Json, Time } from "../ui/format";
import { Link } from "../ui/link";
import { PageHeader } from "../ui/page-header";
import { Async, Empty, ErrorNotice } from "../ui/states";
import { useAction, useLoad } from "../ui/use-load";
import { CHANNEL_LABELS, CHANNELS } from "../vocabulary";
import { Choice } from "../ui/choice";
import { TableHead } from "../ui/table-head";
import { SendTest, TriggerForSubscriber } from "./subscriber-actions";
import { SubscriberHistory } from "./subscriber-history";
import { PreferenceLinkButton } from "./preference-link";

interface SubscriberData {
  subscriber: Subscriber;
  preferences: Preference[];
  inbox: { items: InboxItem[]; total: number; unread: number };
}

export function SubscriberDetailPage({ params }: PageProps) {
  const { api } = useDashboard();
  const load = useLoad<SubscriberData>(async () => {
    const subscriber = await api.subscribers.retrieve(params.id!);
    const [preferences, inbox] = await Promise.all([
      api.subscribers.preferences.retrieve(subscriber.id),
      api.subscribers.inbox.list(subscriber.id, { limit: 20 }),
    ]);
    return { subscriber, preferences, inbox: { items: inbox.data, total: inbox.meta.total, unread: inbox.meta.unread_count } };
  }, [params.id]);
  return (
    <>
      <PageHeader title="Subscriber">
        <Link to="/subscribers">All subscribers</Link>
        {load.status === "ready" ? (
          <Link to={`/subscribers/${load.data.subscriber.id}/edit`} class="button secondary">
            Edit
          </Link>
        ) : null}
      </PageHeader>
      <Async load={load} label="Loading the subscriber" rows={8}>
        {(d) => <SubscriberView data={d} onPreferences={(preferences) => load.setData({ ...d, preferences })} />}
      </Async>
    </>
  );
}

function SubscriberView({ data, onPreferences }: { data: SubscriberData; onPreferences(p: Preference[]): void }) {
  const { api, go } = useDashboard();
  const s = data.subscriber;
  // a test send shows up in the history at once
  const [round, setRound] = useState(0);
  const erase = useAction(async () => {
    await api.subscribers.del(s.id);
    go("/subscribers", {}, { notice: `Subscriber ${s.external_id} was erased: email, phone, name and custom properties are gone.` });
  });
  return (
    <div class="detail">
      <section aria-labelledby="record-title">
        <h2 id="record-title">{s.name ?? s.external_id}</h2>
        <dl class="facts">
          <dt>External id</dt>
          <dd>
            <code>{s.external_id}</code>
          </dd>
          <dt>Id</dt>
          <dd>
            <code>{s.id}</code>
          </dd>
          <dt>Email</dt>
          <dd>{s.email ?? <span class="muted">—</span>}</dd>
          <dt>Phone</dt>
          <dd>{s.phone ?? <span class="muted">—</span>}</dd>
          <dt>Locale</dt>
          <dd>{s.locale ?? <span class="muted">—</span>}</dd>
          <dt>Time zone</dt>
          <dd>{s.timezone ?? <span class="muted">—</span>}</dd>
          <dt>Consent</dt>
          <dd>
            {s.consent?.given_at ? (
              <>
                <Time iso={s.consent.given_at} /> by {s.consent.method ?? "?"} from {s.consent.ip ?? "?"}
              </>
            ) : (
              <span class="muted">none recorded</span>
            )}
          </dd>
          <dt>Created</dt>
          <dd>
            <Time iso={s.created_at} />
          </dd>
        </dl>
        <h3>Custom properties</h3>
        <Json value={s.custom_properties} label="Custom properties" />
      </section>
      <SubscriberHistory subscriber={s} round={round} />
      <div class="two-columns">
        <SendTest subscriber={s} onSent={() => setRound((r) => r + 1)} />
        <TriggerForSubscriber subscriber={s} />
      </div>
      <Preferences subscriberId={s.id} preferences={data.preferences} onChange={onPreferences} />
      <PreferenceLinkButton subscriber={s} />
      <section aria-labelledby="inbox-title">
        <h2 id="inbox-title">
          In-app inbox <span class="muted">({data.inbox.unread} unread of {data.inbox.total})</span>
        </h2>
        {data.inbox.items.length ? (
          <ul class="inbox-items">
            {data.inbox.items.map((i) => (
              <li key={i.id} class={i.read ? "read" : "unread"}>
                <strong>{i.title ?? "(no title)"}</strong> <Badge value={i.read ? "draft" : "sent"}>{i.read ? "read" : "unread"}</Badge>
                <p>{i.body}</p>
                <Time iso={i.created_at} />
                {i.notification_id ? (
                  <>
                    {" · "}
                    <Link to={`/notifications/${i.notification_id}`}>notification</Link>
                  </>
                ) : null}
              </li>
            ))}
          </ul>
        ) : (
          <Empty title="The inbox is empty">In-app notifications sent to this subscriber appear here.</Empty>
        )}
      </section>
      <section aria-labelledby="erase-title" class="danger-zone">
        <h2 id="erase-title">Erase</h2>
        <p>Erasing removes the email, phone, name and custom properties and redacts the recipient of this subscriber's notifications. It cannot be undone.</p>
        {erase.error ? <ErrorNotice error={erase.error} title="Not erased" /> : null}
        <ConfirmButton label="Erase subscriber" title={`Erase ${s.external_id}?`} confirmLabel="Erase for good" onConfirm={() => erase.run()} disabled={erase.pending}>
          <p>
            The personal data of <strong>{s.external_id}</strong> is deleted now and cannot be recovered.
          </p>
        </ConfirmButton>
      </section>
    </div>
  );
}

function Preferences({ subscriberId, preferences, onChange }: { subscriberId: string; preferences: Preference[]; onChange(p: Preference[]): void }) {
  const { api } = useDashboard();
  const [category, setCategory] = useState("");
  const [channel, setChannel] = useState<ChannelName>("email");
  const update = useAction(async (next: Preference[]) => onChange(await api.subscribers.preferences.update(subscriberId, next)));
  const key = (p: Preference) => `${p.category}:${p.channel}`;
  const toggle = (p: Preference) => update.run(preferences.map((q) => (key(q) === key(p) ? { ...q, enabled: !q.enabled } : q)));
  return (
    <section aria-labelledby="preferences-title">
      <h2 id="preferences-title">Preferences</h2>
      {preferences.length ? (
        <table>
          <TableHead columns={["Category", "Channel", "Receives"]} />
          <tbody>
            {preferences.map((p) => (
              <tr key={key(p)}>
                <td>{p.category}</td>
                <td>{CHANNEL_LABELS[p.channel]}</td>
                <td>
                  <input
                    type="checkbox"
                    checked={p.enabled}
                    disabled={update.pending}
                    aria-label={`${p.category} by ${CHANNEL_LABELS[p.channel]}`}
                    onChange={() => toggle(p)}
                  />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : (
        <Empty title="No preferences: the subscriber receives every category on every channel" />
      )}
      <form
        class="filters"
        aria-label="Add a preference"
        onSubmit={(e) => {
          e.preventDefault();
          const next = category.trim();
          if (next) update.run([...preferences.filter((p) => key(p) !== `${next}:${channel}`), { category: next, channel, enabled: false }]).then((ok) => ok && setCategory(""));
        }}
      >
        <Field id="preference-category" label="Category">
          <input id="preference-category" value={category} placeholder="marketing, or all" onInput={(e) => setCategory(e.currentTarget.value)} />
        </Field>
        <Field id="preference-channel" label="Channel">
          <Choice id="preference-channel" value={channel} choices={CHANNELS} labels={CHANNEL_LABELS} onChange={(v) => setChannel(v!)} />
        </Field>
        <button type="submit" class="secondary" disabled={update.pending || !category.trim()}>
          Opt out
        </button>
      </form>
      {update.error ? <ErrorNotice error={update.error} title="Preferences not saved" /> : null}
    </section>
  );
}
