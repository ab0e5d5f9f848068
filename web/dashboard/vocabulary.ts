// The API's fixed values the dashboard offers in its controls, each list checked by tsc against
// the client's types: a channel or status added to the API fails the build until it is listed here.
import type { ChannelName, NotificationListParams, SubscriptionStatus, SuppressionReason, TemplateStatusValue, WebhookDeliveryListParams, WebhookEventType } from "../../client";

const CHANNEL_LABELS_ = { email: "Email", whatsapp: "WhatsApp", sms: "SMS", in_app: "In-app", push: "Push" } satisfies Record<ChannelName, string>;
export const CHANNEL_LABELS: Record<ChannelName, string> = CHANNEL_LABELS_;
export const CHANNELS = Object.keys(CHANNEL_LABELS_) as ChannelName[];

export type NotificationStatus = NonNullable<NotificationListParams["status"]>;
const STATUS_LABELS_ = {
  pending: "Pending",
  scheduled: "Scheduled (quiet hours)",
  sent: "Sent",
  delivered: "Delivered",
  failed: "Failed",
  bounced: "Bounced",
  suppressed: "Suppressed",
} satisfies Record<NotificationStatus, string>;
export const NOTIFICATION_STATUS_LABELS: Record<NotificationStatus, string> = STATUS_LABELS_;
export const NOTIFICATION_STATUSES = Object.keys(STATUS_LABELS_) as NotificationStatus[];

const TEMPLATE_STATUS_LABELS_ = { draft: "Draft", active: "Active" } satisfies Record<TemplateStatusValue, string>;
export const TEMPLATE_STATUS_LABELS: Record<TemplateStatusValue, string> = TEMPLATE_STATUS_LABELS_;
export const TEMPLATE_STATUSES = Object.keys(TEMPLATE_STATUS_LABELS_) as TemplateStatusValue[];

export function isChannel(v: string | null): v is ChannelName {
  return v !== null && (CHANNELS as string[]).includes(v);
}

/** Workflow run statuses (SPEC "Workflow run"; the run schema types them as strings). */
export const WORKFLOW_RUN_STATUSES = ["running", "completed", "failed", "cancelled"] as const;
export type WorkflowRunStatus = (typeof WORKFLOW_RUN_STATUSES)[number];
export const WORKFLOW_RUN_STATUS_LABELS: Record<WorkflowRunStatus, string> = { running: "Running", completed: "Completed", failed: "Failed", cancelled: "Cancelled" };

export type StepType = "send" | "delay" | "fallback" | "digest" | "throttle";
export const STEP_TYPE_LABELS: Record<StepType, string> = { send: "Send", delay: "Delay", fallback: "Fallback", digest: "Digest", throttle: "Throttle" };
export type DelayMode = "duration" | "until";
export const DELAY_MODES: DelayMode[] = ["duration", "until"];
export const DELAY_MODE_LABELS: Record<DelayMode, string> = { duration: "For a duration", until: "Until a local time" };
export const STEP_TYPES = Object.keys(STEP_TYPE_LABELS) as StepType[];
/** A send or fallback step's lane (docs/routing.md); absent means normal. */
export type StepPriority = "high" | "normal" | "low";
export const STEP_PRIORITIES: StepPriority[] = ["high", "normal", "low"];
export const STEP_PRIORITY_LABELS: Record<StepPriority, string> = { high: "High", normal: "Normal", low: "Low" };

const WEBHOOK_EVENT_LABELS_ = {
  "notification.created": "created",
  "notification.sent": "sent",
  "notification.delivered": "delivered",
  "notification.failed": "failed",
  "notification.bounced": "bounced",
  "notification.opened": "opened",
  "notification.clicked": "clicked",
  "notification.complained": "complained",
  "notification.test": "test (the test button only)",
  "workflow.triggered": "triggered",
  "workflow.step.completed": "step completed",
  "workflow.step.failed": "step failed",
  "workflow.completed": "completed",
  "broadcast.completed": "a broadcast to a topic created its last run",
  "inbox.notification.received": "notification received",
  "inbox.notification.read": "notification read",
  "quota.warning": "80 % of the period's notifications used",
  "quota.exceeded": "the period's notifications used up",
  "channel.provider.circuit_opened": "a provider's circuit opened (sends go to the next provider)",
  "channel.provider.circuit_closed": "a provider's circuit closed again",
  "subscriber.preferences_updated": "preferences updated",
} satisfies Record<WebhookEventType, string>;
/** Every event type a webhook may subscribe to, with a short label inside its group. */
export const WEBHOOK_EVENT_LABELS: Record<WebhookEventType, string> = WEBHOOK_EVENT_LABELS_;
export const WEBHOOK_EVENT_TYPES = Object.keys(WEBHOOK_EVENT_LABELS_) as WebhookEventType[];
/** The event groups shown as one fieldset each: notification.*, workflow.*, inbox.* */
export const WEBHOOK_EVENT_GROUPS = ["notification", "workflow", "broadcast", "inbox", "quota", "channel", "subscriber"] as const;


export type DeliveryStatus = NonNullable<WebhookDeliveryListParams["status"]>;
const DELIVERY_STATUS_LABELS_ = { success: "Success", failed: "Failed", pending: "Pending" } satisfies Record<DeliveryStatus, string>;
export const DELIVERY_STATUS_LABELS: Record<DeliveryStatus, string> = DELIVERY_STATUS_LABELS_;
export const DELIVERY_STATUSES = Object.keys(DELIVERY_STATUS_LABELS_) as DeliveryStatus[];

const SUPPRESSION_REASON_LABELS_ = { bounced: "Hard bounce", complained: "Spam complaint", unregistered: "Push recipient gone" } satisfies Record<SuppressionReason, string>;
export const SUPPRESSION_REASON_LABELS: Record<SuppressionReason, string> = SUPPRESSION_REASON_LABELS_;
export const SUPPRESSION_REASONS = Object.keys(SUPPRESSION_REASON_LABELS_) as SuppressionReason[];

/** Subscription statuses (GET /v1/subscription). */
export const SUBSCRIPTION_STATUS_LABELS: Record<SubscriptionStatus, string> = {
  trialing: "Trial",
  active: "Active",
  past_due: "Past due",
  cancelled: "Cancelled",
  expired: "Expired",
};
