// TypeBox schemas of the admin blocklist routes (/v1/admin/blocked-domains). The admin token is
// checked before them (the admin access rule runs before validation), so an anonymous caller always gets 401.
import { t } from "elysia";

export const BlockedDomain = t.Object({
  domain: t.String(),
  source: t.Union([t.Literal("seed"), t.Literal("manual")], {
    description: "seed: from the disposable-email-domains package; manual: blocked by an admin",
  }),
  created_at: t.String(),
});

const MANUAL_EXAMPLE = { domain: "spam-relay.example", source: "manual", created_at: "2025-08-01T12:00:00.000Z" };

export const BlockedDomainList = t.Object(
  {
    data: t.Array(BlockedDomain),
    meta: t.Object({ cursor: t.Union([t.String(), t.Null()]), has_more: t.Boolean() }),
  },
  {
    examples: [
      {
        data: [MANUAL_EXAMPLE, { domain: "0-mail.com", source: "seed", created_at: "2025-07-01T09:00:00.000Z" }],
        meta: { cursor: "WzEsIjIwMjUtMDctMDFUMDk6MDA6MDAuMDAwMDAwWiIsIjAtbWFpbC5jb20iXQ", has_more: true },
      },
    ],
  },
);

export const BlockedCheck = t.Object(
  { data: t.Object({ email: t.String(), blocked: t.Boolean() }) },
  { examples: [{ data: { email: "someone@mailinator.com", blocked: true } }] },
);

export const BlockDomainBody = t.Object(
  { domain: t.String({ description: "A domain such as example.com; its subdomains are blocked too" }) },
  { examples: [{ domain: "spam-relay.example" }] },
);
export const BlockedDomainResponse = t.Object({ data: BlockedDomain }, { examples: [{ data: MANUAL_EXAMPLE }] });
export const BlockedDomainListQuery = t.Object({
  search: t.Optional(t.String({ description: "Substring of the domain" })),
  limit: t.Optional(t.String({ description: "1-500, default 50" })),
  cursor: t.Optional(t.String({ description: "meta.cursor of the previous page" })),
});
export const BlockedCheckQuery = t.Object({ email: t.Optional(t.String({ description: "The address to check" })) });
export const BlockedDomainParams = t.Object({ domain: t.String() });
