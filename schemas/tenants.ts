// TypeBox schemas of the tenant bootstrap route (POST /api/internal/tenants).
import { t } from "elysia";

export const CreateTenantBody = t.Object(
  {
    name: t.String({ minLength: 1, maxLength: 255 }),
    owner_email: t.Optional(
      t.String({
        maxLength: 320,
        description:
          "The tenant's first dashboard user (role owner). The response carries their one-time sign-in link, which is also mailed " +
          "(logged without SMTP_URL); after it expires they sign in with this address on the dashboard's sign-in page.",
      }),
    ),
  },
  { examples: [{ name: "Acme Store", owner_email: "ana@acme.example" }] },
);

export const TenantOwner = t.Object({
  id: t.String(),
  email: t.String(),
  role: t.Literal("owner"),
  sign_in_url: t.String({ description: "Opens the dashboard signed in as the owner, in this tenant; works once" }),
  sign_in_expires_at: t.String({ description: "When sign_in_url stops working (15 minutes)" }),
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
  owner: t.Union([TenantOwner, t.Null()], { description: "null when the request named no owner_email" }),
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
          owner: {
            id: "0198c3a0-dddd-7eee-8fff-000011112222",
            email: "ana@acme.example",
            role: "owner",
            sign_in_url: "https://nms.example.com/auth/magic-link/verify?token=q7v3S1mB0cZl9yJkQ2xW",
            sign_in_expires_at: "2025-08-01T12:15:00.000Z",
          },
        },
      },
    ],
  },
);

export const TenantIdParams = t.Object({ id: t.String() });

export const Offboarding = t.Object({
  tenant_id: t.String(),
  tenant_name: t.String(),
  status: t.Union([t.Literal("running"), t.Literal("completed")]),
  current_table: t.Union([t.String(), t.Null()], { description: "The table being emptied now; null once completed" }),
  tables_done: t.Array(t.String(), { description: "Tables emptied so far, in order" }),
  tables_total: t.Integer({ description: "Tables holding the tenant's records (the audit log is kept and not counted)" }),
  rows_deleted: t.Integer({ description: "Rows deleted by the batches; children that leave by cascade with them (attempts, engagement records, preferences) are not counted" }),
  requested_at: t.String(),
  updated_at: t.String({ description: "The last batch's time: a running offboarding whose updated_at stops moving is resumed by the retention job" }),
  completed_at: t.Union([t.String(), t.Null()]),
});

export const OffboardingResponse = t.Object(
  { data: Offboarding },
  {
    examples: [
      {
        data: {
          tenant_id: "0198c3a0-1111-7222-8333-444455556666",
          tenant_name: "Acme Store",
          status: "running",
          current_table: "notification_attempts",
          tables_done: ["api_keys", "sessions", "allowed_origins"],
          tables_total: 31,
          rows_deleted: 120000,
          requested_at: "2026-11-26T12:00:00.000Z",
          updated_at: "2026-11-26T12:00:41.000Z",
          completed_at: null,
        },
      },
    ],
  },
);
