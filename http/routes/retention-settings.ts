// GET/PUT /v1/settings/retention: how long the tenant's history is kept (domain/lifecycle/retention-settings.ts);
// the retention job (jobs/retention.ts) removes what is older.
import { Elysia } from "elysia";
import { getRetention, putRetention, type RetentionView } from "../../domain/lifecycle/retention-settings";
import { RetentionSettingsResponse, UpdateRetentionBody } from "../../schemas/retention";
import { iso } from "../../store/time";
import { accessPlugin } from "../plugins/access";
import { BODY_ERRORS, errors, KEY_ERRORS } from "../route-docs";

const tags = ["settings"];

function shape(v: RetentionView) {
  return {
    notifications_days: v.notifications_days,
    inbox_days: v.inbox_days,
    webhook_deliveries_days: v.webhook_deliveries_days,
    max_days: v.max_days,
    plan_id: v.plan_id,
    updated_at: iso(v.updated_at),
  };
}

export const retentionSettingsRoutes = new Elysia({ name: "routes.retention-settings" })
  .use(accessPlugin)
  .get("/v1/settings/retention", async ({ auth }) => ({ data: shape(await getRetention(auth.tenantId)) }), {
    access: "secret-read",
    response: { 200: RetentionSettingsResponse, ...errors(KEY_ERRORS) },
    detail: {
      summary: "How long the tenant's history is kept",
      description:
        "Per tenant (both environments). Defaults: 30 days of notifications (with their attempts, events and engagement records, and " +
        "finished workflow runs), 365 days of inbox items, 30 days of webhook delivery records. `max_days` is the plan's longest window. " +
        "The audit log is kept forever and the analytics rollups outlive the rows they count.",
      tags,
    },
  })
  .put("/v1/settings/retention", async ({ auth, body }) => {
    const v = await putRetention(auth.tenantId, body, { actorType: auth.actorType, actorId: auth.actorId, ip: auth.ip, userAgent: auth.userAgent });
    return { data: shape(v) };
  }, {
    access: "secret-write",
    body: UpdateRetentionBody,
    response: { 200: RetentionSettingsResponse, ...errors(KEY_ERRORS, BODY_ERRORS) },
    detail: {
      summary: "Change how long the tenant's history is kept",
      description:
        "Each field 1 to 3650 days; absent fields keep their value. A window longer than the plan's `retention_days` is 422 " +
        "`validation_failed` naming the field, and nothing changes. A shorter window applies at the retention job's next run " +
        "(RETENTION_EVERY); a plan downgrade shortens the windows in force without changing the stored settings.",
      tags,
    },
  });
