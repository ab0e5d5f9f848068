// The API's fixed values the dashboard offers in its controls, each list checked by tsc against
// the client's types: a channel or status added to the API fails the build until it is listed here.
import type { ChannelName, NotificationListParams, TemplateStatusValue } from "../../client";

const CHANNEL_LABELS_ = { email: "Email", whatsapp: "WhatsApp", sms: "SMS", in_app: "In-app", push: "Push" } satisfies Record<ChannelName, string>;
export const CHANNEL_LABELS: Record<ChannelName, string> = CHANNEL_LABELS_;
export const CHANNELS = Object.keys(CHANNEL_LABELS_) as ChannelName[];

export type NotificationStatus = NonNullable<NotificationListParams["status"]>;
const STATUS_LABELS_ = {
  pending: "Pending",
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
