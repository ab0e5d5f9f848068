// TypeBox schemas of /v1/inbox-embed: settings (developer_mode, allowed_origins_count, inbox_secret)
// and allowed origins (id, origin, created_at).
import { t } from "elysia";

export const EmbedSettings = t.Object({
  developer_mode: t.Boolean(),
  allowed_origins_count: t.Integer(),
  inbox_secret: t.String({ description: "This environment's HMAC key of X-Subscriber-Hash (DESIGN.md 5); secret keys only" }),
});

export const UpdateEmbedSettingsBody = t.Object({ developer_mode: t.Boolean() });

export const AllowedOrigin = t.Object({ id: t.String(), origin: t.String(), created_at: t.String() });

export const CreateAllowedOriginBody = t.Object({ origin: t.String() });

export const OriginIdParams = t.Object({ id: t.String() });
