// Every request and response type of the client, generated from the TypeBox schemas the server
// validates with (schemas/ -> client/schema-types/, scripts/generate-client-types.ts): a schema
// change that breaks a caller breaks `tsc`, never written twice, and the package needs no TypeBox.
import type * as Analytics from "./schema-types/analytics.js";
import type * as ApiKeys from "./schema-types/api-keys.js";
import type * as AuditLogs from "./schema-types/audit-logs.js";
import type * as Billing from "./schema-types/billing.js";
import type * as Blocked from "./schema-types/blocked-domains.js";
import type * as Channels from "./schema-types/channels.js";
import type * as DeadLetters from "./schema-types/dead-letters.js";
import type * as Domains from "./schema-types/domains.js";
import type * as Errors from "./schema-types/errors.js";
import type * as Embed from "./schema-types/inbox-embed.js";
import type * as Inbox from "./schema-types/inbox.js";
import type * as Notifications from "./schema-types/notifications.js";
import type * as Providers from "./schema-types/providers.js";
import type * as Session from "./schema-types/session.js";
import type * as Subscribers from "./schema-types/subscribers.js";
import type * as Suppressions from "./schema-types/suppressions.js";
import type * as Team from "./schema-types/team.js";
import type * as Templates from "./schema-types/templates.js";
import type * as Tenants from "./schema-types/tenants.js";
import type * as Retention from "./schema-types/retention.js";
import type * as WebhookEvents from "./schema-types/webhook-events.js";
import type * as Webhooks from "./schema-types/webhooks.js";
import type * as Workflows from "./schema-types/workflows.js";
import type * as Topics from "./schema-types/topics.js";
import type * as PreferenceCategories from "./schema-types/preference-categories.js";
import type * as Broadcasts from "./schema-types/broadcasts.js";
import type * as DeliverySettingsSchemas from "./schema-types/delivery-settings.js";

/** Query strings travel as text; the client also takes numbers and booleans for these keys. */
type Loosen<T, K extends keyof T> = Omit<T, K> & { [P in K]?: T[P] | number | boolean };

// ---- errors
export type ErrorBody = Errors.ErrorBody;
export type ErrorDetails = Errors.ErrorDetails;

// ---- pagination
export type CursorMeta = Notifications.PageMeta;
export type OffsetMeta = Subscribers.SubscriberListResponse["meta"];

// ---- notifications
export type ChannelName = Notifications.ChannelName;
export type NotificationCreateParams = Notifications.CreateNotificationBody;
export type NotificationListParams = Loosen<Notifications.ListNotificationsQuery, "limit">;
export type AcceptedNotification = Notifications.AcceptedNotification;
export type NotificationListItem = Notifications.NotificationListItem;
export type Notification = Notifications.NotificationDetail;
export type DeliveryAttempt = Notifications.Attempt;

// ---- templates
export type TemplateStatusValue = (typeof Templates.TEMPLATE_STATUS_VALUES)[number];
export type TemplateCreateParams = Templates.TemplateCreateBody;
export type TemplateUpdateParams = Templates.TemplateUpdateBody;
export type TemplateListParams = Loosen<Templates.TemplateListQuery, "limit">;
export type Template = Templates.Template;
export type TemplatePreviewParams = Templates.PreviewByIdBody;
export type TemplatePreviewInlineParams = Templates.PreviewInlineBody;
export type TemplateValidateInlineParams = Templates.ValidateInlineBody;
export type TemplatePreview = Templates.PreviewResult;
export type TemplateValidation = Templates.ValidationResult;

// ---- subscribers
export type Subscriber = Subscribers.SubscriberRecord;
type SubscriberEditable = Pick<Subscriber, "email" | "phone" | "name" | "locale" | "timezone">;
/**
 * The body schema leaves every field `unknown` so domain/subscribers/validation.ts can name each
 * bad field; the types a caller sends are those of the record the server returns.
 */
export type SubscriberCreateParams = { external_id: Subscriber["external_id"] } & Partial<SubscriberEditable> & {
    custom_properties?: Subscriber["custom_properties"] | null;
  };
export type SubscriberUpdateParams = Partial<SubscriberCreateParams>;
export type SubscriberListParams = Loosen<Subscribers.ListQuery, "limit" | "offset">;
export type SubscriberImportResult = Subscribers.ImportResponse["data"];
export type Preference = Inbox.Preference;
export type InboxItem = Inbox.InboxItem;
export type InboxListParams = Loosen<Inbox.InboxListQuery, "limit" | "offset" | "unread_only">;
export type InboxMeta = Inbox.InboxListResponse["meta"];
export type InboxReadAllResult = Inbox.ReadAllResponse["data"];
export type InboxUnreadCount = Inbox.UnreadCountResponse["data"];
/** One frame of the inbox event stream: the event as webhooks carry it, of an inbox.* type. */
export type InboxEvent = Omit<WebhookEvent, "type"> & { type: Extract<WebhookEventType, `inbox.${string}`> };
export interface InboxStreamParams {
  /** Resume: the id of the last event received; the events after it are sent first (Last-Event-ID). */
  last_event_id?: string;
}

// ---- channels
export type ChannelCreateParams = Channels.ChannelCreateBody;
export type ChannelUpdateParams = Channels.ChannelUpdateBody;
export type ChannelTestParams = Channels.ChannelTestBody;
export type ChannelConfig = Channels.ChannelConfigRecord;
export type ChannelTestResult = Channels.ChannelTestResponse["data"];
export type ProviderDescription = Providers.ProviderDescription;
export type ProviderField = Providers.ProviderField;

// ---- API keys
export type ApiKeyCreateParams = ApiKeys.CreateKeyBody;
export type ApiKeyRotateParams = NonNullable<ApiKeys.RotateKeyBody>;
export type ApiKeyRevokeParams = ApiKeys.RevokeQuery;
export type ApiKey = ApiKeys.ReferenceKey;
export type ApiKeyWithSecret = ApiKeys.ReferenceKeyWithRaw;
export type RotatedApiKey = ApiKeys.RotatedKey;
export type GuideApiKeyCreateParams = ApiKeys.CreateGuideKeyBody;
export type GuideApiKeyListParams = Loosen<ApiKeys.GuideListQuery, "page" | "per_page">;
export type GuideApiKey = ApiKeys.GuideKey;
export type GuideApiKeyWithSecret = ApiKeys.GuideKeyWithRaw;
export type GuideApiKeyMeta = ApiKeys.GuideKeyListMeta;

// ---- inbox embed
export type InboxEmbedSettings = Embed.EmbedSettings;
export type InboxEmbedSettingsUpdateParams = Embed.UpdateEmbedSettingsBody;
export type AllowedOrigin = Embed.AllowedOrigin;
export type AllowedOriginCreateParams = Embed.CreateAllowedOriginBody;

// ---- analytics
export type AnalyticsPeriodParams = Analytics.PeriodQuery;
export type AnalyticsTimeseriesParams = Analytics.TimeseriesQuery;
export type AnalyticsTemplatesParams = Loosen<Analytics.TemplatesQuery, "limit">;
export type AnalyticsOverview = Analytics.Overview;
export type AnalyticsChannelRow = Analytics.ChannelRow;
export type AnalyticsTimeseries = Analytics.TimeseriesBody;
export type AnalyticsTemplateRow = Analytics.TemplateRow;

// ---- admin
type AuditQuery = AuditLogs.AuditLogQuery;
/** Wire names of GET /api/internal/audit-logs; dates also as Date objects (sent as ISO 8601). */
export type AuditLogListParams = Loosen<Omit<AuditQuery, "start_date" | "end_date">, "limit"> & {
  start_date?: AuditQuery["start_date"] | Date;
  end_date?: AuditQuery["end_date"] | Date;
};
/** GET /v1/team/audit-logs: the same filters without tenant_id (the session's tenant). */
export type TeamAuditLogListParams = Omit<AuditLogListParams, "tenant_id">;
export type AuditLogEntry = AuditLogs.AuditLogEntry;
export type AuditLogList = AuditLogs.AuditLogList;
export type BlockedDomain = Blocked.BlockedDomain;
export type BlockedDomainListParams = Loosen<Blocked.BlockedDomainListQuery, "limit">;
export type BlockedDomainMeta = Blocked.BlockedDomainList["meta"];
export type BlockedDomainCheck = Blocked.BlockedCheck["data"];
export type BlockDomainParams = Blocked.BlockDomainBody;
export type TenantCreateParams = Tenants.CreateTenantBody;
export type TenantWithKey = Tenants.TenantWithKey;
export type Offboarding = Tenants.Offboarding;

// ---- dashboard session
export type Me = Session.Me;
export type OAuthProvider = Session.OAuthProviderList["data"][number];
export type MagicLinkParams = Session.MagicLinkBody;
export type MagicLinkResult = Session.MagicLinkSent["data"];
export type TeamMember = Team.TeamMember;
export type TeamMemberInviteParams = Team.InviteMemberBody;
export type TeamMemberUpdateParams = Team.UpdateMemberBody;

// ---- outbound webhooks
export type WebhookEvent = WebhookEvents.WebhookEvent;
export type WebhookEventType = WebhookEvents.WebhookEventType;

// ---- webhook endpoints (/v1/webhooks)
export type Webhook = Webhooks.Webhook;
/** The create answer: the only one that carries `signing_secret`. */
export type WebhookWithSecret = Webhooks.WebhookCreated;
export type WebhookCreateParams = Webhooks.CreateWebhookBody;
export type WebhookUpdateParams = Webhooks.UpdateWebhookBody;
export type WebhookTestParams = Webhooks.TestWebhookBody;
export type WebhookTestResult = Webhooks.TestResult;
type ReplayBody = Webhooks.ReplayWebhookBody;
/** The window's bounds also as Date objects (sent as ISO 8601). */
export type WebhookReplayParams = Omit<ReplayBody, "since" | "until"> & { since: ReplayBody["since"] | Date; until?: ReplayBody["until"] | Date };
export type WebhookReplayResult = Webhooks.ReplayResult;
export type WebhookDelivery = Webhooks.WebhookDelivery;
export type WebhookDeliveryListParams = Loosen<Webhooks.ListDeliveriesQuery, "limit">;

// ---- workflows and their runs
export type Workflow = Workflows.WorkflowRecord;
export type WorkflowStep = Workflows.WorkflowStep;
/**
 * One step to define. The body schema leaves every field `unknown` so domain/workflows/definitions.ts
 * can name each bad field; the types a caller sends are the stored step's, one variant per type.
 */
export type WorkflowStepParams = (
  | { type: "send"; channel: ChannelName; template: NonNullable<WorkflowStep["template"]> }
  | { type: "delay"; duration: NonNullable<WorkflowStep["duration"]> }
  /** wait for the next HH:MM in the recipient's timezone */
  | { type: "delay"; until: string }
  | {
      type: "fallback";
      channels: ChannelName[];
      template: NonNullable<WorkflowStep["template"]>;
      condition?: "not_delivered";
    }
  | { type: "digest"; window: string; key?: string; max_events?: number }
  | { type: "throttle"; limit: number; window: string; key?: string }
) & {
  /** a JSON Logic rule over data, subscriber and steps; false skips the step */
  if?: Record<string, unknown>;
};
export type WorkflowCreateParams = Pick<Workflow, "slug" | "name"> & { steps: WorkflowStepParams[] };
/** A new version replaces the active one: name and steps are required, the slug may change. */
export type WorkflowUpdateParams = Partial<Pick<Workflow, "slug">> & Pick<Workflow, "name"> & { steps: WorkflowStepParams[] };
export type WorkflowListParams = Loosen<Workflows.WorkflowListQuery, "limit" | "include_inactive">;
export type WorkflowRun = Workflows.RunRecord;
export type WorkflowStepResult = Workflows.StepResult;
export type WorkflowRunListParams = Loosen<Workflows.RunListQuery, "limit">;
/**
 * `recipient` (alias `to`): a subscriber's id or external_id, or a literal address; `data` (alias
 * `payload`): the payload of every send and fallback step's template; `locale` (pt_BR, en...): the
 * locale every send renders in when the subscriber has none (docs/localization.md).
 */
export type WorkflowTriggerParams = ({ recipient: WorkflowRun["recipient"] } | { to: WorkflowRun["recipient"] }) &
  ({ data?: WorkflowRun["data"] } | { payload?: WorkflowRun["data"] }) & { locale?: string };

// ---- sending domains
export type SendingDomain = Domains.Domain;
export type SendingDomainDnsRecords = Domains.DnsRecords;
export type SendingDomainHealth = Domains.DomainHealth;
export type SendingDomainHealthCheck = Domains.HealthCheck;
export type SendingDomainAlert = Domains.DomainAlert;
export type SendingDomainCreateParams = Domains.CreateDomainBody;
export type SendingDomainUpdateParams = Domains.UpdateDomainBody;
export type SendingDomainListParams = Loosen<Domains.DomainListQuery, "limit">;
export type SendingDomainAlertListParams = Loosen<Domains.DomainAlertListQuery, "limit">;

// ---- suppressions
export type Suppression = Suppressions.Suppression;
export type SuppressionReason = Suppressions.SuppressionReasonName;
export type SuppressionListParams = Loosen<Suppressions.SuppressionListQuery, "limit">;

// ---- admin: dead letters
export type DeadLetter = DeadLetters.DeadLetter;
export type DeadLetterListParams = Loosen<DeadLetters.DeadLetterListQuery, "limit">;
export type DeadLetterListMeta = DeadLetters.DeadLetterList["meta"];
export type DeadLetterRedriveResult = DeadLetters.RedriveResponse["data"];

// ---- billing
export type Plan = Billing.Plan;
export type PlanLimits = Billing.PlanLimits;
export type PlanCreateParams = Billing.CreatePlanBody;
export type PlanUpdateParams = Billing.UpdatePlanBody;
export type Subscription = Billing.Subscription;
export type SubscriptionStatus = Billing.SubscriptionStatus;
export type SubscriptionUsage = Billing.Usage;
export type SubscriptionCancelParams = Billing.CancelSubscriptionBody;

// ---- audiences (docs/topics.md) and the delivery policy (docs/delivery-policy.md)
export type Topic = Topics.TopicRecord;
export type TopicCreateParams = { key: string; name: string };
export type TopicListParams = Loosen<Topics.TopicListQuery, "limit">;
export type TopicMembersAdded = Topics.TopicMembersAdded["data"];
export type TopicMembersRemoved = Topics.TopicMembersRemoved["data"];
export type Broadcast = Broadcasts.BroadcastRecord;
export type BroadcastStarted = Broadcasts.BroadcastStarted;
export type BulkTriggerParams = { events: WorkflowTriggerParams[] };
export type DeliverySettings = DeliverySettingsSchemas.DeliverySettingsRecord;
export type DeliverySettingsParams = Partial<Pick<DeliverySettings, "timezone" | "quiet_hours" | "frequency_caps">>;

// ---- localization and preferences (docs/localization.md, docs/preferences.md)
export type TemplateTranslation = Templates.Translation;
export type TemplateTranslationParams = Templates.TranslationBody;
export type PreferenceCategory = PreferenceCategories.PreferenceCategory;
export type PreferenceCategoryCreateParams = PreferenceCategories.PreferenceCategoryCreateBody;
export type PreferenceCategoryUpdateParams = PreferenceCategories.PreferenceCategoryUpdateBody;
export type PreferenceCategoryState = Inbox.CategoryState;
export type PreferenceLink = { url: string; expires_at: string };
export type PreferenceCenterSettings = { brand_color: string };

// ---- data lifecycle (docs/operations.md "Retention")
export type RetentionSettings = Retention.RetentionSettings;
export type RetentionSettingsParams = Retention.UpdateRetentionBody;
