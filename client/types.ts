// Every request and response type of the client, derived from the TypeBox schemas the server
// validates with (schemas/): a schema change that breaks a caller breaks `tsc`, never written twice.
import type { Static } from "@sinclair/typebox";
import type * as Analytics from "../schemas/analytics";
import type * as ApiKeys from "../schemas/api-keys";
import type * as AuditLogs from "../schemas/audit-logs";
import type * as Blocked from "../schemas/blocked-domains";
import type * as Channels from "../schemas/channels";
import type * as Errors from "../schemas/errors";
import type * as Embed from "../schemas/inbox-embed";
import type * as Inbox from "../schemas/inbox";
import type * as Notifications from "../schemas/notifications";
import type * as Providers from "../schemas/providers";
import type * as Session from "../schemas/session";
import type * as Subscribers from "../schemas/subscribers";
import type * as Team from "../schemas/team";
import type * as Templates from "../schemas/templates";
import type * as Tenants from "../schemas/tenants";
import type * as WebhookEvents from "../schemas/webhook-events";

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
 * The body schema leaves every field `unknown` so domain/subscriber-validation.ts can name each
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
