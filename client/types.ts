// Every request and response type of the client, derived from the TypeBox schemas the server
// validates with (schemas/): a schema change that breaks a caller breaks `tsc`, never written twice.
import type { Static } from "@sinclair/typebox";
import type * as Analytics from "../schemas/analytics";
import type * as ApiKeys from "../schemas/api-keys";
import type * as AuditLogs from "../schemas/audit-logs";
import type * as Billing from "../schemas/billing";
import type * as Blocked from "../schemas/blocked-domains";
import type * as Channels from "../schemas/channels";
import type * as DeadLetters from "../schemas/dead-letters";
import type * as Domains from "../schemas/domains";
import type * as Errors from "../schemas/errors";
import type * as Embed from "../schemas/inbox-embed";
import type * as Inbox from "../schemas/inbox";
import type * as Notifications from "../schemas/notifications";
import type * as Providers from "../schemas/providers";
import type * as Session from "../schemas/session";
import type * as Subscribers from "../schemas/subscribers";
import type * as Suppressions from "../schemas/suppressions";
import type * as Team from "../schemas/team";
import type * as Templates from "../schemas/templates";
import type * as Tenants from "../schemas/tenants";
import type * as WebhookEvents from "../schemas/webhook-events";
import type * as Webhooks from "../schemas/webhooks";
import type * as Workflows from "../schemas/workflows";

/** Query strings travel as text; the client also takes numbers and booleans for these keys. */
type Loosen<T, K extends keyof T> = Omit<T, K> & { [P in K]?: T[P] | number | boolean };

// ---- errors
export type ErrorBody = Static<typeof Errors.ErrorBody>;
export type ErrorDetails = Static<typeof Errors.ErrorDetails>;

// ---- pagination
export type CursorMeta = Static<typeof Notifications.PageMeta>;
export type OffsetMeta = Static<typeof Subscribers.SubscriberListResponse>["meta"];

// ---- notifications
export type ChannelName = Static<typeof Notifications.ChannelName>;
export type NotificationCreateParams = Static<typeof Notifications.CreateNotificationBody>;
export type NotificationListParams = Loosen<Static<typeof Notifications.ListNotificationsQuery>, "limit">;
export type AcceptedNotification = Static<typeof Notifications.AcceptedNotification>;
export type NotificationListItem = Static<typeof Notifications.NotificationListItem>;
export type Notification = Static<typeof Notifications.NotificationDetail>;
export type DeliveryAttempt = Static<typeof Notifications.Attempt>;

// ---- templates
export type TemplateStatusValue = (typeof Templates.TEMPLATE_STATUS_VALUES)[number];
export type TemplateCreateParams = Static<typeof Templates.TemplateCreateBody>;
export type TemplateUpdateParams = Static<typeof Templates.TemplateUpdateBody>;
export type TemplateListParams = Loosen<Static<typeof Templates.TemplateListQuery>, "limit">;
export type Template = Static<typeof Templates.Template>;
export type TemplatePreviewParams = Static<typeof Templates.PreviewByIdBody>;
export type TemplatePreviewInlineParams = Static<typeof Templates.PreviewInlineBody>;
export type TemplateValidateInlineParams = Static<typeof Templates.ValidateInlineBody>;
export type TemplatePreview = Static<typeof Templates.PreviewResult>;
export type TemplateValidation = Static<typeof Templates.ValidationResult>;

// ---- subscribers
export type Subscriber = Static<typeof Subscribers.SubscriberRecord>;
type SubscriberEditable = Pick<Subscriber, "email" | "phone" | "name" | "locale" | "timezone">;
/**
 * The body schema leaves every field `unknown` so domain/subscribers/validation.ts can name each
 * bad field; the types a caller sends are those of the record the server returns.
 */
export type SubscriberCreateParams = { external_id: Subscriber["external_id"] } & Partial<SubscriberEditable> & {
    custom_properties?: Subscriber["custom_properties"] | null;
  };
export type SubscriberUpdateParams = Partial<SubscriberCreateParams>;
export type SubscriberListParams = Loosen<Static<typeof Subscribers.ListQuery>, "limit" | "offset">;
export type SubscriberImportResult = Static<typeof Subscribers.ImportResponse>["data"];
export type Preference = Static<typeof Inbox.Preference>;
export type InboxItem = Static<typeof Inbox.InboxItem>;
export type InboxListParams = Loosen<Static<typeof Inbox.InboxListQuery>, "limit" | "offset" | "unread_only">;
export type InboxMeta = Static<typeof Inbox.InboxListResponse>["meta"];
export type InboxReadAllResult = Static<typeof Inbox.ReadAllResponse>["data"];
export type InboxUnreadCount = Static<typeof Inbox.UnreadCountResponse>["data"];
/** One frame of the inbox event stream: the event as webhooks carry it, of an inbox.* type. */
export type InboxEvent = Omit<WebhookEvent, "type"> & { type: Extract<WebhookEventType, `inbox.${string}`> };
export interface InboxStreamParams {
  /** Resume: the id of the last event received; the events after it are sent first (Last-Event-ID). */
  last_event_id?: string;
}

// ---- channels
export type ChannelCreateParams = Static<typeof Channels.ChannelCreateBody>;
export type ChannelUpdateParams = Static<typeof Channels.ChannelUpdateBody>;
export type ChannelTestParams = Static<typeof Channels.ChannelTestBody>;
export type ChannelConfig = Static<typeof Channels.ChannelConfigRecord>;
export type ChannelTestResult = Static<typeof Channels.ChannelTestResponse>["data"];
export type ProviderDescription = Static<typeof Providers.ProviderDescription>;
export type ProviderField = Static<typeof Providers.ProviderField>;

// ---- API keys
export type ApiKeyCreateParams = Static<typeof ApiKeys.CreateKeyBody>;
export type ApiKeyRotateParams = NonNullable<Static<typeof ApiKeys.RotateKeyBody>>;
export type ApiKeyRevokeParams = Static<typeof ApiKeys.RevokeQuery>;
export type ApiKey = Static<typeof ApiKeys.ReferenceKey>;
export type ApiKeyWithSecret = Static<typeof ApiKeys.ReferenceKeyWithRaw>;
export type RotatedApiKey = Static<typeof ApiKeys.RotatedKey>;
export type GuideApiKeyCreateParams = Static<typeof ApiKeys.CreateGuideKeyBody>;
export type GuideApiKeyListParams = Loosen<Static<typeof ApiKeys.GuideListQuery>, "page" | "per_page">;
export type GuideApiKey = Static<typeof ApiKeys.GuideKey>;
export type GuideApiKeyWithSecret = Static<typeof ApiKeys.GuideKeyWithRaw>;
export type GuideApiKeyMeta = Static<typeof ApiKeys.GuideKeyListMeta>;

// ---- inbox embed
export type InboxEmbedSettings = Static<typeof Embed.EmbedSettings>;
export type InboxEmbedSettingsUpdateParams = Static<typeof Embed.UpdateEmbedSettingsBody>;
export type AllowedOrigin = Static<typeof Embed.AllowedOrigin>;
export type AllowedOriginCreateParams = Static<typeof Embed.CreateAllowedOriginBody>;

// ---- analytics
export type AnalyticsPeriodParams = Static<typeof Analytics.PeriodQuery>;
export type AnalyticsTimeseriesParams = Static<typeof Analytics.TimeseriesQuery>;
export type AnalyticsTemplatesParams = Loosen<Static<typeof Analytics.TemplatesQuery>, "limit">;
export type AnalyticsOverview = Static<typeof Analytics.Overview>;
export type AnalyticsChannelRow = Static<typeof Analytics.ChannelRow>;
export type AnalyticsTimeseries = Static<typeof Analytics.TimeseriesBody>;
export type AnalyticsTemplateRow = Static<typeof Analytics.TemplateRow>;

// ---- admin
type AuditQuery = Static<typeof AuditLogs.AuditLogQuery>;
/** Wire names of GET /api/internal/audit-logs; dates also as Date objects (sent as ISO 8601). */
export type AuditLogListParams = Loosen<Omit<AuditQuery, "start_date" | "end_date">, "limit"> & {
  start_date?: AuditQuery["start_date"] | Date;
  end_date?: AuditQuery["end_date"] | Date;
};
/** GET /v1/team/audit-logs: the same filters without tenant_id (the session's tenant). */
export type TeamAuditLogListParams = Omit<AuditLogListParams, "tenant_id">;
export type AuditLogEntry = Static<typeof AuditLogs.AuditLogEntry>;
export type AuditLogList = Static<typeof AuditLogs.AuditLogList>;
export type BlockedDomain = Static<typeof Blocked.BlockedDomain>;
export type BlockedDomainListParams = Loosen<Static<typeof Blocked.BlockedDomainListQuery>, "limit">;
export type BlockedDomainMeta = Static<typeof Blocked.BlockedDomainList>["meta"];
export type BlockedDomainCheck = Static<typeof Blocked.BlockedCheck>["data"];
export type BlockDomainParams = Static<typeof Blocked.BlockDomainBody>;
export type TenantCreateParams = Static<typeof Tenants.CreateTenantBody>;
export type TenantWithKey = Static<typeof Tenants.TenantWithKey>;

// ---- dashboard session
export type Me = Static<typeof Session.Me>;
export type OAuthProvider = Static<typeof Session.OAuthProviderList>["data"][number];
export type MagicLinkParams = Static<typeof Session.MagicLinkBody>;
export type MagicLinkResult = Static<typeof Session.MagicLinkSent>["data"];
export type TeamMember = Static<typeof Team.TeamMember>;
export type TeamMemberInviteParams = Static<typeof Team.InviteMemberBody>;
export type TeamMemberUpdateParams = Static<typeof Team.UpdateMemberBody>;

// ---- outbound webhooks
export type WebhookEvent = Static<typeof WebhookEvents.WebhookEvent>;
export type WebhookEventType = Static<typeof WebhookEvents.WebhookEventType>;

// ---- webhook endpoints (/v1/webhooks)
export type Webhook = Static<typeof Webhooks.Webhook>;
/** The create answer: the only one that carries `signing_secret`. */
export type WebhookWithSecret = Static<typeof Webhooks.WebhookCreated>;
export type WebhookCreateParams = Static<typeof Webhooks.CreateWebhookBody>;
export type WebhookUpdateParams = Static<typeof Webhooks.UpdateWebhookBody>;
export type WebhookTestParams = Static<typeof Webhooks.TestWebhookBody>;
export type WebhookTestResult = Static<typeof Webhooks.TestResult>;
type ReplayBody = Static<typeof Webhooks.ReplayWebhookBody>;
/** The window's bounds also as Date objects (sent as ISO 8601). */
export type WebhookReplayParams = Omit<ReplayBody, "since" | "until"> & { since: ReplayBody["since"] | Date; until?: ReplayBody["until"] | Date };
export type WebhookReplayResult = Static<typeof Webhooks.ReplayResult>;
export type WebhookDelivery = Static<typeof Webhooks.WebhookDelivery>;
export type WebhookDeliveryListParams = Loosen<Static<typeof Webhooks.ListDeliveriesQuery>, "limit">;

// ---- workflows and their runs
export type Workflow = Static<typeof Workflows.WorkflowRecord>;
export type WorkflowStep = Static<typeof Workflows.WorkflowStep>;
/**
 * One step to define. The body schema leaves every field `unknown` so domain/workflows/definitions.ts
 * can name each bad field; the types a caller sends are the stored step's, one variant per type.
 */
export type WorkflowStepParams =
  | { type: "send"; channel: ChannelName; template: NonNullable<WorkflowStep["template"]> }
  | { type: "delay"; duration: NonNullable<WorkflowStep["duration"]> }
  | {
      type: "fallback";
      channels: ChannelName[];
      template: NonNullable<WorkflowStep["template"]>;
      condition?: "not_delivered";
    };
export type WorkflowCreateParams = Pick<Workflow, "slug" | "name"> & { steps: WorkflowStepParams[] };
/** A new version replaces the active one: name and steps are required, the slug may change. */
export type WorkflowUpdateParams = Partial<Pick<Workflow, "slug">> & Pick<Workflow, "name"> & { steps: WorkflowStepParams[] };
export type WorkflowListParams = Loosen<Static<typeof Workflows.WorkflowListQuery>, "limit" | "include_inactive">;
export type WorkflowRun = Static<typeof Workflows.RunRecord>;
export type WorkflowStepResult = Static<typeof Workflows.StepResult>;
export type WorkflowRunListParams = Loosen<Static<typeof Workflows.RunListQuery>, "limit">;
/**
 * `recipient` (alias `to`): a subscriber's id or external_id, or a literal address; `data` (alias
 * `payload`): the payload of every send and fallback step's template.
 */
export type WorkflowTriggerParams = ({ recipient: WorkflowRun["recipient"] } | { to: WorkflowRun["recipient"] }) &
  ({ data?: WorkflowRun["data"] } | { payload?: WorkflowRun["data"] });

// ---- sending domains
export type SendingDomain = Static<typeof Domains.Domain>;
export type SendingDomainDnsRecords = Static<typeof Domains.DnsRecords>;
export type SendingDomainHealth = Static<typeof Domains.DomainHealth>;
export type SendingDomainHealthCheck = Static<typeof Domains.HealthCheck>;
export type SendingDomainAlert = Static<typeof Domains.DomainAlert>;
export type SendingDomainCreateParams = Static<typeof Domains.CreateDomainBody>;
export type SendingDomainUpdateParams = Static<typeof Domains.UpdateDomainBody>;
export type SendingDomainListParams = Loosen<Static<typeof Domains.DomainListQuery>, "limit">;
export type SendingDomainAlertListParams = Loosen<Static<typeof Domains.DomainAlertListQuery>, "limit">;

// ---- suppressions
export type Suppression = Static<typeof Suppressions.Suppression>;
export type SuppressionReason = Static<typeof Suppressions.SuppressionReasonName>;
export type SuppressionListParams = Loosen<Static<typeof Suppressions.SuppressionListQuery>, "limit">;

// ---- admin: dead letters
export type DeadLetter = Static<typeof DeadLetters.DeadLetter>;
export type DeadLetterListParams = Loosen<Static<typeof DeadLetters.DeadLetterListQuery>, "limit">;
export type DeadLetterListMeta = Static<typeof DeadLetters.DeadLetterList>["meta"];
export type DeadLetterRedriveResult = Static<typeof DeadLetters.RedriveResponse>["data"];

// ---- billing
export type Plan = Static<typeof Billing.Plan>;
export type PlanLimits = Static<typeof Billing.PlanLimits>;
export type PlanCreateParams = Static<typeof Billing.CreatePlanBody>;
export type PlanUpdateParams = Static<typeof Billing.UpdatePlanBody>;
export type Subscription = Static<typeof Billing.Subscription>;
export type SubscriptionStatus = Static<typeof Billing.SubscriptionStatus>;
export type SubscriptionUsage = Static<typeof Billing.Usage>;
export type SubscriptionCancelParams = Static<typeof Billing.CancelSubscriptionBody>;
