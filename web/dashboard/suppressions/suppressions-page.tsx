// The environment's suppression list (/v1/suppressions): addresses no longer sent to after a hard
// bounce, a complaint or a gone push recipient; filtered by reason or one address; lifting one.
import { useState } from "preact/hooks";
import type { Suppression } from "../../../client";
import { useDashboard } from "../app/context";
import type { PageProps } from "../app/section";
import { Choice } from "../ui/choice";
import { ConfirmButton } from "../ui/confirm";
import { Time } from "../ui/format";
import { Link } from "../ui/link";
import { OlderButton, useOlderPages } from "../ui/older-pages";
import { PageHeader } from "../ui/page-header";
import { Async, Empty, ErrorNotice } from "../ui/states";
import { TableHead } from "../ui/table-head";
import { useAction, useLoad } from "../ui/use-load";
import { SUPPRESSION_REASON_LABELS, SUPPRESSION_REASONS } from "../vocabulary";

const PAGE_SIZE = 25;

export function SuppressionsPage({ query }: PageProps) {
  const { api, go } = useDashboard();
  const reason = SUPPRESSION_REASONS.find((r) => r === query.get("reason"));
  const address = query.get("address") || undefined;
  const [text, setText] = useState(address ?? "");
  const params = { reason, address, limit: PAGE_SIZE };
  const older = useOlderPages<Suppression>((cursor) => api.suppressions.list({ ...params, cursor }), [reason, address]);
  const load = useLoad(async () => await api.suppressions.list(params), [reason, address]);
  const lift = useAction(async (s: Suppression) => {
    await api.suppressions.del(s.address);
    load.reload();
  });
  const filtered = reason || address;
  return (
    <>
      <PageHeader title="Suppressions" />
      <p class="lead">Addresses this environment no longer sends to: a notification to one of them ends as suppressed. Lift one when the address works again.</p>
      <form
        class="filters"
        role="search"
        onSubmit={(e) => {
          e.preventDefault();
          go("/suppressions", { reason, address: text.trim() });
        }}
      >
        <label for="suppression-reason">Reason</label>
        <Choice id="suppression-reason" value={reason} choices={SUPPRESSION_REASONS} labels={SUPPRESSION_REASON_LABELS} any="Any reason" onChange={(v) => go("/suppressions", { reason: v, address })} />
        <label for="suppression-address">Address</label>
        <input id="suppression-address" type="search" value={text} placeholder="exact address" onInput={(e) => setText(e.currentTarget.value)} />
        <button type="submit">Find</button>
      </form>
      {lift.error ? <ErrorNotice error={lift.error} title="Not lifted" /> : null}
      <Async
        load={load}
        label="Loading suppressions"
        rows={4}
        isEmpty={(page) => page.data.length === 0}
        empty={<Empty title={filtered ? "No suppression matches these filters" : "No suppressed addresses"}>{filtered ? <Link to="/suppressions">Clear the filters</Link> : "Hard bounces, spam complaints and gone push recipients are listed here."}</Empty>}
      >
        {(page) => (
          <>
            <table class="suppressions">
              <TableHead columns={["Address", "Channel", "Reason", "Since", "Notification", { label: "Actions", hidden: true }]} />
              <tbody>
                {[...page.data, ...older.items].map((s) => (
                  <tr key={`${s.channel}:${s.address}`}>
                    <td>
                      <code class="long-value">{s.address}</code>
                    </td>
                    <td>{s.channel}</td>
                    <td>{SUPPRESSION_REASON_LABELS[s.reason]}</td>
                    <td>
                      <Time iso={s.created_at} />
                    </td>
                    <td>{s.notification_id ? <Link to={`/notifications/${s.notification_id}`}>The notification</Link> : <span class="muted">—</span>}</td>
                    <td class="actions">
                      <ConfirmButton tone="secondary" label="Lift" title={`Send to ${s.address} again?`} confirmLabel="Lift suppression" onConfirm={() => lift.run(s)} disabled={lift.pending}>
                        <p>Notifications to it are sent again. If it still bounces or complains, it is listed again.</p>
                      </ConfirmButton>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
            <OlderButton pages={older} first={page} label="Show older suppressions" />
          </>
        )}
      </Async>
    </>
  );
}
