// Admin blocklist of email domains (admin token): list with search and paging, check an address,
// block and unblock. Lookups elsewhere go through store/blocked-domains.ts and its cache.
import { Elysia } from "elysia";
import {
  blockDomain,
  isBlockedEmail,
  listBlockedDomains,
  unblockDomain,
  type BlockedDomainRow,
} from "../../store/blocked-domains";
import { emailDomain, normalizeDomain } from "../../schemas/email";
import { iso } from "../../store/time";
import { conflict, notFound, validationFailed } from "../../basics/errors";
import { parseLimit } from "../pagination";
import { adminPlugin } from "../plugins/auth";
import { BlockedCheck, BlockedDomainList } from "../../schemas/blocked-domains";

const DEFAULT_LIMIT = 50;
const MAX_LIMIT = 500;

function view(r: BlockedDomainRow) {
  return { domain: r.domain, source: r.source, created_at: iso(r.created_at)! };
}

function parseOffset(raw: unknown): number {
  if (raw === undefined || raw === null || raw === "") return 0;
  const n = Number(raw);
  // Safe integers only: 1e99 is an "integer" to JS but not a bigint PostgreSQL can parse (500).
  if (!Number.isSafeInteger(n) || n < 0) throw validationFailed({ offset: ["must be a non-negative integer"] });
  return n;
}

function domainField(raw: unknown, field = "domain"): string {
  const d = typeof raw === "string" ? normalizeDomain(raw) : null;
  if (!d) throw validationFailed({ [field]: ["must be a domain name such as example.com"] });
  return d;
}

export const blockedDomainRoutes = new Elysia({ name: "routes.blocked-domains" })
  .use(adminPlugin)
  .get(
    "/v1/admin/blocked-domains",
    async ({ query }) => {
      const q = query as Record<string, string | undefined>;
      const limit = parseLimit(q.limit, DEFAULT_LIMIT, MAX_LIMIT);
      const offset = parseOffset(q.offset);
      const search = typeof q.search === "string" ? q.search.slice(0, 253) : undefined;
      const { rows, total } = await listBlockedDomains({ search, limit, offset });
      return { data: rows.map(view), meta: { total, limit, offset } };
    },
    {
      response: { 200: BlockedDomainList },
      detail: { summary: "List blocked email domains (?search, limit, offset)", tags: ["admin"] },
    },
  )
  .get(
    "/v1/admin/blocked-domains/check",
    async ({ query }) => {
      const email = (query as Record<string, string | undefined>).email;
      if (typeof email !== "string" || !emailDomain(email.trim())) {
        throw validationFailed({ email: ["must be an email address"] });
      }
      return { data: { email: email.trim(), blocked: await isBlockedEmail(email.trim()) } };
    },
    {
      response: { 200: BlockedCheck },
      detail: { summary: "Is this address's domain (or a parent domain) blocked?", tags: ["admin"] },
    },
  )
  .post(
    "/v1/admin/blocked-domains",
    async ({ body, set }) => {
      const domain = domainField((body as any)?.domain);
      const { row, created } = await blockDomain(domain);
      if (!created) throw conflict("domain_already_blocked", `${domain} is already blocked`);
      set.status = 201;
      return { data: view(row) };
    },
    { detail: { summary: "Block a domain (and its subdomains); body {domain}", tags: ["admin"] } },
  )
  .delete(
    "/v1/admin/blocked-domains/:domain",
    async ({ params, set }) => {
      const domain = domainField(params.domain);
      if (!(await unblockDomain(domain))) throw notFound("blocked_domain_not_found", `${domain} is not blocked`);
      set.status = 204;
      return null;
    },
    { detail: { summary: "Unblock a domain", tags: ["admin"] } },
  );
