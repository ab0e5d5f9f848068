// TypeBox schemas of the sending-domain routes (SPEC "Sending domain", Endpoints "Domains",
// DESIGN.md 6): the domain with the DNS records to publish, its health, its alerts.
import { t } from "elysia";
import { PageMeta } from "./notifications";

const Nullable = <T extends import("@sinclair/typebox").TSchema>(s: T) => t.Union([s, t.Null()]);

export const CHECK_NAMES = ["spf", "dkim", "dmarc"] as const;
export type CheckName = (typeof CHECK_NAMES)[number];
export const CHECK_STATUS_VALUES = ["pass", "fail", "missing"] as const;
export type CheckStatus = (typeof CHECK_STATUS_VALUES)[number];

const dnsRecord = (description: string) =>
  t.Object(
    {
      name: t.String({ description: "Fully qualified name of the record" }),
      type: t.Literal("TXT"),
      value: t.String({ description: "Text to publish (the DNS provider may split a long value into 255-character strings)" }),
    },
    { description },
  );

export const DnsRecords = t.Object({
  txt: dnsRecord("Ownership: `_nms-verify.<domain>` = `nms-verification=<token>`"),
  spf: dnsRecord("SPF at the domain itself, including SPF_INCLUDE when the service sets one"),
  dkim: dnsRecord("The domain's DKIM public key at `<selector>._domainkey.<domain>`"),
  dmarc: dnsRecord("A DMARC policy at `_dmarc.<domain>`"),
});

export const HealthCheck = t.Object({
  status: t.Union([t.Literal("pass"), t.Literal("fail"), t.Literal("missing")], { description: "pass, fail or missing" }),
  record: Nullable(t.String({ description: "The record found (strings joined), null when none" })),
  message: t.String({ description: "Why the check has this status" }),
});

export const DomainHealth = t.Object({
  checked_at: t.String(),
  spf: HealthCheck,
  dkim: HealthCheck,
  dmarc: HealthCheck,
});

export const Domain = t.Object({
  id: t.String(),
  domain: t.String({ description: "Lower-case ASCII (punycode) domain name" }),
  status: t.Union([t.Literal("pending"), t.Literal("verified")], { description: "pending at creation; verified after a successful DNS check" }),
  dns_records: DnsRecords,
  verification_error: Nullable(t.String({ description: "What the last failed verification found" })),
  verified_at: Nullable(t.String()),
  block_on_failure: t.Boolean({ description: "Hold email from this domain as failed (domain_unhealthy) while its DKIM or SPF check fails" }),
  health: Nullable(DomainHealth),
  created_at: t.String(),
  updated_at: t.String(),
});

export const DomainAlert = t.Object({
  id: t.String(),
  domain_id: t.String(),
  domain: t.String(),
  check: t.Union([t.Literal("spf"), t.Literal("dkim"), t.Literal("dmarc")], { description: "spf, dkim or dmarc" }),
  status: t.Union([t.Literal("fail"), t.Literal("missing")], { description: "The check's status when it stopped passing" }),
  message: t.String(),
  created_at: t.String(),
  resolved_at: Nullable(t.String({ description: "When the check passed again; null while open" })),
});

export const CreateDomainBody = t.Object(
  { domain: t.String({ maxLength: 300, description: "Domain name, e.g. mail.example.com (no scheme, no trailing dot needed)" }) },
  { examples: [{ domain: "mail.example.com" }] },
);

export const UpdateDomainBody = t.Object(
  { block_on_failure: t.Boolean({ description: "true: hold email from this domain while its DKIM or SPF check fails" }) },
  { examples: [{ block_on_failure: true }] },
);

export const DomainIdParams = t.Object({ id: t.String() });

export const DomainListQuery = t.Object({
  limit: t.Optional(t.String({ description: "1-100, default 20" })),
  cursor: t.Optional(t.String()),
});

export const DomainAlertListQuery = t.Object({
  limit: t.Optional(t.String({ description: "1-100, default 20" })),
  cursor: t.Optional(t.String()),
  domain_id: t.Optional(t.String({ description: "Only this domain's alerts" })),
});

const HEALTH_EXAMPLE = {
  checked_at: "2025-08-02T06:00:00.000Z",
  spf: { status: "pass", record: "v=spf1 include:_spf.example.net ~all", message: "SPF record found" },
  dkim: { status: "pass", record: "v=DKIM1; k=rsa; p=MIIBIjANBgkqh...", message: "The published key matches" },
  dmarc: { status: "missing", record: null, message: "No DMARC record at _dmarc.mail.example.com" },
};
const DOMAIN_EXAMPLE = {
  id: "0198c3e5-1111-7222-8333-444455556666",
  domain: "mail.example.com",
  status: "verified",
  dns_records: {
    txt: { name: "_nms-verify.mail.example.com", type: "TXT", value: "nms-verification=4f9c2a7e1b3d5f60" },
    spf: { name: "mail.example.com", type: "TXT", value: "v=spf1 include:_spf.example.net ~all" },
    dkim: { name: "nms-3fa91c07._domainkey.mail.example.com", type: "TXT", value: "v=DKIM1; k=rsa; p=MIIBIjANBgkqh..." },
    dmarc: { name: "_dmarc.mail.example.com", type: "TXT", value: "v=DMARC1; p=none" },
  },
  verification_error: null,
  verified_at: "2025-08-01T12:10:00.000Z",
  block_on_failure: false,
  health: HEALTH_EXAMPLE,
  created_at: "2025-08-01T12:00:00.000Z",
  updated_at: "2025-08-01T12:10:00.000Z",
};
const ALERT_EXAMPLE = {
  id: "0198c3e6-1111-7222-8333-444455556666",
  domain_id: DOMAIN_EXAMPLE.id,
  domain: "mail.example.com",
  check: "dkim",
  status: "fail",
  message: "The published key does not match",
  created_at: "2025-08-02T06:00:00.000Z",
  resolved_at: null,
};

export const DomainResponse = t.Object({ data: Domain }, { examples: [{ data: DOMAIN_EXAMPLE }] });
export const DomainListResponse = t.Object(
  { data: t.Array(Domain), meta: PageMeta },
  { examples: [{ data: [DOMAIN_EXAMPLE], meta: { cursor: null, has_more: false } }] },
);
export const DomainHealthResponse = t.Object({ data: DomainHealth }, { examples: [{ data: HEALTH_EXAMPLE }] });
export const DomainAlertListResponse = t.Object(
  { data: t.Array(DomainAlert), meta: PageMeta },
  { examples: [{ data: [ALERT_EXAMPLE], meta: { cursor: null, has_more: false } }] },
);
