// Notifications, the activity feed: newest first, searched by recipient, subscriber, template,
// workflow, status, channel and time (all kept in the URL), refreshed every few seconds so a
// notification sent through the API appears; older pages on request.
import { useEffect, useState } from "preact/hooks";
import type { NotificationListItem, NotificationListParams } from "../../../client";
import { useDashboard } from "../app/context";
import type { PageProps } from "../app/section";
import { Link } from "../ui/link";
import { PageHeader } from "../ui/page-header";
import { Async, Empty, ErrorNotice } from "../ui/states";
import { useAction, useLoad } from "../ui/use-load";
import { CHANNEL_LABELS, CHANNELS, isChannel, NOTIFICATION_STATUS_LABELS, NOTIFICATION_STATUSES } from "../vocabulary";
import { Choice } from "../ui/choice";
import { NotificationTable } from "./notification-table";

const PAGE_SIZE = 25;
const REFRESH_MS = 3_000;
/** The text filters, as named in the URL and in the API's query. */
const TEXT_FILTERS = ["recipient", "subscriber", "template", "workflow"] as const;
type TextFilter = (typeof TEXT_FILTERS)[number];
const TEXT_LABELS: Record<TextFilter, string> = { recipient: "Recipient", subscriber: "Subscriber", template: "Template", workflow: "Workflow" };
const TEXT_HINTS: Record<TextFilter, string> = {
  recipient: "an address, exactly",
  subscriber: "external id or id",
  template: "slug",
  workflow: "slug",
};

/** An ISO timestamp as a datetime-local input shows it (local time, minutes). */
function localInput(iso: string | undefined): string {
  if (!iso) return "";
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return "";
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

function isoOf(local: string): string | undefined {
  if (!local) return undefined;
  const d = new Date(local);
  return Number.isNaN(d.getTime()) ? undefined : d.toISOString();
}

export function NotificationListPage({ query }: PageProps) {
  const { api, go } = useDashboard();
  const status = NOTIFICATION_STATUSES.find((s) => s === query.get("status"));
  const rawChannel = query.get("channel");
  const channel = isChannel(rawChannel) ? rawChannel : undefined;
  const text = Object.fromEntries(TEXT_FILTERS.map((k) => [k, query.get(k) || undefined])) as Record<TextFilter, string | undefined>;
  const after = query.get("created_after") || undefined;
  const before = query.get("created_before") || undefined;
  const params: NotificationListParams = { status, channel, ...text, created_after: after, created_before: before };
  const key = JSON.stringify(params);
  const filtered = Object.values(params).some((v) => v !== undefined);

  // what is typed, applied on Search
  const [draft, setDraft] = useState({ ...text, after: localInput(after), before: localInput(before) });
  useEffect(() => setDraft({ ...text, after: localInput(after), before: localInput(before) }), [key]);
  // older pages a person asked for; while any are shown the first page is not refreshed under them
  const [older, setOlder] = useState<{ items: NotificationListItem[]; cursor: string | null }>({ items: [], cursor: null });

  const load = useLoad(
    async () => {
      setOlder({ items: [], cursor: null });
      return await api.notifications.list({ ...params, limit: PAGE_SIZE });
    },
    [key],
    { refreshMs: () => (older.items.length ? undefined : REFRESH_MS) },
  );
  const more = useAction(async (cursor: string) => {
    const page = await api.notifications.list({ ...params, limit: PAGE_SIZE, cursor });
    setOlder((o) => ({ items: [...o.items, ...page.data], cursor: page.meta.has_more ? page.meta.cursor : null }));
  });

  const apply = (next: Partial<Record<keyof NotificationListParams, string | undefined>>) =>
    go("/notifications", { ...(params as Record<string, string | undefined>), ...next });

  return (
    <>
      <PageHeader title="Notifications" />
      <form
        class="filters feed-filters"
        role="search"
        aria-label="Search notifications"
        onSubmit={(e) => {
          e.preventDefault();
          const typed = Object.fromEntries(TEXT_FILTERS.map((k) => [k, draft[k]?.trim() || undefined]));
          apply({ ...typed, created_after: isoOf(draft.after), created_before: isoOf(draft.before) });
        }}
      >
        {TEXT_FILTERS.map((k) => (
          <div class="field" key={k}>
            <label for={`feed-${k}`}>{TEXT_LABELS[k]}</label>
            <input
              id={`feed-${k}`}
              type="search"
              value={draft[k] ?? ""}
              placeholder={TEXT_HINTS[k]}
              onInput={(e) => setDraft((d) => ({ ...d, [k]: e.currentTarget.value }))}
            />
          </div>
        ))}
        <div class="field">
          <label for="feed-after">From</label>
          <input id="feed-after" type="datetime-local" value={draft.after} onInput={(e) => setDraft((d) => ({ ...d, after: e.currentTarget.value }))} />
        </div>
        <div class="field">
          <label for="feed-before">Until</label>
          <input id="feed-before" type="datetime-local" value={draft.before} onInput={(e) => setDraft((d) => ({ ...d, before: e.currentTarget.value }))} />
        </div>
        <div class="field">
          <label for="filter-status">Status</label>
          <Choice id="filter-status" value={status} choices={NOTIFICATION_STATUSES} labels={NOTIFICATION_STATUS_LABELS} any="Any status" onChange={(v) => apply({ status: v })} />
        </div>
        <div class="field">
          <label for="filter-channel">Channel</label>
          <Choice id="filter-channel" value={channel} choices={CHANNELS} labels={CHANNEL_LABELS} any="Any channel" onChange={(v) => apply({ channel: v })} />
        </div>
        <div class="button-row">
          <button type="submit">Search</button>
          {filtered ? <Link to="/notifications">Clear</Link> : null}
        </div>
      </form>
      <Async
        load={load}
        label="Loading notifications"
        rows={8}
        isEmpty={(page) => page.data.length === 0}
        empty={
          <Empty title={filtered ? "No notification matches this search" : "No notifications yet"}>
            {filtered ? (
              <Link to="/notifications">Clear the search</Link>
            ) : (
              <>
                Send one with <code>POST /v1/notifications</code> and it appears here within seconds.
              </>
            )}
          </Empty>
        }
      >
        {(page) => {
          const cursor = older.items.length ? older.cursor : page.meta.has_more ? page.meta.cursor : null;
          return (
            <>
              <NotificationTable items={[...page.data, ...older.items]} />
              {more.error ? <ErrorNotice error={more.error} /> : null}
              {cursor ? (
                <button type="button" class="secondary" disabled={more.pending} onClick={() => more.run(cursor)}>
                  {more.pending ? "Loading…" : "Show older notifications"}
                </button>
              ) : null}
            </>
          );
        }}
      </Async>
    </>
  );
}
