// Generated from schemas/retention.ts by scripts/generate-client-types.ts: do not edit. The types
// Static<typeof Schema> gives for each TypeBox schema the server validates with, so @nms/client needs neither.

export type RetentionSettings = {
  /** Days notifications are kept, with their attempts, events, engagement records and finished workflow runs (default 30) */
  notifications_days: number;
  /** Days in-app inbox items are kept (default 365) */
  inbox_days: number;
  /** Days webhook delivery records are kept (default 30) */
  webhook_deliveries_days: number;
  /** The plan's longest window for each setting (plans.retention_days); null = unlimited */
  max_days: number | null;
  /** The plan max_days comes from */
  plan_id: string;
  /** null while the defaults apply */
  updated_at: string | null;
};

export type RetentionSettingsResponse = {
  data: {
    /** Days notifications are kept, with their attempts, events, engagement records and finished workflow runs (default 30) */
    notifications_days: number;
    /** Days in-app inbox items are kept (default 365) */
    inbox_days: number;
    /** Days webhook delivery records are kept (default 30) */
    webhook_deliveries_days: number;
    /** The plan's longest window for each setting (plans.retention_days); null = unlimited */
    max_days: number | null;
    /** The plan max_days comes from */
    plan_id: string;
    /** null while the defaults apply */
    updated_at: string | null;
  };
};

export type UpdateRetentionBody = {
  /** Days notifications (and their attempts, events, engagement records) are kept */
  notifications_days?: number;
  /** Days in-app inbox items are kept */
  inbox_days?: number;
  /** Days webhook delivery records are kept */
  webhook_deliveries_days?: number;
};
