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
