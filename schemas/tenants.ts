// TypeBox schemas of the tenant bootstrap route (POST /api/internal/tenants).
import { t } from "elysia";

export const CreateTenantBody = t.Object({
  name: t.String({ minLength: 1, maxLength: 255 }),
});

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

export const TenantWithKeyResponse = t.Object({ data: TenantWithKey });
