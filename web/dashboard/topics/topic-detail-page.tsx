// One topic: its members (cursor-paged), adding and removing members by external id, and the
// trigger of a workflow to the topic, which opens the broadcast's page.
import { useState } from "preact/hooks";
import type { Subscriber, TopicMembersAdded, TopicMembersRemoved } from "../../../client";
import { useDashboard } from "../app/context";
import type { PageProps } from "../app/section";
import { describedBy, Field, fieldErrors } from "../ui/field";
import { OlderButton, useOlderPages } from "../ui/older-pages";
import { PageHeader } from "../ui/page-header";
import { Async, Empty, ErrorNotice } from "../ui/states";
import { TableHead } from "../ui/table-head";
import { useAction, useLoad } from "../ui/use-load";
import { jsonObject } from "../workflows/trigger-form";

const PAGE_SIZE = 50;

/** External ids (or ids) typed one per line or separated by commas or spaces. */
const refsOf = (text: string) => [...new Set(text.split(/[\s,]+/).map((s) => s.trim()).filter(Boolean))];

export function TopicDetailPage({ params }: PageProps) {
  const { api, go } = useDashboard();
  const key = params.key!;
  const [refs, setRefs] = useState("");
  const [result, setResult] = useState<string | null>(null);
  const [slug, setSlug] = useState("");
  const [dataText, setDataText] = useState("{}");
  const topic = useLoad(async () => await api.topics.retrieve(key), [key]);
  const older = useOlderPages<Subscriber>((cursor) => api.topics.listSubscribers(key, { limit: PAGE_SIZE, cursor }), [key]);
  const members = useLoad(async () => await api.topics.listSubscribers(key, { limit: PAGE_SIZE }), [key]);
  const change = useAction(async (op: "add" | "remove") => {
    const list = refsOf(refs);
    const r: TopicMembersAdded | TopicMembersRemoved = op === "add" ? await api.topics.addSubscribers(key, list) : await api.topics.removeSubscribers(key, list);
    const done = "added" in r ? `${r.added} added` : `${r.removed} removed`;
    setResult(`${done}, ${r.already} ${op === "add" ? "already members" : "were not members"}${r.not_found.length ? `, not found: ${r.not_found.join(", ")}` : ""}.`);
    setRefs("");
    topic.reload();
    members.reload();
  });
  const data = jsonObject(dataText);
  const trigger = useAction(async () => {
    const b = await api.broadcasts.trigger(slug.trim(), { to: { topic: key }, data: data ?? {} });
    go(`/broadcasts/${b.id}`, {}, { notice: `Broadcast to ${key} started.` });
  });
  const refErrors = fieldErrors(change.error?.details, "subscribers");
  return (
    <>
      <PageHeader title={`Topic ${key}`} />
      <Async load={topic} label="Loading the topic" rows={1}>
        {(t) => (
          <p class="lead">
            {t.name}: <strong data-testid="member-count">{t.subscriber_count}</strong> members.
          </p>
        )}
      </Async>
      <section aria-labelledby="members-edit-title">
        <h2 id="members-edit-title">Add or remove members</h2>
        <form class="stack narrow" aria-labelledby="members-edit-title" onSubmit={(e) => e.preventDefault()}>
          <Field id="member-refs" label="External ids" errors={refErrors} hint="One per line, or separated by commas; up to 1,000.">
            <textarea id="member-refs" rows={3} value={refs} onInput={(e) => setRefs(e.currentTarget.value)} aria-describedby={describedBy("member-refs", true, refErrors)} />
          </Field>
          {change.error && !refErrors ? <ErrorNotice error={change.error} title="Not changed" /> : null}
          {result ? <p role="status">{result}</p> : null}
          <div class="button-row">
            <button type="button" disabled={change.pending || refsOf(refs).length === 0} onClick={() => change.run("add")}>
              Add members
            </button>
            <button type="button" class="secondary" disabled={change.pending || refsOf(refs).length === 0} onClick={() => change.run("remove")}>
              Remove members
            </button>
          </div>
        </form>
      </section>
      <section aria-labelledby="broadcast-title">
        <h2 id="broadcast-title">Trigger a workflow to this topic</h2>
        <form
          class="stack narrow"
          aria-labelledby="broadcast-title"
          onSubmit={(e) => {
            e.preventDefault();
            if (data !== null) trigger.run();
          }}
        >
          <Field id="broadcast-slug" label="Workflow slug">
            <input id="broadcast-slug" value={slug} required onInput={(e) => setSlug(e.currentTarget.value)} />
          </Field>
          <Field id="broadcast-data" label="Data (JSON)" errors={data === null ? ["must be a JSON object"] : undefined}>
            <textarea id="broadcast-data" rows={3} spellcheck={false} value={dataText} onInput={(e) => setDataText(e.currentTarget.value)} />
          </Field>
          {trigger.error ? <ErrorNotice error={trigger.error} title="Not triggered" /> : null}
          <div class="button-row">
            <button type="submit" disabled={trigger.pending}>
              {trigger.pending ? "Starting…" : "Send to every member"}
            </button>
          </div>
        </form>
      </section>
      <section aria-labelledby="members-title">
        <h2 id="members-title">Members</h2>
        <Async load={members} label="Loading members" rows={3} isEmpty={(p) => p.data.length === 0} empty={<Empty title="No members yet" />}>
          {(page) => (
            <>
              <table class="topic-members">
                <TableHead columns={["External id", "Email", "Phone"]} />
                <tbody>
                  {[...page.data, ...older.items].map((s) => (
                    <tr key={s.id}>
                      <td>
                        <code>{s.external_id}</code>
                      </td>
                      <td>{s.email ?? "—"}</td>
                      <td>{s.phone ?? "—"}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
              <OlderButton pages={older} first={page} label="Show more members" />
            </>
          )}
        </Async>
      </section>
    </>
  );
}
