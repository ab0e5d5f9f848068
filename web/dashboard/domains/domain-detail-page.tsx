// One sending domain at its own URL: the DNS records to publish (copy buttons), Verify with what each
// record showed, the health check on demand, holding email while it fails, its alerts, delete.
import { useState } from "preact/hooks";
import type { SendingDomain } from "../../../client";
import { useDashboard } from "../app/context";
import type { PageProps } from "../app/section";
import { ConfirmButton } from "../ui/confirm";
import { Badge, Time } from "../ui/format";
import { Link } from "../ui/link";
import { PageHeader } from "../ui/page-header";
import { Async, ErrorNotice } from "../ui/states";
import { useAction, useLoad } from "../ui/use-load";
import { DnsRecords } from "./dns-records";
import { DomainAlerts } from "./domain-alerts";

export function DomainDetailPage({ params }: PageProps) {
  const { api } = useDashboard();
  const load = useLoad(() => api.domains.retrieve(params.id!), [params.id]);
  return (
    <>
      <PageHeader title="Sending domain">
        <Link to="/domains">All domains</Link>
      </PageHeader>
      <Async load={load} label="Loading the domain" rows={6}>
        {(d) => <DomainView key={d.id} domain={d} onChange={load.setData} />}
      </Async>
    </>
  );
}

function DomainView({ domain: d, onChange }: { domain: SendingDomain; onChange(d: SendingDomain): void }) {
  const { api, go } = useDashboard();
  // what the last button did, and whether that is good news (a failed verification is not green)
  const [message, setMessage] = useState<{ text: string; ok: boolean } | null>(null);
  // a check may raise or resolve alerts: their list loads again after one
  const [checks, setChecks] = useState(0);
  const verify = useAction(async () => {
    setMessage(null);
    const next = await api.domains.verify(d.id);
    onChange(next);
    setChecks((n) => n + 1);
    setMessage(
      next.status === "verified"
        ? { text: `${next.domain} is verified: email from it is DKIM-signed.`, ok: true }
        : { text: "Not verified yet: the ownership record was not found (see below).", ok: false },
    );
  });
  const check = useAction(async () => {
    setMessage(null);
    onChange({ ...d, health: await api.domains.check(d.id) });
    setChecks((n) => n + 1);
    setMessage({ text: "Checked SPF, DKIM and DMARC now: the results are below.", ok: true });
  });
  const block = useAction(async (on: boolean) => onChange(await api.domains.update(d.id, { block_on_failure: on })));
  const remove = useAction(async () => {
    await api.domains.del(d.id);
    go("/domains", {}, { notice: `${d.domain} removed.` });
  });
  const busy = verify.pending || check.pending;
  return (
    <div class="detail">
      <section aria-labelledby="summary-title">
        <h2 id="summary-title">{d.domain}</h2>
        <dl class="facts">
          <dt>Status</dt>
          <dd>
            <Badge value={d.status} />
          </dd>
          <dt>Added</dt>
          <dd>
            <Time iso={d.created_at} />
          </dd>
          <dt>Verified</dt>
          <dd>
            <Time iso={d.verified_at} fallback="not yet" />
          </dd>
          <dt>Last health check</dt>
          <dd>
            <Time iso={d.health?.checked_at} fallback="never" />
          </dd>
        </dl>
        <label class="checkbox">
          <input type="checkbox" checked={d.block_on_failure} disabled={block.pending} onChange={(e) => block.run(e.currentTarget.checked)} /> Hold email from this domain (failed, domain_unhealthy) while its DKIM or SPF
          check fails
        </label>
        {block.error ? <ErrorNotice error={block.error} title="Not changed" /> : null}
      </section>
      <section aria-labelledby="records-title">
        <h2 id="records-title">DNS records</h2>
        <p class="hint">Publish each as a TXT record at your DNS provider (many want the host relative to your zone, e.g. _dmarc). DNS changes can take a while to be seen.</p>
        <div class="button-row">
          <button type="button" disabled={busy} onClick={() => verify.run()}>
            {verify.pending ? "Verifying…" : d.status === "verified" ? "Verify again" : "Verify"}
          </button>
          <button type="button" class="secondary" disabled={busy} onClick={() => check.run()}>
            {check.pending ? "Checking…" : "Check SPF, DKIM and DMARC now"}
          </button>
        </div>
        <p class={message && !message.ok ? "form-status bad" : "form-status"} role="status">
          {message?.text}
        </p>
        {verify.error ? <ErrorNotice error={verify.error} title="Not verified" /> : null}
        {check.error ? <ErrorNotice error={check.error} title="Not checked" /> : null}
        <DnsRecords domain={d} />
      </section>
      <DomainAlerts domainId={d.id} round={checks} />
      <section aria-labelledby="remove-title" class="danger-zone">
        <h2 id="remove-title">Remove</h2>
        {remove.error ? <ErrorNotice error={remove.error} title="Not removed" /> : null}
        <ConfirmButton label="Remove domain" title={`Remove ${d.domain}?`} confirmLabel="Remove domain" onConfirm={() => remove.run()} disabled={remove.pending}>
          <p>Email from it is no longer DKIM-signed. Its key, health history and alerts are deleted; adding it again gives a new key to publish.</p>
        </ConfirmButton>
      </section>
    </div>
  );
}
