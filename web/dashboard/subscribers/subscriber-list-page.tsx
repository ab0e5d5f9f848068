// Subscribers: search by email, name or external id (in the URL), a page at a time.
import { useState } from "preact/hooks";
import { useDashboard } from "../app/context";
import type { PageProps } from "../app/section";
import { Time } from "../ui/format";
import { Link } from "../ui/link";
import { PageHeader } from "../ui/page-header";
import { Async, Empty } from "../ui/states";
import { useLoad } from "../ui/use-load";
import { TableHead } from "../ui/table-head";

const PAGE_SIZE = 25;

export function SubscriberListPage({ query }: PageProps) {
  const { api, go } = useDashboard();
  const search = query.get("q") ?? "";
  const offset = Math.max(0, Number(query.get("offset")) || 0);
  const [text, setText] = useState(search);
  const load = useLoad(async () => await api.subscribers.list({ search: search || undefined, limit: PAGE_SIZE, offset }), [search, offset]);

  return (
    <>
      <PageHeader title="Subscribers">
        <Link to="/subscribers/import" class="button secondary">
          Import CSV
        </Link>
        <Link to="/subscribers/new" class="button">
          New subscriber
        </Link>
      </PageHeader>
      <form
        class="filters"
        role="search"
        onSubmit={(e) => {
          e.preventDefault();
          go("/subscribers", { q: text.trim() });
        }}
      >
        <label for="subscriber-search">Search</label>
        <input id="subscriber-search" type="search" value={text} placeholder="email, name or external id" onInput={(e) => setText(e.currentTarget.value)} />
        <button type="submit">Search</button>
      </form>
      <Async
        load={load}
        label="Loading subscribers"
        rows={8}
        isEmpty={(page) => page.data.length === 0}
        empty={
          <Empty title={search ? `No subscriber matches "${search}"` : "No subscribers yet"}>
            {search ? (
              <Link to="/subscribers">Show all subscribers</Link>
            ) : (
              <>
                Add one with <Link to="/subscribers/new">New subscriber</Link>, import a CSV file, or create them with <code>POST /v1/subscribers</code>.
              </>
            )}
          </Empty>
        }
      >
        {(page) => (
          <>
            <div class="table-scroll">
            <table>
              <TableHead columns={["External id", "Name", "Email", "Phone", "Created"]} />
              <tbody>
                {page.data.map((s) => (
                  <tr key={s.id}>
                    <td>
                      <Link to={`/subscribers/${s.id}`}>{s.external_id}</Link>
                    </td>
                    <td>{s.name ?? <span class="muted">—</span>}</td>
                    <td>{s.email ?? <span class="muted">—</span>}</td>
                    <td>{s.phone ?? <span class="muted">—</span>}</td>
                    <td>
                      <Time iso={s.created_at} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
            </div>
            <nav class="pager" aria-label="Subscriber pages">
              <span>
                {page.meta.offset + 1}–{page.meta.offset + page.data.length} of {page.meta.total}
              </span>
              {offset > 0 ? (
                <Link to="/subscribers" params={{ q: search, offset: String(Math.max(0, offset - PAGE_SIZE)) }}>
                  Previous
                </Link>
              ) : null}
              {offset + page.data.length < page.meta.total ? (
                <Link to="/subscribers" params={{ q: search, offset: String(offset + PAGE_SIZE) }}>
                  Next
                </Link>
              ) : null}
            </nav>
          </>
        )}
      </Async>
    </>
  );
}
