// The environment's topics (/v1/topics), newest first, and the form that creates one.
import { useState } from "preact/hooks";
import type { Topic } from "../../../client";
import { useDashboard } from "../app/context";
import type { PageProps } from "../app/section";
import { describedBy, Field, fieldErrors } from "../ui/field";
import { Time } from "../ui/format";
import { Link } from "../ui/link";
import { OlderButton, useOlderPages } from "../ui/older-pages";
import { PageHeader } from "../ui/page-header";
import { Async, Empty, ErrorNotice } from "../ui/states";
import { TableHead } from "../ui/table-head";
import { useAction, useLoad } from "../ui/use-load";

const PAGE_SIZE = 25;

export function TopicListPage(_: PageProps) {
  const { api, go } = useDashboard();
  const [key, setKey] = useState("");
  const [name, setName] = useState("");
  const older = useOlderPages<Topic>((cursor) => api.topics.list({ limit: PAGE_SIZE, cursor }), []);
  const load = useLoad(async () => await api.topics.list({ limit: PAGE_SIZE }), []);
  const create = useAction(async () => {
    const t = await api.topics.create({ key: key.trim(), name: name.trim() });
    go(`/topics/${encodeURIComponent(t.key)}`, {}, { notice: `Topic ${t.key} created.` });
  });
  const keyErrors = fieldErrors(create.error?.details, "key");
  const nameErrors = fieldErrors(create.error?.details, "name");
  return (
    <>
      <PageHeader title="Topics" />
      <p class="lead">Named groups of subscribers: trigger a workflow to a topic and every member gets a run.</p>
      <section aria-labelledby="topic-create-title">
        <h2 id="topic-create-title">New topic</h2>
        <form
          class="stack narrow"
          aria-labelledby="topic-create-title"
          onSubmit={(e) => {
            e.preventDefault();
            create.run();
          }}
        >
          <Field id="topic-key" label="Key" errors={keyErrors} hint="1-100 of a-z, 0-9, _ . : - (e.g. plan:pro)">
            <input id="topic-key" value={key} required onInput={(e) => setKey(e.currentTarget.value)} aria-describedby={describedBy("topic-key", true, keyErrors)} />
          </Field>
          <Field id="topic-name" label="Name" errors={nameErrors}>
            <input id="topic-name" value={name} required onInput={(e) => setName(e.currentTarget.value)} aria-describedby={describedBy("topic-name", false, nameErrors)} />
          </Field>
          {create.error && !keyErrors && !nameErrors ? <ErrorNotice error={create.error} title="Not created" /> : null}
          <div class="button-row">
            <button type="submit" disabled={create.pending}>
              {create.pending ? "Creating…" : "Create topic"}
            </button>
          </div>
        </form>
      </section>
      <Async load={load} label="Loading topics" rows={4} isEmpty={(page) => page.data.length === 0} empty={<Empty title="No topics yet">Create one above.</Empty>}>
        {(page) => (
          <>
            <table class="topics">
              <TableHead columns={["Key", "Name", "Members", "Created"]} />
              <tbody>
                {[...page.data, ...older.items].map((t) => (
                  <tr key={t.id}>
                    <td>
                      <Link to={`/topics/${encodeURIComponent(t.key)}`}>
                        <code>{t.key}</code>
                      </Link>
                    </td>
                    <td>{t.name}</td>
                    <td>{t.subscriber_count}</td>
                    <td>
                      <Time iso={t.created_at} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
            <OlderButton pages={older} first={page} label="Show older topics" />
          </>
        )}
      </Async>
    </>
  );
}
