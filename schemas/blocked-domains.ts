// TypeBox schemas of the admin blocklist routes (/v1/admin/blocked-domains). Inputs are
// checked in the handlers, after the admin token, so an anonymous caller always gets 401.
import { t } from "elysia";

export const BlockedDomain = t.Object({
  domain: t.String(),
  source: t.String({ description: "package (seeded from disposable-email-domains) or admin" }),
  created_at: t.String(),
});

export const BlockedDomainList = t.Object({
  data: t.Array(BlockedDomain),
  meta: t.Object({ total: t.Integer(), limit: t.Integer(), offset: t.Integer() }),
});

export const BlockedCheck = t.Object({ data: t.Object({ email: t.String(), blocked: t.Boolean() }) });

export const BlockDomainBody = t.Object({ domain: t.String({ description: "A domain such as example.com; its subdomains are blocked too" }) });
export const BlockedDomainResponse = t.Object({ data: BlockedDomain });
export const BlockedDomainListQuery = t.Object({
  search: t.Optional(t.String({ description: "Substring of the domain" })),
  limit: t.Optional(t.String({ description: "1-500, default 50" })),
  offset: t.Optional(t.String({ description: ">= 0, default 0" })),
});
