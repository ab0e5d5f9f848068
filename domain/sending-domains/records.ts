// The DNS side of a sending domain: the name rule (tldts), and the names and values of the records
// a tenant publishes: verification TXT, SPF, DKIM, DMARC (docs/domains.md shows them). Pure.
import { parse as parseDomain } from "tldts";
import { validationFailed } from "../../basics/errors";
import { config } from "../../config";
import { normalizeDomain } from "../../schemas/email";
import type { SendingDomainRow } from "../../store/sending-domains";

export const VERIFY_PREFIX = "_nms-verify";
const TOKEN_PREFIX = "nms-verification=";
// "_nms-verify." and "nms-12345678._domainkey." must still fit the 253-character DNS name limit
const MAX_DOMAIN_LENGTH = 253 - "nms-12345678._domainkey.".length;

/**
 * The domain a tenant typed, normalized (trimmed, lower case, punycode, one trailing dot dropped),
 * or a 422 naming what is wrong: an IP address, a bare public suffix (com, co.uk, github.io), an
 * unknown top-level domain, or not a host name at all.
 */
export function parseSendingDomain(input: string): string {
  const raw = typeof input === "string" ? input.trim() : "";
  const refuse = (message: string) => validationFailed({ domain: [message] });
  if (raw === "") throw refuse("is required");
  const bare = raw.replace(/^\[|\]$/g, "");
  if (parseDomain(bare).isIp) throw refuse("must be a domain name, not an IP address");
  const domain = normalizeDomain(raw);
  if (!domain) throw refuse("must be a domain name such as example.com (letters, digits and hyphens; no scheme, path or port)");
  if (domain.length > MAX_DOMAIN_LENGTH) throw refuse(`must be at most ${MAX_DOMAIN_LENGTH} characters, so its DKIM record name fits in DNS`);
  const p = parseDomain(domain, { allowPrivateDomains: true });
  if (p.isIp) throw refuse("must be a domain name, not an IP address");
  if (!p.isIcann && !p.isPrivate) throw refuse(`must end in a public top-level domain (.${p.publicSuffix} is not one)`);
  if (!p.domain) throw refuse(`is a public suffix (${domain}); add a domain registered under it, e.g. example.${domain}`);
  return domain;
}

/** The organizational domain (registrable part), where DMARC policy discovery falls back to. */
export function organizationalDomain(domain: string): string {
  return parseDomain(domain, { allowPrivateDomains: true }).domain ?? domain;
}

export function verificationName(domain: string): string {
  return `${VERIFY_PREFIX}.${domain}`;
}

export function verificationValue(token: string): string {
  return `${TOKEN_PREFIX}${token}`;
}

export function dkimName(row: Pick<SendingDomainRow, "dkim_selector" | "domain">): string {
  return `${row.dkim_selector}._domainkey.${row.domain}`;
}

export function dkimValue(publicKey: string): string {
  return `v=DKIM1; k=rsa; p=${publicKey}`;
}

/** The SPF record to publish: the service's include (SPF_INCLUDE) when set, else the domain's own mail hosts. */
export function spfValue(): string {
  return config.spfInclude ? `v=spf1 include:${config.spfInclude} ~all` : "v=spf1 a mx ~all";
}

/** Monitoring first: p=none reports without rejecting; docs/domains.md says when to tighten it. */
export const DMARC_VALUE = "v=DMARC1; p=none; adkim=r; aspf=r";

export function dnsRecordsOf(row: Pick<SendingDomainRow, "domain" | "verification_token" | "dkim_selector" | "dkim_public_key">) {
  const txt = (name: string, value: string) => ({ name, type: "TXT" as const, value });
  return {
    txt: txt(verificationName(row.domain), verificationValue(row.verification_token)),
    spf: txt(row.domain, spfValue()),
    dkim: txt(dkimName(row), dkimValue(row.dkim_public_key)),
    dmarc: txt(`_dmarc.${row.domain}`, DMARC_VALUE),
  };
}

