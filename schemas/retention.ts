// TypeBox schemas of the retention settings (GET/PUT /v1/settings/retention): how long a tenant's
// history is kept, per kind, within the plan's longest window.
import { t } from "elysia";

const Days = (description: string) => t.Integer({ minimum: 1, maximum: 3650, description });

export const RetentionSettings = t.Object({
  notifications_days: Days("Days notifications are kept, with their attempts, events, engagement records and finished workflow runs (default 30)"),
  inbox_days: Days("Days in-app inbox items are kept (default 365)"),
  webhook_deliveries_days: Days("Days webhook delivery records are kept (default 30)"),
  max_days: t.Union([t.Integer(), t.Null()], { description: "The plan's longest window for each setting (plans.retention_days); null = unlimited" }),
  plan_id: t.String({ description: "The plan max_days comes from" }),
  updated_at: t.Union([t.String(), t.Null()], { description: "null while the defaults apply" }),
});

export const RetentionSettingsResponse = t.Object(
  { data: RetentionSettings },
  {
    examples: [
      {
        data: { notifications_days: 30, inbox_days: 365, webhook_deliveries_days: 30, max_days: null, plan_id: "free", updated_at: null },
      },
    ],
  },
);

export const UpdateRetentionBody = t.Object(
  {
    notifications_days: t.Optional(Days("Days notifications (and their attempts, events, engagement records) are kept")),
    inbox_days: t.Optional(Days("Days in-app inbox items are kept")),
    webhook_deliveries_days: t.Optional(Days("Days webhook delivery records are kept")),
  },
  { additionalProperties: false, minProperties: 1, examples: [{ notifications_days: 14, inbox_days: 90 }] },
);
