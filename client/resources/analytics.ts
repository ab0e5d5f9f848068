// nms.analytics: counters (total, sent, delivered, failed, bounced, suppressed) for a period,
// per channel, over time and per template (SPEC "Analytics").
import type { RequestOptions, Transport } from "../transport.js";
import type {
  AnalyticsChannelRow,
  AnalyticsOverview,
  AnalyticsPeriodParams,
  AnalyticsTemplateRow,
  AnalyticsTemplatesParams,
  AnalyticsTimeseries,
  AnalyticsTimeseriesParams,
} from "../types.js";

export class Analytics {
  constructor(private readonly transport: Transport) {}

  overview(params: AnalyticsPeriodParams = {}, opts?: RequestOptions): Promise<AnalyticsOverview> {
    return this.transport.data({ method: "GET", path: "/v1/analytics/overview", query: params }, opts);
  }

  channels(params: AnalyticsPeriodParams = {}, opts?: RequestOptions): Promise<AnalyticsChannelRow[]> {
    return this.transport.data({ method: "GET", path: "/v1/analytics/channels", query: params }, opts);
  }

  timeseries(params: AnalyticsTimeseriesParams = {}, opts?: RequestOptions): Promise<AnalyticsTimeseries> {
    return this.transport.data({ method: "GET", path: "/v1/analytics/timeseries", query: params }, opts);
  }

  /** Top templates by total, descending. */
  templates(params: AnalyticsTemplatesParams = {}, opts?: RequestOptions): Promise<AnalyticsTemplateRow[]> {
    return this.transport.data({ method: "GET", path: "/v1/analytics/templates", query: params }, opts);
  }
}
