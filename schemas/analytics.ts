// TypeBox schemas of the analytics routes (SPEC "Analytics", DESIGN.md 6): period/granularity
// queries and the counter bodies (total, sent, delivered, failed, bounced, suppressed, opened, clicked, complained).
import { t } from "elysia";

const Period = t.Union([t.Literal("1h"), t.Literal("24h"), t.Literal("7d"), t.Literal("30d")], { description: "default 24h" });

export const PeriodQuery = t.Object({ period: t.Optional(Period) });
export const TimeseriesQuery = t.Object({
  period: t.Optional(
    t.Union([t.Literal("1h"), t.Literal("24h"), t.Literal("7d"), t.Literal("30d")], {
      description: "default 24h; 1h is the last hour minute by minute (granularity minute)",
    }),
  ),
  granularity: t.Optional(
    t.Union([t.Literal("minute"), t.Literal("hour"), t.Literal("day")], {
      description: "minute for 1h (and only there), hour for 24h, day otherwise, when omitted",
    }),
  ),
});
export const TemplatesQuery = t.Object({ period: t.Optional(Period), limit: t.Optional(t.String()) });

const counters = {
  total: t.Integer(),
  sent: t.Integer(),
  delivered: t.Integer(),
  failed: t.Integer(),
  bounced: t.Integer(),
  suppressed: t.Integer(),
  opened: t.Integer({ description: "notifications opened at least once (tracking pixel, SendGrid open, WhatsApp read)" }),
  clicked: t.Integer({ description: "notifications with at least one tracked link click" }),
  complained: t.Integer({ description: "notifications reported as spam" }),
};

export const Overview = t.Object({ period: t.String(), ...counters, delivery_rate: t.Number({ description: "delivered / sent, 0 when nothing was sent" }) });
export const ChannelRow = t.Object({ channel: t.String(), ...counters });
export const TimeseriesBody = t.Object({
  period: t.String(),
  granularity: t.String(),
  points: t.Array(t.Object({ timestamp: t.String(), ...counters })),
});
export const TemplateRow = t.Object({ template: t.String(), ...counters });

const COUNTS = { total: 120, sent: 110, delivered: 104, failed: 4, bounced: 2, suppressed: 6, opened: 61, clicked: 18, complained: 0 };
const NONE = { total: 0, sent: 0, delivered: 0, failed: 0, bounced: 0, suppressed: 0, opened: 0, clicked: 0, complained: 0 };

export const OverviewResponse = t.Object({ data: Overview }, { examples: [{ data: { period: "24h", ...COUNTS, delivery_rate: 0.9455 } }] });
export const ChannelRowsResponse = t.Object(
  { data: t.Array(ChannelRow) },
  { examples: [{ data: [{ channel: "email", ...COUNTS }, { channel: "sms", ...NONE }] }] },
);
export const TimeseriesResponse = t.Object(
  { data: TimeseriesBody },
  { examples: [{ data: { period: "24h", granularity: "hour", points: [{ timestamp: "2025-08-01T12:00:00.000Z", ...COUNTS }] } }] },
);
export const TemplateRowsResponse = t.Object({ data: t.Array(TemplateRow) }, { examples: [{ data: [{ template: "welcome", ...COUNTS }] }] });
