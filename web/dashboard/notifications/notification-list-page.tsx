// Notifications: the newest first, filtered by status and channel (kept in the URL), refreshed
// every few seconds so a notification sent through the API appears; older pages on request.
import { useState } from "preact/hooks";
import type { NotificationListItem } from "../../../client";
import { useDashboard } from "../app/context";
import type { PageProps } from "../app/section";
import { Badge, Time } from "../ui/format";
import { Link } from "../ui/link";
import { PageHeader } from "../ui/page-header";
import { Async, Empty, ErrorNotice } from "../ui/states";
import { useAction, useLoad } from "../ui/use-load";
import { CHANNEL_LABELS, CHANNELS, isChannel, NOTIFICATION_STATUS_LABELS, NOTIFICATION_STATUSES, type NotificationStatus } from "../vocabulary";
import { Choice } from "../ui/choice";
import { TableHead } from "../ui/table-head";

const PAGE_SIZE = 25;
const REFRESH_MS = 3_000;

export function NotificationListPage({ query }: PageProps) {
  const { api, go } = useDashboard();
  const rawStatus = query.get("status");
  const status = NOTIFICATION_STATUSES.find((s) => s === rawStatus);
  const rawChannel = query.get("channel");
  const channel = isChannel(rawChannel) ? rawChannel : undefined;
  // older pages a person asked for; while any are shown the first page is not refreshed under them
  const [older, setOlder] = useState<{ items: NotificationListItem[]; cursor: string | null }>({ items: [], cursor: null });

  const load = useLoad(
    async () => {
      setOlder({ items: [], cursor: null });
      return await api.notifications.list({ status, channel, limit: PAGE_SIZE });
    },
    [status, channel],
    { refreshMs: () => (older.items.length ? undefined : REFRESH_MS) },
  );
  const more = useAction(async (cursor: string) => {
    const page = await api.notifications.list({ status, channel, limit: PAGE_SIZE, cursor });
    setOlder((o) => ({ items: [...o.items, ...page.data], cursor: page.meta.has_more ? page.meta.cursor : null }));
  });

  const filter = (next: { status?: NotificationStatus; channel?: string }) =>
    go("/notifications", { status: "status" in next ? next.status : status, channel: "channel" in next ? next.channel : channel });

  return (
    <>
      <PageHeader title="Notifications" />
      <form class="filters" aria-label="Filter notifications" onSubmit={(e) => e.preventDefault()}>
        <label for="filter-status">Status</label>
        <Choice id="filter-status" value={status} choices={NOTIFICATION_STATUSES} labels={NOTIFICATION_STATUS_LABELS} any="Any status" onChange={(v) => filter({ status: v })} />
        <label for="filter-channel">Channel</label>
        <Choice id="filter-channel" value={channel} choices={CHANNELS} labels={CHANNEL_LABELS} any="Any channel" onChange={(v) => filter({ channel: v })} />
      </form>
      <Async
        load={load}
        label="Loading notifications"
        rows={8}
        isEmpty={(page) => page.data.length === 0}
        empty={
          <Empty title={status || channel ? "No notification matches these filters" : "No notifications yet"}>
            {status || channel ? (
              <Link to="/notifications">Clear the filters</Link>
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

function NotificationTable({ items }: { items: NotificationListItem[] }) {
  return (
    <table class="notifications">
      <caption class="visually-hidden">Notifications, newest first</caption>
      <TableHead columns={["Recipient", "Channel", "Status", "Template", "Created"]} />
      <tbody>
        {items.map((n) => (
          <tr key={n.id} data-id={n.id}>
            <td>
              <Link to={`/notifications/${n.id}`}>{n.recipient ?? "(erased)"}</Link>
            </td>
            <td>{n.channel}</td>
            <td>
              <Badge value={n.status} />
            </td>
            <td>{n.template_id ?? <span class="muted">none</span>}</td>
            <td>
              <Time iso={n.created_at} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
