// Templates: every template of the environment, filtered by channel and status (in the URL),
// each opening its editor; and the way to a new one.
import type { Template } from "../../../client";
import { useDashboard } from "../app/context";
import type { PageProps } from "../app/section";
import { Badge, Time } from "../ui/format";
import { Link } from "../ui/link";
import { PageHeader } from "../ui/page-header";
import { Async, Empty } from "../ui/states";
import { useLoad } from "../ui/use-load";
import { CHANNEL_LABELS, CHANNELS, isChannel, TEMPLATE_STATUS_LABELS, TEMPLATE_STATUSES } from "../vocabulary";
import { Choice } from "../ui/choice";
import { TableHead } from "../ui/table-head";

/** The editor's path of a template: its slug, or its id for the one slug the new-template page owns. */
export function templatePath(t: Pick<Template, "id" | "slug">): string {
  return `/templates/${t.slug === "new" ? t.id : t.slug}`;
}

export function TemplateListPage({ query }: PageProps) {
  const { api, go } = useDashboard();
  const rawChannel = query.get("channel");
  const channel = isChannel(rawChannel) ? rawChannel : undefined;
  const status = TEMPLATE_STATUSES.find((s) => s === query.get("status"));
  const load = useLoad(() => api.templates.list({ channel, status, limit: 100 }).toArray(500), [channel, status]);
  const filter = (next: Record<string, string | undefined>) => go("/templates", { channel, status, ...next });

  return (
    <>
      <PageHeader title="Templates">
        <Link to="/templates/new" class="button">
          New template
        </Link>
      </PageHeader>
      <form class="filters" aria-label="Filter templates" onSubmit={(e) => e.preventDefault()}>
        <label for="template-channel">Channel</label>
        <Choice id="template-channel" value={channel} choices={CHANNELS} labels={CHANNEL_LABELS} any="Any channel" onChange={(v) => filter({ channel: v })} />
        <label for="template-status">Status</label>
        <Choice id="template-status" value={status} choices={TEMPLATE_STATUSES} labels={TEMPLATE_STATUS_LABELS} any="Any status" onChange={(v) => filter({ status: v })} />
      </form>
      <Async
        load={load}
        label="Loading templates"
        rows={6}
        isEmpty={(list) => list.length === 0}
        empty={
          <Empty title={channel || status ? "No template matches these filters" : "No templates yet"}>
            <Link to="/templates/new">Create a template</Link> with <code>{"{{ variable }}"}</code> placeholders, preview it, then publish it.
          </Empty>
        }
      >
        {(list) => (
          <table>
            <TableHead columns={["Name", "Slug", "Channel", "Status", "Updated"]} />
            <tbody>
              {list.map((t) => (
                <tr key={t.id}>
                  <td>
                    <Link to={templatePath(t)}>{t.name}</Link>
                  </td>
                  <td>
                    <code>{t.slug}</code>
                  </td>
                  <td>{t.channel}</td>
                  <td>
                    <Badge value={t.status} />
                  </td>
                  <td>
                    <Time iso={t.updated_at} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </Async>
    </>
  );
}
