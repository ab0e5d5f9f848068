// Sending domains of the environment (/v1/domains): each with its status and latest health, older
// pages on request; adding one leads to its page with the DNS records to publish.
import { useState } from "preact/hooks";
import type { SendingDomain } from "../../../client";
import { useDashboard } from "../app/context";
import type { PageProps } from "../app/section";
import { describedBy, Field, fieldErrors } from "../ui/field";
import { Badge, Time } from "../ui/format";
import { Link } from "../ui/link";
import { OlderButton, useOlderPages } from "../ui/older-pages";
import { PageHeader } from "../ui/page-header";
import { Async, Empty, ErrorNotice } from "../ui/states";
import { TableHead } from "../ui/table-head";
import { useAction, useLoad } from "../ui/use-load";
import { CHECKS } from "./dns-records";

const PAGE_SIZE = 25;

export function DomainListPage(_: PageProps) {
  const { api, environment } = useDashboard();
  const older = useOlderPages<SendingDomain>((cursor) => api.domains.list({ limit: PAGE_SIZE, cursor }), []);
  const load = useLoad(async () => await api.domains.list({ limit: PAGE_SIZE }), []);
  return (
    <>
      <PageHeader title="Sending domains" />
      <p class="lead">
        Domains you send {environment} email from. Once verified, email from them is DKIM-signed, and their SPF, DKIM and DMARC records are checked every day.
      </p>
      <AddDomain />
      <Async load={load} label="Loading domains" rows={3} isEmpty={(page) => page.data.length === 0} empty={<Empty title="No sending domains yet">Add the domain your From addresses use, then publish its DNS records.</Empty>}>
        {(page) => (
          <>
            <table class="domains">
              <TableHead columns={["Domain", "Status", "SPF", "DKIM", "DMARC", "Added"]} />
              <tbody>
                {[...page.data, ...older.items].map((d) => (
                  <tr key={d.id} data-domain={d.domain}>
                    <td>
                      <Link to={`/domains/${d.id}`}>{d.domain}</Link>
                    </td>
                    <td>
                      <Badge value={d.status} />
                    </td>
                    {CHECKS.map((c) => (
                      <td key={c}>{d.health ? <Badge value={d.health[c].status} /> : <span class="muted">not checked</span>}</td>
                    ))}
                    <td>
                      <Time iso={d.created_at} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
            <OlderButton pages={older} first={page} label="Show older domains" />
          </>
        )}
      </Async>
    </>
  );
}

function AddDomain() {
  const { api, go } = useDashboard();
  const [name, setName] = useState("");
  const add = useAction(async () => {
    const d = await api.domains.create({ domain: name.trim() });
    go(`/domains/${d.id}`, {}, { notice: `${d.domain} added: publish its four DNS records, then press Verify.` });
  });
  const errors = fieldErrors(add.error?.details, "domain");
  return (
    <>
      <form
        class="filters"
        aria-label="Add a sending domain"
        onSubmit={(e) => {
          e.preventDefault();
          add.run();
        }}
      >
        <Field id="new-domain" label="Domain" errors={errors} hint="e.g. mail.example.com">
          <input id="new-domain" value={name} required spellcheck={false} onInput={(e) => setName(e.currentTarget.value)} aria-invalid={errors ? "true" : undefined} aria-describedby={describedBy("new-domain", true, errors)} />
        </Field>
        <button type="submit" disabled={add.pending || !name.trim()}>
          {add.pending ? "Adding…" : "Add domain"}
        </button>
      </form>
      {add.error ? <ErrorNotice error={add.error} title="Not added" /> : null}
    </>
  );
}
