// TypeBox schemas of both API key shapes: the reference shape (/v1/api-keys: key_type, label,
// environment, prefix, raw_key) and the guide shape (/api-keys: name, key, permissions, allowed_ips).
import { t } from "elysia";

const Nullable = <T extends import("@sinclair/typebox").TSchema>(s: T) => t.Union([s, t.Null()]);

export const KeyIdParams = t.Object({ id: t.String() });

// Enums are checked by the route so the 422 names the field with a readable message.
export const CreateKeyBody = t.Object({
  key_type: t.Optional(t.String({ description: "`secret` (default), or `publishable` (alias `public`)" })),
  label: t.Optional(Nullable(t.String({ maxLength: 255 }))),
  environment: t.Optional(t.String({ description: "`production` or `sandbox`; default: the caller's" })),
  permissions: t.Optional(t.Array(t.String())),
  allowed_ips: t.Optional(Nullable(t.Array(t.String()))),
});

export const RotateKeyBody = t.Optional(
  t.Object({
    grace_period_hours: t.Optional(t.Integer({ minimum: 0, maximum: 720, description: "default 24" })),
  }),
);

export const RevokeQuery = t.Object({ reason: t.Optional(t.String({ maxLength: 255 })) });

export const ReferenceKey = t.Object({
  id: t.String(),
  key_type: t.String(),
  label: Nullable(t.String()),
  environment: t.String(),
  prefix: t.String(),
  permissions: t.Array(t.String()),
  allowed_ips: Nullable(t.Array(t.String())),
  created_at: t.String(),
  last_used_at: Nullable(t.String()),
  expires_at: Nullable(t.String()),
});

export const ReferenceKeyWithRaw = t.Composite([ReferenceKey, t.Object({ raw_key: t.String() })]);

export const RotatedKey = t.Composite([
  ReferenceKeyWithRaw,
  t.Object({ rotated_from: t.Object({ id: t.String(), prefix: t.String(), expires_at: t.String() }) }),
]);

export const CreateGuideKeyBody = t.Object({
  name: t.String({ maxLength: 255 }),
  permissions: t.Optional(t.Array(t.String())),
  allowed_ips: t.Optional(Nullable(t.Array(t.String()))),
});

export const GuideListQuery = t.Object({
  page: t.Optional(t.String()),
  per_page: t.Optional(t.String()),
});

export const GuideKey = t.Object({
  id: t.String(),
  name: Nullable(t.String()),
  permissions: t.Array(t.String()),
  allowed_ips: Nullable(t.Array(t.String())),
  created_at: t.String(),
  last_used_at: Nullable(t.String()),
});

export const GuideKeyWithRaw = t.Composite([GuideKey, t.Object({ key: t.String() })]);

export const GuideKeyListMeta = t.Object({ total: t.Integer(), page: t.Integer(), per_page: t.Integer() });
