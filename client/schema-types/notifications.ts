// Generated from schemas/notifications.ts by scripts/generate-client-types.ts: do not edit. The types
// Static<typeof Schema> gives for each TypeBox schema the server validates with, so @nms/client needs neither.

export type AcceptedNotification = {
  id: string;
  channel: string;
  recipient: string;
  status: string;
  created_at: string;
};

export type AcceptedNotificationResponse = {
  data: {
    id: string;
    channel: string;
    recipient: string;
    status: string;
    created_at: string;
  };
};

export type Attempt = {
  id: string;
  attempt_number: number;
  /** success or failure */
  status: string;
  provider: string | null;
  provider_response: any;
  error: any;
  duration_ms: number | null;
  created_at: string | null;
};

export type AttemptListResponse = {
  data: {
    id: string;
    attempt_number: number;
    /** success or failure */
    status: string;
    provider: string | null;
    provider_response: any;
    error: any;
    duration_ms: number | null;
    created_at: string | null;
  }[];
};

/** email, whatsapp, sms, in_app or push */
export type ChannelName = "email" | "whatsapp" | "sms" | "in_app" | "push";

export type CreateNotificationBody = {
  /** email, whatsapp, sms, in_app or push */
  channel: "email" | "whatsapp" | "sms" | "in_app" | "push";
  /** Recipient; alias of `recipient` */
  to?: string;
  recipient?: string;
  /** Template slug; alias of `template_id` */
  template?: string;
  template_id?: string;
  data?: { [key: string]: any };
  payload?: { [key: string]: any };
  metadata?: { [key: string]: any };
  /** Preference category checked before sending */
  category?: string;
  /** An OTP or security alert: quiet hours and frequency caps of the delivery policy do not apply (docs/delivery-policy.md) */
  critical?: boolean;
  /** high (one-time codes, security alerts), normal (the default) or low (digests, marketing, broadcasts): high-priority messages never queue behind normal or low ones */
  priority?: "high" | "normal" | "low";
  /** Locale to render the template in when the subscriber has none (pt_BR, pt, en, en-US); docs/localization.md */
  locale?: string;
};

export type ListNotificationsQuery = {
  limit?: string;
  cursor?: string;
  status?: "pending" | "scheduled" | "sent" | "delivered" | "failed" | "bounced" | "suppressed";
  /** email, whatsapp, sms, in_app or push */
  channel?: "email" | "whatsapp" | "sms" | "in_app" | "push";
  /** Exactly this address (email addresses compare case-insensitively, phones in E.164; in_app: the subscriber id or external_id the send named) */
  recipient?: string;
  /** A subscriber's external_id or id: every notification to that subscriber, on any channel (an unknown one gives an empty list) */
  subscriber?: string;
  /** Template slug */
  template?: string;
  /** Workflow slug: the notifications its runs' steps created */
  workflow?: string;
  /** ISO 8601 timestamp: created at or after it */
  created_after?: string;
  /** ISO 8601 timestamp: created before it */
  created_before?: string;
};

export type NotificationDetail = {
  id: string;
  channel: string;
  recipient: string | null;
  status: string;
  template_id: string | null;
  subscriber_id: string | null;
  category: string | null;
  /** high (one-time codes, security alerts), normal (the default) or low (digests, marketing, broadcasts): high-priority messages never queue behind normal or low ones */
  priority: "high" | "normal" | "low";
  locale: string | null;
  data: any;
  metadata: any;
  error: any;
  provider: string | null;
  suppressed_reason: string | null;
  /** quiet hours and frequency caps do not apply */
  critical?: boolean;
  scheduled_for?: string | null;
  /** Why the send was questionable though it went out, e.g. domain_unhealthy (the From domain's DKIM or SPF check was failing) */
  warnings: {
    code: string;
    message: string;
  }[];
  created_at: string | null;
  updated_at: string | null;
  sent_at: string | null;
  delivered_at: string | null;
  failed_at: string | null;
  bounced_at: string | null;
  opened_at: string | null;
  clicked_at: string | null;
  complained_at: string | null;
  content: {
    /** email */
    subject?: string;
    /** push and in_app */
    title?: string;
    /** the text: email's plain-text part, the SMS or WhatsApp message, the push or inbox body */
    body?: string;
    /** email */
    html_body?: string;
    /** the provider's own template that was sent instead (SendGrid d-...) */
    provider_template_id?: string;
  } | null;
  workflow_step: {
    run_id: string;
    /** zero-based index of the step in the run's workflow version */
    step: number;
  } | null;
  attempts: {
    id: string;
    attempt_number: number;
    /** success or failure */
    status: string;
    provider: string | null;
    provider_response: any;
    error: any;
    duration_ms: number | null;
    created_at: string | null;
  }[];
};

export type NotificationDetailResponse = {
  data: {
    id: string;
    channel: string;
    recipient: string | null;
    status: string;
    template_id: string | null;
    subscriber_id: string | null;
    category: string | null;
    /** high (one-time codes, security alerts), normal (the default) or low (digests, marketing, broadcasts): high-priority messages never queue behind normal or low ones */
    priority: "high" | "normal" | "low";
    locale: string | null;
    data: any;
    metadata: any;
    error: any;
    provider: string | null;
    suppressed_reason: string | null;
    /** quiet hours and frequency caps do not apply */
    critical?: boolean;
    scheduled_for?: string | null;
    /** Why the send was questionable though it went out, e.g. domain_unhealthy (the From domain's DKIM or SPF check was failing) */
    warnings: {
      code: string;
      message: string;
    }[];
    created_at: string | null;
    updated_at: string | null;
    sent_at: string | null;
    delivered_at: string | null;
    failed_at: string | null;
    bounced_at: string | null;
    opened_at: string | null;
    clicked_at: string | null;
    complained_at: string | null;
    content: {
      /** email */
      subject?: string;
      /** push and in_app */
      title?: string;
      /** the text: email's plain-text part, the SMS or WhatsApp message, the push or inbox body */
      body?: string;
      /** email */
      html_body?: string;
      /** the provider's own template that was sent instead (SendGrid d-...) */
      provider_template_id?: string;
    } | null;
    workflow_step: {
      run_id: string;
      /** zero-based index of the step in the run's workflow version */
      step: number;
    } | null;
    attempts: {
      id: string;
      attempt_number: number;
      /** success or failure */
      status: string;
      provider: string | null;
      provider_response: any;
      error: any;
      duration_ms: number | null;
      created_at: string | null;
    }[];
  };
};

export type NotificationIdParams = {
  id: string;
};

export type NotificationListItem = {
  id: string;
  channel: string;
  recipient: string | null;
  /** pending, scheduled (held by quiet hours), sent, delivered, failed, bounced, suppressed */
  status: string;
  template_id: string | null;
  subscriber_id: string | null;
  workflow_step: {
    run_id: string;
    /** zero-based index of the step in the run's workflow version */
    step: number;
  } | null;
  /** only on a notification quiet hours held: held (status scheduled) until this time, kept after its release */
  scheduled_for?: string;
  created_at: string | null;
};

export type NotificationListResponse = {
  data: {
    id: string;
    channel: string;
    recipient: string | null;
    /** pending, scheduled (held by quiet hours), sent, delivered, failed, bounced, suppressed */
    status: string;
    template_id: string | null;
    subscriber_id: string | null;
    workflow_step: {
      run_id: string;
      /** zero-based index of the step in the run's workflow version */
      step: number;
    } | null;
    /** only on a notification quiet hours held: held (status scheduled) until this time, kept after its release */
    scheduled_for?: string;
    created_at: string | null;
  }[];
  meta: {
    cursor: string | null;
    has_more: boolean;
  };
};

export type PageMeta = {
  cursor: string | null;
  has_more: boolean;
};

/** high (one-time codes, security alerts), normal (the default) or low (digests, marketing, broadcasts): high-priority messages never queue behind normal or low ones */
export type PriorityLiteral = "high" | "normal" | "low";

/** The rendered message as the last attempt sent it; null before any attempt and after erasure */
export type SentContent = {
  /** email */
  subject?: string;
  /** push and in_app */
  title?: string;
  /** the text: email's plain-text part, the SMS or WhatsApp message, the push or inbox body */
  body?: string;
  /** email */
  html_body?: string;
  /** the provider's own template that was sent instead (SendGrid d-...) */
  provider_template_id?: string;
};

/** The workflow run and step that created this notification; null for a notification sent directly */
export type WorkflowStepRef = {
  run_id: string;
  /** zero-based index of the step in the run's workflow version */
  step: number;
};
