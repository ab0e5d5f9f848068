// Workflows: the active versions newest first (every version with ?versions=all, kept in the URL),
// older pages on request; each opens its version's page; the way to a new one and to all runs.
import type { Workflow } from "../../../client";
import { useDashboard } from "../app/context";
import type { PageProps } from "../app/section";
import { Badge, Time } from "../ui/format";
import { Link } from "../ui/link";
import { OlderButton, useOlderPages } from "../ui/older-pages";
import { PageHeader } from "../ui/page-header";
import { Async, Empty } from "../ui/states";
import { TableHead } from "../ui/table-head";
import { useLoad } from "../ui/use-load";
import { stepSummary } from "./steps";

const PAGE_SIZE = 25;

export function WorkflowListPage({ query }: PageProps) {
  const { api, go } = useDashboard();
  const all = query.get("versions") === "all";
  const params = { include_inactive: all, limit: PAGE_SIZE };
  const older = useOlderPages<Workflow>((cursor) => api.workflows.list({ ...params, cursor }), [all]);
  const load = useLoad(async () => await api.workflows.list(params), [all]);
  return (
    <>
      <PageHeader title="Workflows">
        <Link to="/workflow-runs">All runs</Link>
        <Link to="/workflows/new" class="button">
          New workflow
        </Link>
      </PageHeader>
      <form class="filters" aria-label="Filter workflows" onSubmit={(e) => e.preventDefault()}>
        <label class="checkbox">
          <input type="checkbox" checked={all} onChange={(e) => go("/workflows", { versions: e.currentTarget.checked ? "all" : undefined })} /> Show inactive versions too
        </label>
      </form>
      <Async
        load={load}
        label="Loading workflows"
        rows={5}
        isEmpty={(page) => page.data.length === 0}
        empty={
          <Empty title="No workflows yet">
            <Link to="/workflows/new">Create a workflow</Link>: send, wait, and fall back to another channel when a message is not delivered.
          </Empty>
        }
      >
        {(page) => (
          <>
            <table class="workflows">
              <caption class="visually-hidden">Workflows, newest first</caption>
              <TableHead columns={["Name", "Slug", "Version", "Steps", "Created"]} />
              <tbody>
                {[...page.data, ...older.items].map((w) => (
                  <tr key={w.id} data-slug={w.slug}>
                    <td>
                      <Link to={`/workflows/${w.id}`}>{w.name}</Link>
                    </td>
                    <td>
                      <code>{w.slug}</code>
                    </td>
                    <td>
                      {w.version} {all ? <Badge value={w.active ? "active" : "draft"}>{w.active ? "active" : "inactive"}</Badge> : null}
                    </td>
                    <td>
                      <ol class="step-summary compact">
                        {w.steps.map((s, i) => (
                          <li key={i}>{stepSummary(s)}</li>
                        ))}
                      </ol>
                    </td>
                    <td>
                      <Time iso={w.inserted_at} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
            <OlderButton pages={older} first={page} label="Show older workflows" />
          </>
        )}
      </Async>
    </>
  );
}
