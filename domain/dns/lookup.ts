// TXT lookups of the sending-domain checks through node:dns with the resolvers of DNS_SERVERS (the
// system's when empty), each query bounded by DNS_TIMEOUT_MS; answers are whole records, never chunks.
import { Resolver } from "node:dns/promises";
import { config } from "../../config";

/** What a TXT query found: the records (empty: the name or the type does not exist), or why the domain's DNS did not answer. */
export interface TxtAnswer {
  records: string[];
  /** set when the domain's name servers failed (SERVFAIL, REFUSED ...): a fault of the domain, not of our resolver */
  error?: string;
}

/** Our resolver could not be asked (timeout, connection refused): nothing can be said about the domain. */
export class DnsUnavailableError extends Error {
  constructor(
    readonly code: string,
    readonly lookedUp: string,
  ) {
    super(`DNS lookup of ${lookedUp} failed (${code}); check DNS_SERVERS`);
    this.name = "DnsUnavailableError";
  }
}

const NOT_FOUND = new Set(["ENOTFOUND", "ENODATA", "ENONAME"]);
const DOMAIN_FAULT = new Set(["ESERVFAIL", "EREFUSED", "EFORMERR", "EBADRESP", "EBADNAME", "EBADQUERY"]);

/** The longest a TXT character-string can be (RFC 1035 3.3.14); publishers split longer records there. */
const MAX_CHUNK = 255;

/**
 * Whole TXT records from node:dns's answer (records of character-strings). Bun 1.4 returns every
 * character-string as a record of its own (oven-sh/bun#21370), so a 2048-bit DKIM key arrives as
 * two "records". When no record has more than one string the boundaries may have been lost: a
 * string that follows a full 255-byte string continues it (DNS providers split long values
 * there). `joinAll` (one record is expected, e.g. at a DKIM selector) joins every string instead.
 */
export function wholeRecords(answer: string[][], opts: { joinAll?: boolean } = {}): string[] {
  if (answer.some((r) => r.length > 1)) return answer.map((r) => r.join(""));
  const strings = answer.map((r) => r[0] ?? "");
  if (opts.joinAll) return strings.length ? [strings.join("")] : [];
  const out: string[] = [];
  let previousFull = false;
  for (const s of strings) {
    if (previousFull && out.length) out[out.length - 1] += s;
    else out.push(s);
    previousFull = Buffer.byteLength(s, "utf8") === MAX_CHUNK;
  }
  return out;
}

const resolvers = new Map<string, Resolver>();

/** The resolver of these servers (the system's when empty), one per list; webhook delivery resolves receivers with it too. */
export function resolverFor(servers: string[]): Resolver {
  const key = servers.join(",");
  let r = resolvers.get(key);
  if (!r) {
    r = new Resolver({ timeout: config.dnsTimeoutMs, tries: 2 });
    if (servers.length) r.setServers(servers);
    resolvers.set(key, r);
  }
  return r;
}

/** TXT records at `name`; throws DnsUnavailableError when our resolver gave no answer at all. */
export async function lookupTxt(name: string, opts: { joinAll?: boolean } = {}): Promise<TxtAnswer> {
  try {
    const answer = await resolverFor(config.dnsServers).resolveTxt(name);
    return { records: wholeRecords(answer, opts) };
  } catch (err) {
    const code = String((err as { code?: string })?.code ?? "EUNKNOWN");
    if (NOT_FOUND.has(code)) return { records: [] };
    if (DOMAIN_FAULT.has(code)) return { records: [], error: `the name servers of ${name} answered ${code.slice(1)}` };
    throw new DnsUnavailableError(code, name);
  }
}
