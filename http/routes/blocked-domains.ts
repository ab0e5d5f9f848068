// Admin blocklist of email domains (admin token): list with search and paging, check an address,
// block and unblock. Lookups elsewhere go through store/blocked-domains.ts and its cache.
import { Elysia } from "elysia";
import {
  blockDomain,
  decodeBlockedCursor,
  encodeBlockedCursor,
  isBlockedEmail,
  listBlockedDomains,
  unblockDomain,
  type BlockedDomainRow,
} from "../../store/blocked-domains";
import { emailDomain, normalizeDomain } from "../../schemas/email";
import { iso } from "../../store/time";
import { conflict, notFound, validationFailed } from "../../basics/errors";
import { parseLimit } from "../pagination";
import { accessPlugin } from "../plugins/access";
import {
  BlockDomainBody,
  BlockedCheck,
  BlockedCheckQuery,
  BlockedDomainList,
  BlockedDomainListQuery,
  BlockedDomainParams,
  BlockedDomainResponse,
} from "../../schemas/blocked-domains";
import { BODY_ERRORS, errors, NoContent } from "../route-docs";

const TAG = { tags: ["admin"] };

const DEFAULT_LIMIT = 50;
const MAX_LIMIT = 500;

function view(r: BlockedDomainRow) {
  return { domain: r.domain, source: r.source, created_at: iso(r.created_at)! };
}

function parseCursor(raw: string | undefined) {
  if (raw === undefined || raw === "") return null;
  const c = decodeBlockedCursor(raw);
  if (!c) throw validationFailed({ cursor: ["is not a valid cursor"] });
  return c;
}

function domainField(raw: unknown, field = "domain"): string {
  const d = typeof raw === "string" ? normalizeDomain(raw) : null;
  if (!d) throw validationFailed({ [field]: ["must be a domain name such as example.com"] });
  return d;
}

export const blockedDomainRoutes = new Elysia({ name: "routes.blocked-domains" })
  .use(accessPlugin)
  .get(
    "/v1/admin/blocked-domains",
    async ({ query }) => {
      const limit = parseLimit(query.limit, DEFAULT_LIMIT, MAX_LIMIT);
      const after = parseCursor(query.cursor);
      const search = typeof query.search === "string" ? query.search.slice(0, 253) : undefined;
      const rows = await listBlockedDomains({ search, limit, after });
      const hasMore = rows.length > limit;
      const page = hasMore ? rows.slice(0, limit) : rows;
      const last = page[page.length - 1];
      const cursor = hasMore && last ? encodeBlockedCursor({ seed: last.source === "seed", at: last.at, domain: last.domain }) : null;
      return { data: page.map(view), meta: { cursor, has_more: hasMore } };
    },
    {
      access: "admin",
      query: BlockedDomainListQuery,
      response: { 200: BlockedDomainList, ...errors(401, 422) },
      detail: {
        ...TAG,
        summary: "List blocked email domains: manual ones first (newest first), then the seeded ones",
        description: "Cursor-paged (limit 1-500, default 50; meta.cursor and has_more). search: a substring of the domain.",
      },
    },
  )
  .get(
    "/v1/admin/blocked-domains/check",
    async ({ query }) => {
      const email = query.email;
      if (typeof email !== "string" || !emailDomain(email.trim())) {
        throw validationFailed({ email: ["must be an email address"] });
      }
      return { data: { email: email.trim(), blocked: await isBlockedEmail(email.trim()) } };
    },
    {
      access: "admin",
      query: BlockedCheckQuery,
      response: { 200: BlockedCheck, ...errors(401, 422) },
      detail: { ...TAG, summary: "Is this address's domain (or a parent domain) blocked?", description: "Answers whether an address at that domain would be refused at sign-up." },
    },
  )
  .post(
    "/v1/admin/blocked-domains",
    async ({ body, set }) => {
      const domain = domainField(body.domain);
      const { row, created } = await blockDomain(domain);
      if (!created) throw conflict("domain_already_blocked", `${domain} is already blocked`);
      set.status = 201;
      return { data: view(row) };
    },
    {
      access: "admin",
      body: BlockDomainBody,
      response: { 201: BlockedDomainResponse, ...errors(401, BODY_ERRORS, 409) },
      detail: { ...TAG, summary: "Block a domain (and its subdomains)", description: "Sign-ups and team invitations with an address at that domain, or any subdomain of it, are refused with 422 email_domain_blocked." },
    },
  )
  .delete(
    "/v1/admin/blocked-domains/:domain",
    async ({ params, set }) => {
      const domain = domainField(params.domain);
      if (!(await unblockDomain(domain))) throw notFound("blocked_domain_not_found", `${domain} is not blocked`);
      set.status = 204;
    },
    { access: "admin", params: BlockedDomainParams, response: { 204: NoContent, ...errors(401, 404, 422) }, detail: { ...TAG, summary: "Unblock a domain", description: "Addresses at that domain are accepted again unless a parent domain is blocked." } },
  );
