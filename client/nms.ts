// The Nms client: one transport (credentials, retries, errors) shared by a namespace per
// resource. A new resource is one file in resources/ plus one line here.
import { Transport, type NmsOptions } from "./transport.js";
import { Analytics } from "./resources/analytics.js";
import { ApiKeys } from "./resources/api-keys.js";
import { AuditLogs } from "./resources/audit-logs.js";
import { BlockedDomains } from "./resources/blocked-domains.js";
import { Channels } from "./resources/channels.js";
import { DeadLetters } from "./resources/dead-letters.js";
import { Domains } from "./resources/domains.js";
import { InboxEmbed } from "./resources/inbox-embed.js";
import { Me } from "./resources/me.js";
import { Notifications } from "./resources/notifications.js";
import { Subscribers } from "./resources/subscribers.js";
import { Suppressions } from "./resources/suppressions.js";
import { Topics } from "./resources/topics.js";
import { PreferenceCategories, PreferenceCenter } from "./resources/preference-categories.js";
import { Broadcasts } from "./resources/broadcasts.js";
import { DeliverySettingsResource } from "./resources/delivery-settings.js";
import { RetentionSettingsResource } from "./resources/retention-settings.js";
import { TeamMembers } from "./resources/team-members.js";
import { Templates } from "./resources/templates.js";
import { Tenants } from "./resources/tenants.js";
import { Auth } from "./resources/auth.js";
import { Providers } from "./resources/providers.js";
import { TeamAuditLogs } from "./resources/team-audit-logs.js";
import { Webhooks } from "./resources/webhooks.js";
import { WorkflowRuns } from "./resources/workflow-runs.js";
import { Workflows } from "./resources/workflows.js";
import { Plans } from "./resources/plans.js";
import { Subscription } from "./resources/subscription.js";

export class Nms {
  readonly notifications: Notifications;
  readonly templates: Templates;
  readonly subscribers: Subscribers;
  readonly channels: Channels;
  readonly apiKeys: ApiKeys;
  readonly inboxEmbed: InboxEmbed;
  readonly analytics: Analytics;
  readonly providers: Providers;
  readonly workflows: Workflows;
  readonly workflowRuns: WorkflowRuns;
  readonly webhooks: Webhooks;
  readonly domains: Domains;
  readonly suppressions: Suppressions;
  readonly topics: Topics;
  readonly preferenceCategories: PreferenceCategories;
  readonly preferenceCenter: PreferenceCenter;
  readonly broadcasts: Broadcasts;
  readonly deliverySettings: DeliverySettingsResource;
  readonly retentionSettings: RetentionSettingsResource;
  readonly subscription: Subscription;
  /** list: any key or session; admin.*: the admin token */
  readonly plans: Plans;
  // dashboard session
  readonly me: Me;
  readonly teamMembers: TeamMembers;
  readonly teamAuditLogs: TeamAuditLogs;
  readonly auth: Auth;
  // admin token
  readonly auditLogs: AuditLogs;
  readonly blockedDomains: BlockedDomains;
  readonly tenants: Tenants;
  readonly deadLetters: DeadLetters;

  constructor(options: NmsOptions = {}) {
    const t = new Transport(options);
    this.notifications = new Notifications(t);
    this.templates = new Templates(t);
    this.subscribers = new Subscribers(t);
    this.channels = new Channels(t);
    this.apiKeys = new ApiKeys(t);
    this.inboxEmbed = new InboxEmbed(t);
    this.analytics = new Analytics(t);
    this.workflows = new Workflows(t);
    this.workflowRuns = new WorkflowRuns(t);
    this.webhooks = new Webhooks(t);
    this.domains = new Domains(t);
    this.suppressions = new Suppressions(t);
    this.topics = new Topics(t);
    this.preferenceCategories = new PreferenceCategories(t);
    this.preferenceCenter = new PreferenceCenter(t);
    this.broadcasts = new Broadcasts(t);
    this.deliverySettings = new DeliverySettingsResource(t);
    this.retentionSettings = new RetentionSettingsResource(t);
    this.subscription = new Subscription(t);
    this.plans = new Plans(t);
    this.me = new Me(t);
    this.teamMembers = new TeamMembers(t);
    this.teamAuditLogs = new TeamAuditLogs(t);
    this.auth = new Auth(t);
    this.providers = new Providers(t);
    this.auditLogs = new AuditLogs(t);
    this.blockedDomains = new BlockedDomains(t);
    this.tenants = new Tenants(t);
    this.deadLetters = new DeadLetters(t);
  }
}
