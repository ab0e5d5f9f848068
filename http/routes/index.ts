// Every route plugin of the API, in one list that http/app.ts mounts.
// Each resource adds one line here.
import { healthRoutes } from "./health";
import { subscriberRoutes } from "./subscribers";
import { inboxRoutes } from "./inbox";
import { internalTenantRoutes } from "./internal-tenants";
import { apiKeyRoutes } from "./api-keys";
import { inboxEmbedRoutes } from "./inbox-embed";
import { auditLogRoutes, teamAuditLogRoutes } from "./audit-logs";
import { templateRoutes } from "./templates";
import { templateTranslationRoutes } from "./template-translations";
import { preferenceCategoryRoutes } from "./preference-categories";
import { preferenceCenterRoutes } from "./preference-center";
import { channelRoutes } from "./channels";
import { authSessionRoutes } from "./auth-session";
import { teamMemberRoutes } from "./team-members";
import { blockedDomainRoutes } from "./blocked-domains";
import { notificationRoutes } from "./notifications";
import { analyticsRoutes } from "./analytics";
import { unsubscribeRoutes } from "./unsubscribe";
import { whatsappWebhookRoutes } from "./whatsapp-webhook";
import { webAssetRoutes } from "./web-assets";
import { providerRoutes } from "./providers";
import { providerCallbackRoutes } from "./provider-callbacks";
import { trackingRoutes } from "./tracking";
import { suppressionRoutes } from "./suppressions";
import { webhookRoutes } from "./webhooks";
import { domainRoutes } from "./domains";
import { metricsRoutes } from "./metrics";
import { deadLetterRoutes } from "./dead-letters";
import { workflowRoutes } from "./workflows";
import { workflowRunRoutes } from "./workflow-runs";
import { planAdminRoutes, planRoutes } from "./plans";
import { subscriptionRoutes } from "./subscription";
import { billingWebhookRoutes } from "./billing-webhooks";
import { topicRoutes } from "./topics";
import { deliverySettingsRoutes } from "./delivery-settings";
import { broadcastRoutes } from "./broadcasts";
import { retentionSettingsRoutes } from "./retention-settings";

export const routePlugins = [
  healthRoutes,
  subscriberRoutes,
  inboxRoutes,
  internalTenantRoutes,
  apiKeyRoutes,
  inboxEmbedRoutes,
  auditLogRoutes,
  templateRoutes,
  templateTranslationRoutes,
  preferenceCategoryRoutes,
  preferenceCenterRoutes,
  channelRoutes,
  authSessionRoutes,
  teamMemberRoutes,
  blockedDomainRoutes,
  notificationRoutes,
  analyticsRoutes,
  unsubscribeRoutes,
  whatsappWebhookRoutes,
  providerRoutes,
  teamAuditLogRoutes,
  metricsRoutes,
  deadLetterRoutes,
  workflowRoutes,
  workflowRunRoutes,
  webAssetRoutes(),
  providerCallbackRoutes,
  trackingRoutes,
  suppressionRoutes,
  webhookRoutes,
  domainRoutes,
  planAdminRoutes,
  planRoutes,
  subscriptionRoutes,
  billingWebhookRoutes,
  topicRoutes,
  deliverySettingsRoutes,
  broadcastRoutes,
  retentionSettingsRoutes,
] as const;
