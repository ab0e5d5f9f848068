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
                <CopyBox value={rec.name} label={`Host of the ${r.label} record`} />
                <CopyButton text={rec.name} label={`Copy the host of the ${r.label} record`} />
              </td>
              <td class="dns-text">
                <CopyBox value={rec.value} label={`Value of the ${r.label} record`} />
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

/**
 * A long value (a 400-character DKIM key) on one line in a box that scrolls sideways, so the row
 * stays one line high; focusing it selects the whole value for a manual copy.
 */
function CopyBox({ value, label }: { value: string; label: string }) {
  return (
    <code
      class="copy-box"
      tabIndex={0}
      aria-label={label}
      onFocus={(e) => {
        const range = document.createRange();
        range.selectNodeContents(e.currentTarget);
        const sel = window.getSelection();
        sel?.removeAllRanges();
        sel?.addRange(range);
      }}
    >
      {value}
    </code>
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
  if (!d.verification_error) {
    return (
      <>
        <Badge value="pending">not verified yet</Badge>
        <div class="hint">press Verify once it is published</div>
      </>
    );
  }
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
