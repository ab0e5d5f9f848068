// TypeBox schemas of /v1/inbox-embed: settings (developer_mode, allowed_origins_count, inbox_secret)
// and allowed origins (id, origin, created_at).
import { t } from "elysia";

export const EmbedSettings = t.Object({
  developer_mode: t.Boolean(),
  allowed_origins_count: t.Integer(),
  inbox_secret: t.String({ description: "This environment's HMAC key of X-Subscriber-Hash (DESIGN.md 5); secret keys only" }),
});

export const EmbedSettingsResponse = t.Object(
  { data: EmbedSettings },
  { examples: [{ data: { developer_mode: false, allowed_origins_count: 2, inbox_secret: "5f3c9a1e7b2d4f6a8c0e1b3d5f7a9c2e4b6d8f0a1c3e5b7d9f1a3c5e7b9d1f3a" } }] },
);

export const UpdateEmbedSettingsBody = t.Object({ developer_mode: t.Boolean() }, { examples: [{ developer_mode: true }] });

export const AllowedOrigin = t.Object({ id: t.String(), origin: t.String(), created_at: t.String() });

const ORIGIN_EXAMPLE = { id: "0198c3e0-1111-7222-8333-444455556666", origin: "https://shop.example.com", created_at: "2025-08-01T12:00:00.000Z" };
export const AllowedOriginResponse = t.Object({ data: AllowedOrigin }, { examples: [{ data: ORIGIN_EXAMPLE }] });
export const AllowedOriginList = t.Object({ data: t.Array(AllowedOrigin) }, { examples: [{ data: [ORIGIN_EXAMPLE] }] });

export const CreateAllowedOriginBody = t.Object(
  { origin: t.String({ description: "scheme://host[:port]: no path, no trailing slash, no wildcard" }) },
  { examples: [{ origin: "https://shop.example.com" }] },
);

export const OriginIdParams = t.Object({ id: t.String() });
