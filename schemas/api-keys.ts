// TypeBox schemas of both API key shapes: the reference shape (/v1/api-keys: key_type, label,
// environment, prefix, raw_key) and the guide shape (/api-keys: name, key, permissions, allowed_ips).
import { t } from "elysia";

const Nullable = <T extends import("@sinclair/typebox").TSchema>(s: T) => t.Union([s, t.Null()]);

export const KeyIdParams = t.Object({ id: t.String() });

// Enums are checked by the route so the 422 names the field with a readable message.
export const CreateKeyBody = t.Object(
  {
    key_type: t.Optional(t.String({ description: "`secret` (default), or `publishable` (alias `public`)" })),
    label: t.Optional(Nullable(t.String({ maxLength: 255 }))),
    environment: t.Optional(t.String({ description: "`production` or `sandbox`; default: the caller's" })),
    permissions: t.Optional(t.Array(t.String(), { description: "read, write or both (default both)" })),
    allowed_ips: t.Optional(Nullable(t.Array(t.String(), { description: "IPv4/IPv6 addresses or CIDR ranges; empty or null: any" }))),
  },
  { additionalProperties: false, examples: [{ key_type: "secret", label: "CI sandbox", environment: "sandbox", permissions: ["read", "write"], allowed_ips: ["203.0.113.0/24"] }] },
);

export const RotateKeyBody = t.Optional(
  t.Object(
    { grace_period_hours: t.Optional(t.Integer({ minimum: 0, maximum: 720, description: "default 24" })) },
    { additionalProperties: false, examples: [{ grace_period_hours: 24 }] },
  ),
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

const KEY_EXAMPLE = {
  id: "0198c3a0-7777-7888-9999-aaaabbbbcccc",
  key_type: "secret",
  label: "CI sandbox",
  environment: "sandbox",
  prefix: "nk_test_Xy12",
  permissions: ["read", "write"],
  allowed_ips: null,
  created_at: "2025-08-01T12:00:00.000Z",
  last_used_at: "2025-08-02T08:30:00.000Z",
  expires_at: null,
};
const RAW_KEY_EXAMPLE = "nk_test_Xy12Zw34Vu56Ts78Rq90Po12Nm34Lk56";

export const ReferenceKeyList = t.Object(
  { data: t.Array(ReferenceKey) },
  { examples: [{ data: [KEY_EXAMPLE, { ...KEY_EXAMPLE, id: "0198c39f-0000-7111-8222-333344445555", label: null, environment: "production", prefix: "nk_live_Ab12" }] }] },
);
export const ReferenceKeyCreated = t.Object(
  { data: ReferenceKeyWithRaw },
  { examples: [{ data: { ...KEY_EXAMPLE, last_used_at: null, raw_key: RAW_KEY_EXAMPLE } }] },
);
export const RotatedKeyResponse = t.Object(
  { data: RotatedKey },
  {
    examples: [
      {
        data: {
          ...KEY_EXAMPLE,
          id: "0198c3d0-7777-7888-9999-aaaabbbbcccc",
          last_used_at: null,
          raw_key: RAW_KEY_EXAMPLE,
          rotated_from: { id: KEY_EXAMPLE.id, prefix: KEY_EXAMPLE.prefix, expires_at: "2025-08-03T12:00:00.000Z" },
        },
      },
    ],
  },
);

export const CreateGuideKeyBody = t.Object(
  {
    name: t.String({ maxLength: 255 }),
    permissions: t.Optional(t.Array(t.String())),
    allowed_ips: t.Optional(Nullable(t.Array(t.String()))),
  },
  { additionalProperties: false, examples: [{ name: "Reporting job", permissions: ["read"], allowed_ips: ["10.0.0.0/8"] }] },
);

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

const GUIDE_KEY_EXAMPLE = {
  id: "0198c3a0-7777-7888-9999-aaaabbbbcccc",
  name: "Reporting job",
  permissions: ["read"],
  allowed_ips: ["10.0.0.0/8"],
  created_at: "2025-08-01T12:00:00.000Z",
  last_used_at: null,
};

export const GuideKeyList = t.Object(
  { data: t.Array(GuideKey), meta: GuideKeyListMeta },
  { examples: [{ data: [GUIDE_KEY_EXAMPLE], meta: { total: 1, page: 1, per_page: 20 } }] },
);
export const GuideKeyCreated = t.Object(
  { data: GuideKeyWithRaw },
  { examples: [{ data: { ...GUIDE_KEY_EXAMPLE, key: "nk_live_Ab12Cd34Ef56Gh78Ij90Kl12Mn34Op56" } }] },
);
