// Generated from schemas/analytics.ts by scripts/generate-client-types.ts: do not edit. The types
// Static<typeof Schema> gives for each TypeBox schema the server validates with, so @nms/client needs neither.

export type ChannelRow = {
  channel: string;
  total: number;
  sent: number;
  delivered: number;
  failed: number;
  bounced: number;
  suppressed: number;
  /** notifications opened at least once (tracking pixel, SendGrid open, WhatsApp read) */
  opened: number;
  /** notifications with at least one tracked link click */
  clicked: number;
  /** notifications reported as spam */
  complained: number;
};

export type ChannelRowsResponse = {
  data: {
    channel: string;
    total: number;
    sent: number;
    delivered: number;
    failed: number;
    bounced: number;
    suppressed: number;
    /** notifications opened at least once (tracking pixel, SendGrid open, WhatsApp read) */
    opened: number;
    /** notifications with at least one tracked link click */
    clicked: number;
    /** notifications reported as spam */
    complained: number;
  }[];
};

export type Overview = {
  period: string;
  total: number;
  sent: number;
  delivered: number;
  failed: number;
  bounced: number;
  suppressed: number;
  /** notifications opened at least once (tracking pixel, SendGrid open, WhatsApp read) */
  opened: number;
  /** notifications with at least one tracked link click */
  clicked: number;
  /** notifications reported as spam */
  complained: number;
  /** delivered / sent, 0 when nothing was sent */
  delivery_rate: number;
};

export type OverviewResponse = {
  data: {
    period: string;
    total: number;
    sent: number;
    delivered: number;
    failed: number;
    bounced: number;
    suppressed: number;
    /** notifications opened at least once (tracking pixel, SendGrid open, WhatsApp read) */
    opened: number;
    /** notifications with at least one tracked link click */
    clicked: number;
    /** notifications reported as spam */
    complained: number;
    /** delivered / sent, 0 when nothing was sent */
    delivery_rate: number;
  };
};

export type PeriodQuery = {
  /** default 24h */
  period?: "1h" | "24h" | "7d" | "30d";
};

export type TemplateRow = {
  template: string;
  total: number;
  sent: number;
  delivered: number;
  failed: number;
  bounced: number;
  suppressed: number;
  /** notifications opened at least once (tracking pixel, SendGrid open, WhatsApp read) */
  opened: number;
  /** notifications with at least one tracked link click */
  clicked: number;
  /** notifications reported as spam */
  complained: number;
};

export type TemplateRowsResponse = {
  data: {
    template: string;
    total: number;
    sent: number;
    delivered: number;
    failed: number;
    bounced: number;
    suppressed: number;
    /** notifications opened at least once (tracking pixel, SendGrid open, WhatsApp read) */
    opened: number;
    /** notifications with at least one tracked link click */
    clicked: number;
    /** notifications reported as spam */
    complained: number;
  }[];
};

export type TemplatesQuery = {
  /** default 24h */
  period?: "1h" | "24h" | "7d" | "30d";
  limit?: string;
};

export type TimeseriesBody = {
  period: string;
  granularity: string;
  points: {
    timestamp: string;
    total: number;
    sent: number;
    delivered: number;
    failed: number;
    bounced: number;
    suppressed: number;
    /** notifications opened at least once (tracking pixel, SendGrid open, WhatsApp read) */
    opened: number;
    /** notifications with at least one tracked link click */
    clicked: number;
    /** notifications reported as spam */
    complained: number;
  }[];
};

export type TimeseriesQuery = {
  /** default 24h; 1h is the last hour minute by minute (granularity minute) */
  period?: "1h" | "24h" | "7d" | "30d";
  /** minute for 1h (and only there), hour for 24h, day otherwise, when omitted */
  granularity?: "minute" | "hour" | "day";
};

export type TimeseriesResponse = {
  data: {
    period: string;
    granularity: string;
    points: {
      timestamp: string;
      total: number;
      sent: number;
      delivered: number;
      failed: number;
      bounced: number;
      suppressed: number;
      /** notifications opened at least once (tracking pixel, SendGrid open, WhatsApp read) */
      opened: number;
      /** notifications with at least one tracked link click */
      clicked: number;
      /** notifications reported as spam */
      complained: number;
    }[];
  };
};
