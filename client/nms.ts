// The Nms client: one transport (credentials, retries, errors) shared by a namespace per
// resource. A new resource is one file in resources/ plus one line here.
import { Transport, type NmsOptions } from "./transport";
import { Analytics } from "./resources/analytics";
import { ApiKeys } from "./resources/api-keys";
import { AuditLogs } from "./resources/audit-logs";
import { BlockedDomains } from "./resources/blocked-domains";
import { Channels } from "./resources/channels";
import { DeadLetters } from "./resources/dead-letters";
import { Domains } from "./resources/domains";
import { InboxEmbed } from "./resources/inbox-embed";
import { Me } from "./resources/me";
import { Notifications } from "./resources/notifications";
import { Subscribers } from "./resources/subscribers";
import { Suppressions } from "./resources/suppressions";
import { TeamMembers } from "./resources/team-members";
import { Templates } from "./resources/templates";
import { Tenants } from "./resources/tenants";
import { Auth } from "./resources/auth";
import { Providers } from "./resources/providers";
import { TeamAuditLogs } from "./resources/team-audit-logs";
import { Webhooks } from "./resources/webhooks";
import { WorkflowRuns } from "./resources/workflow-runs";
import { Workflows } from "./resources/workflows";
import { Plans } from "./resources/plans";
import { Subscription } from "./resources/subscription";

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
