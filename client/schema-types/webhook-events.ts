// Generated from schemas/webhook-events.ts by scripts/generate-client-types.ts: do not edit. The types
// Static<typeof Schema> gives for each TypeBox schema the server validates with, so @nms/client needs neither.

export type WebhookEvent = {
  /** Event id; the same event may arrive twice */
  id: string;
  type: "notification.created" | "notification.sent" | "notification.delivered" | "notification.failed" | "notification.bounced" | "notification.opened" | "notification.clicked" | "notification.complained" | "notification.test" | "workflow.triggered" | "workflow.step.completed" | "workflow.step.failed" | "workflow.completed" | "broadcast.completed" | "inbox.notification.received" | "inbox.notification.read" | "subscriber.preferences_updated" | "quota.warning" | "quota.exceeded" | "channel.provider.circuit_opened" | "channel.provider.circuit_closed";
  /** ISO 8601; order events by it, not by arrival */
  created_at: string;
  data: { [key: string]: unknown };
};

export type WebhookEventType = "notification.created" | "notification.sent" | "notification.delivered" | "notification.failed" | "notification.bounced" | "notification.opened" | "notification.clicked" | "notification.complained" | "notification.test" | "workflow.triggered" | "workflow.step.completed" | "workflow.step.failed" | "workflow.completed" | "broadcast.completed" | "inbox.notification.received" | "inbox.notification.read" | "subscriber.preferences_updated" | "quota.warning" | "quota.exceeded" | "channel.provider.circuit_opened" | "channel.provider.circuit_closed";
