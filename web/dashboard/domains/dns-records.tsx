// The four TXT records a sending domain needs (ownership, SPF, DKIM, DMARC), each host and value with
// a copy button, beside what the last verification or health check found for that record.
import type { SendingDomain, SendingDomainDnsRecords } from "../../../client";
import { CopyButton } from "../ui/copy";
import { Badge, Time } from "../ui/format";
import { TableHead } from "../ui/table-head";

export const CHECKS = ["spf", "dkim", "dmarc"] as const;

const RECORDS: { key: keyof SendingDomainDnsRecords; label: string; why: string }[] = [
  { key: "txt", label: "Ownership", why: "proves you control the domain" },
  { key: "spf", label: "SPF", why: "which servers may send for it; one SPF record only: add the include to an existing one" },
  { key: "dkim", label: "DKIM", why: "the public half of the key email is signed with" },
  { key: "dmarc", label: "DMARC", why: "what receivers do with email failing SPF and DKIM" },
];

export function DnsRecords({ domain: d }: { domain: SendingDomain }) {
  return (
    <table class="dns-records">
      <caption class="visually-hidden">DNS records to publish, with what was found</caption>
      <TableHead columns={["Record", "Type", "Host", "Value", "Found"]} />
      <tbody>
        {RECORDS.map((r) => {
          const rec = d.dns_records[r.key];
          return (
            <tr key={r.key} data-record={r.key}>
              <td>
                {r.label}
                <div class="hint">{r.why}</div>
              </td>
              <td>
                <code>{rec.type}</code>
              </td>
              <td class="dns-host">
                <code class="long-value">{rec.name}</code>
                <CopyButton text={rec.name} label={`Copy the host of the ${r.label} record`} />
              </td>
              <td class="dns-text">
                <code class="long-value">{rec.value}</code>
                <CopyButton text={rec.value} label={`Copy the value of the ${r.label} record`} />
              </td>
              <td class="dns-result" aria-live="polite">
                {r.key === "txt" ? <OwnershipResult domain={d} /> : <CheckResult domain={d} check={r.key} />}
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

function OwnershipResult({ domain: d }: { domain: SendingDomain }) {
  if (d.status === "verified") {
    return (
      <>
        <Badge value="verified" /> <Time iso={d.verified_at} />
      </>
    );
  }
  if (!d.verification_error) return <span class="muted">not verified yet: press Verify once it is published</span>;
  return (
    <>
      <Badge value="fail">not found</Badge>
      <div class="field-error">{d.verification_error}</div>
    </>
  );
}

function CheckResult({ domain: d, check }: { domain: SendingDomain; check: (typeof CHECKS)[number] }) {
  const c = d.health?.[check];
  if (!c) return <span class="muted">not checked yet (checked once verified)</span>;
  return (
    <>
      <Badge value={c.status} />
      <div class={c.status === "pass" ? "hint" : "field-error"}>{c.message}</div>
    </>
  );
}
