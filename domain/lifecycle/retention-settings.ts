// A tenant's retention windows (GET/PUT /v1/settings/retention): defaults, the plan's longest window
// (plans.retention_days), validation, and the windows the retention sweep applies (capped by the plan now).
import { fieldErrors, validationFailed, type ErrorDetails } from "../../basics/errors";
import { billingOf } from "../billing/cache";
import { sql } from "../../store/db";
import { writeAudit, type ActorType } from "../../store/audit";
import { findRetentionSettings, upsertRetentionSettings, type RetentionDays } from "../../store/retention";

export const RETENTION_KEYS = ["notifications_days", "inbox_days", "webhook_deliveries_days"] as const;
export const MAX_RETENTION_DAYS = 3650;

export interface RetentionView extends RetentionDays {
  /** The plan's longest window (null = unlimited), and the plan it comes from. */
  max_days: number | null;
  plan_id: string;
  updated_at: Date | null;
}

async function planCap(tenantId: string): Promise<{ maxDays: number | null; planId: string }> {
  const b = await billingOf(tenantId);
  return { maxDays: b.plan.retention_days ?? null, planId: b.plan.id };
}

/** The windows the sweep applies: each setting, no longer than the plan allows today (a downgrade shortens them). */
export function capped(d: RetentionDays, maxDays: number | null): RetentionDays {
  const cap = (n: number) => (maxDays === null ? n : Math.min(n, maxDays));
  return { notifications_days: cap(d.notifications_days), inbox_days: cap(d.inbox_days), webhook_deliveries_days: cap(d.webhook_deliveries_days) };
}

export async function effectiveWindows(tenantId: string, stored: RetentionDays): Promise<RetentionDays> {
  return capped(stored, (await planCap(tenantId)).maxDays);
}

export async function getRetention(tenantId: string): Promise<RetentionView> {
  const [row, cap] = await Promise.all([findRetentionSettings(tenantId), planCap(tenantId)]);
  return { ...row, max_days: cap.maxDays, plan_id: cap.planId };
}

export interface RetentionActor {
  actorType: ActorType;
  actorId: string | null;
  ip?: string | null;
  userAgent?: string | null;
}

/** Changes the given windows (absent ones keep their value); above the plan's window is 422 and changes nothing. */
export async function putRetention(tenantId: string, input: Partial<RetentionDays>, actor: RetentionActor): Promise<RetentionView> {
  const cap = await planCap(tenantId);
  const details: ErrorDetails = fieldErrors();
  for (const k of RETENTION_KEYS) {
    const v = input[k];
    if (v === undefined) continue;
    if (cap.maxDays !== null && v > cap.maxDays) details[k] = [`must be at most ${cap.maxDays} days on the plan ${cap.planId}`];
  }
  if (Object.keys(details).length) throw validationFailed(details);
  const row = await sql.begin(async (tx) => {
    const cur = await findRetentionSettings(tenantId, tx);
    const next: RetentionDays = {
      notifications_days: input.notifications_days ?? cur.notifications_days,
      inbox_days: input.inbox_days ?? cur.inbox_days,
      webhook_deliveries_days: input.webhook_deliveries_days ?? cur.webhook_deliveries_days,
    };
    const saved = await upsertRetentionSettings(tx, tenantId, next);
    await writeAudit(tx, {
      tenantId,
      ...actor,
      action: "retention_settings.updated",
      resourceType: "retention_settings",
      resourceId: tenantId,
      metadata: { before: { notifications_days: cur.notifications_days, inbox_days: cur.inbox_days, webhook_deliveries_days: cur.webhook_deliveries_days }, after: next },
    });
    return saved;
  });
  return { ...row, max_days: cap.maxDays, plan_id: cap.planId };
}
