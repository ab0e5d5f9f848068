// /v1/analytics/* (SPEC "Analytics", DESIGN.md 6): overview, channels, timeseries and top templates,
// read from the rollups (store/analytics.ts, engagement counters included), so their cost does not grow with notifications.
import { Elysia } from "elysia";
import {
  ChannelRowsResponse,
  OverviewResponse,
  PeriodQuery,
  TemplateRowsResponse,
  TemplatesQuery,
  TimeseriesQuery,
  TimeseriesResponse,
} from "../../schemas/analytics";
import { byChannel, byTemplate, overview, periodStart, timeseries } from "../../store/analytics";
import { parseLimit } from "../pagination";
import { lastHourStart, minuteSeries } from "../../store/recent-activity";
import { validationFailed } from "../../basics/errors";
import { accessPlugin } from "../plugins/access";
import { readOnReplica } from "../plugins/read-routing";
import { errors, KEY_ERRORS } from "../route-docs";

export const analyticsRoutes = new Elysia({ name: "routes.analytics" })
  .use(accessPlugin)
  .get(
    "/v1/analytics/overview",
    async ({ auth, query }) => {
      const period = query.period ?? "24h";
      const c = await readOnReplica(auth, () => overview(auth.tenantId, auth.environment, periodStart(period)));
      const delivery_rate = c.sent > 0 ? Math.round((c.delivered / c.sent) * 10_000) / 10_000 : 0;
      return { data: { period, ...c, delivery_rate } };
    },
    { access: "secret-read", query: PeriodQuery, response: { 200: OverviewResponse, ...errors(KEY_ERRORS, 422) }, detail: { summary: "Counters for a period", description: "The period's totals by status for the environment.", tags: ["analytics"] } },
  )
  .get(
    "/v1/analytics/channels",
    async ({ auth, query }) => {
      const period = query.period ?? "24h";
      return { data: await readOnReplica(auth, () => byChannel(auth.tenantId, auth.environment, periodStart(period))) };
    },
    { access: "secret-read", query: PeriodQuery, response: { 200: ChannelRowsResponse, ...errors(KEY_ERRORS, 422) }, detail: { summary: "Counters per channel", description: "The same counters as the overview, one row per channel.", tags: ["analytics"] } },
  )
  .get(
    "/v1/analytics/timeseries",
    async ({ auth, query }) => {
      const period = query.period ?? "24h";
      const granularity = query.granularity ?? (period === "1h" ? "minute" : period === "24h" ? "hour" : "day");
      // the last hour is drawn minute by minute, which only the last hour offers
      if ((period === "1h") !== (granularity === "minute")) {
        throw validationFailed({ granularity: [period === "1h" ? "must be minute for period 1h" : "minute is offered for period 1h only"] });
      }
      const rows = await readOnReplica(auth, () =>
        granularity === "minute"
          ? minuteSeries(auth.tenantId, auth.environment, lastHourStart())
          : timeseries(auth.tenantId, auth.environment, periodStart(period), granularity),
      );
      const points = rows.map(({ bucket, ...c }) => ({ timestamp: new Date(bucket).toISOString(), ...c }));
      return { data: { period, granularity, points } };
    },
    {
      access: "secret-read",
      query: TimeseriesQuery,
      response: { 200: TimeseriesResponse, ...errors(KEY_ERRORS, 422) },
      detail: { summary: "Counters per minute (the last hour), hour or day", description: "A time series of the counters, one bucket per minute, hour or day.", tags: ["analytics"] },
    },
  )
  .get(
    "/v1/analytics/templates",
    async ({ auth, query }) => {
      const period = query.period ?? "24h";
      const limit = parseLimit(query.limit, 10, 100);
      return { data: await readOnReplica(auth, () => byTemplate(auth.tenantId, auth.environment, periodStart(period), limit)) };
    },
    { access: "secret-read", query: TemplatesQuery, response: { 200: TemplateRowsResponse, ...errors(KEY_ERRORS, 422) }, detail: { summary: "Top templates by total", description: "Templates ranked by how many notifications used them in the period, with their counters.", tags: ["analytics"] } },
  );
