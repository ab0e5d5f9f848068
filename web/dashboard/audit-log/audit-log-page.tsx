// The audit log of the signed-in user's tenant (GET /v1/team/audit-logs, owners and admins):
// filters in the URL, newest first, older entries on request. It spans both environments.
import { useState } from "preact/hooks";
import type { AuditLogEntry, TeamAuditLogListParams } from "../../../client";
import { useDashboard } from "../app/context";
import type { PageProps } from "../app/section";
import { Field } from "../ui/field";
import { Time } from "../ui/format";
import { PageHeader } from "../ui/page-header";
import { Async, Empty, ErrorNotice } from "../ui/states";
import { useAction, useLoad } from "../ui/use-load";
import { Choice } from "../ui/choice";
import { TableHead } from "../ui/table-head";

const PAGE_SIZE = 50;
const FILTERS = ["action", "resource_type", "resource_id", "actor_type", "actor_id", "start_date", "end_date"] as const;
type Filter = (typeof FILTERS)[number];
const ACTOR_TYPES = ["user", "api_key", "system"] as const;

/** A date input's day as the API's range bound: the start of the day, or its end for end_date. */
function bound(day: string | undefined, end: boolean): string | undefined {
  if (!day) return undefined;
  return end ? `${day}T23:59:59.999999Z` : `${day}T00:00:00Z`;
}

export function AuditLogPage({ query }: PageProps) {
  const { api, go } = useDashboard();
  const filters = Object.fromEntries(FILTERS.map((f) => [f, query.get(f) ?? ""])) as Record<Filter, string>;
  const [form, setForm] = useState(filters);
  const params: TeamAuditLogListParams = {
    action: filters.action || undefined,
    resource_type: filters.resource_type || undefined,
    resource_id: filters.resource_id || undefined,
    actor_type: filters.actor_type || undefined,
    actor_id: filters.actor_id || undefined,
    start_date: bound(filters.start_date, false),
    end_date: bound(filters.end_date, true),
    limit: PAGE_SIZE,
  };
  const [older, setOlder] = useState<{ entries: AuditLogEntry[]; done: boolean }>({ entries: [], done: false });
  const load = useLoad(
    async () => {
      setOlder({ entries: [], done: false });
      return (await api.teamAuditLogs.list(params)).audit_logs;
    },
    [query.toString()],
  );
  const more = useAction(async (before: AuditLogEntry) => {
    // end_date is inclusive: the oldest entry shown comes back once and is dropped
    const page = (await api.teamAuditLogs.list({ ...params, end_date: before.inserted_at })).audit_logs.filter((e) => e.id !== before.id);
    setOlder((o) => ({ entries: [...o.entries, ...page], done: page.length < PAGE_SIZE - 1 }));
  });
  const text = (f: Filter, label: string, placeholder?: string) => (
    <Field id={`audit-${f}`} label={label}>
      <input id={`audit-${f}`} value={form[f]} placeholder={placeholder} onInput={(e) => setForm({ ...form, [f]: e.currentTarget.value })} />
    </Field>
  );

  return (
    <>
      <PageHeader title="Audit log" />
      <p class="lead">Every change to keys, team, channels and settings of this account, in both environments. Entries cannot be edited or deleted.</p>
      <form
        class="filters audit-filters"
        aria-label="Filter the audit log"
        onSubmit={(e) => {
          e.preventDefault();
          go("/audit-log", form);
        }}
      >
        {text("action", "Action", "api_key.created")}
        {text("resource_type", "Resource type", "api_key")}
        {text("resource_id", "Resource id")}
        <Field id="audit-actor_type" label="Actor type">
          <Choice id="audit-actor_type" value={(form.actor_type || undefined) as (typeof ACTOR_TYPES)[number] | undefined} choices={ACTOR_TYPES} any="Any" onChange={(v) => setForm({ ...form, actor_type: v ?? "" })} />
        </Field>
        {text("actor_id", "Actor id")}
        <Field id="audit-start_date" label="From">
          <input id="audit-start_date" type="date" value={form.start_date} onInput={(e) => setForm({ ...form, start_date: e.currentTarget.value })} />
        </Field>
        <Field id="audit-end_date" label="To">
          <input id="audit-end_date" type="date" value={form.end_date} onInput={(e) => setForm({ ...form, end_date: e.currentTarget.value })} />
        </Field>
        <div class="button-row">
          <button type="submit">Apply filters</button>
          <button
            type="button"
            class="secondary"
            onClick={() => {
              const cleared = Object.fromEntries(FILTERS.map((f) => [f, ""])) as Record<Filter, string>;
              setForm(cleared);
              go("/audit-log");
            }}
          >
            Clear
          </button>
        </div>
      </form>
      <Async
        load={load}
        label="Loading the audit log"
        rows={8}
        isEmpty={(entries) => entries.length === 0}
        empty={<Empty title={FILTERS.some((f) => filters[f]) ? "No entry matches these filters" : "No audit entries yet"} />}
      >
        {(entries) => {
          const all = [...entries, ...older.entries];
          const canGoOn = entries.length === PAGE_SIZE && !older.done;
          return (
            <>
              <AuditTable entries={all} />
              {more.error ? <ErrorNotice error={more.error} /> : null}
              {canGoOn ? (
                <button type="button" class="secondary" disabled={more.pending} onClick={() => more.run(all[all.length - 1]!)}>
                  {more.pending ? "Loading…" : "Show older entries"}
                </button>
              ) : null}
            </>
          );
        }}
      </Async>
    </>
  );
}

function AuditTable({ entries }: { entries: AuditLogEntry[] }) {
  return (
    <div class="table-scroll">
    <table class="audit">
      <TableHead columns={["When", "Action", "Resource", "Actor", "From", "Details"]} />
      <tbody>
        {entries.map((e) => (
          <tr key={e.id}>
            <td>
              <Time iso={e.inserted_at} />
            </td>
            <td>
              <code>{e.action}</code>
            </td>
            <td class="audit-resource">
              {e.resource_type}
              {e.resource_name ? <div class="audit-name">{e.resource_name}</div> : null}
              {e.resource_id ? <div class="hint mono" title="id">{e.resource_id}</div> : null}
            </td>
            <td class="audit-actor">
              {e.actor_name ? <div class="audit-name">{e.actor_name}</div> : null}
              <span class={e.actor_name ? "hint" : undefined}>{e.actor_type}</span>
              {e.actor_id && !e.actor_name ? <div class="hint mono">{e.actor_id}</div> : null}
            </td>
            <td>{e.ip_address ?? <span class="muted">—</span>}</td>
            <td class="small">
              {Object.entries(e.metadata).map(([k, v]) => (
                <div key={k} class="metadata">
                  <span class="muted">{k}</span> <code>{typeof v === "string" ? v : JSON.stringify(v)}</code>
                </div>
              ))}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
    </div>
  );
}
