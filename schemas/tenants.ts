// TypeBox schemas of the tenant bootstrap route (POST /api/internal/tenants).
import { t } from "elysia";

export const CreateTenantBody = t.Object({ name: t.String({ minLength: 1, maxLength: 255 }) }, { examples: [{ name: "Acme Store" }] });

export const TenantWithKey = t.Object({
  id: t.String(),
  name: t.String(),
  created_at: t.String(),
  api_key: t.Object({
    id: t.String(),
    key_type: t.String(),
    environment: t.String(),
    prefix: t.String(),
    raw_key: t.String(),
  }),
});

export const TenantWithKeyResponse = t.Object(
  { data: TenantWithKey },
  {
    examples: [
      {
        data: {
          id: "0198c3a0-1111-7222-8333-444455556666",
          name: "Acme Store",
          created_at: "2025-08-01T12:00:00.000Z",
          api_key: {
            id: "0198c3a0-7777-7888-9999-aaaabbbbcccc",
            key_type: "secret",
            environment: "production",
            prefix: "nk_live_Ab12",
            raw_key: "nk_live_Ab12Cd34Ef56Gh78Ij90Kl12Mn34Op56",
          },
        },
      },
    ],
  },
);
