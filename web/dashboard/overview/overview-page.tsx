// Overview: the analytics counters of a period, notifications over time (chart), and the same
// counters by channel and by template (GET /v1/analytics/*), for the chosen environment.
import type { AnalyticsChannelRow, AnalyticsOverview, AnalyticsTemplateRow, AnalyticsTimeseries } from "../../../client";
import { useDashboard } from "../app/context";
import type { PageProps } from "../app/section";
import { Link } from "../ui/link";
import { PageHeader } from "../ui/page-header";
import { Async, Empty } from "../ui/states";
import { useLoad } from "../ui/use-load";
import { TimeseriesChart } from "./timeseries-chart";
import { Choice } from "../ui/choice";
import { TableHead } from "../ui/table-head";

const PERIODS = [
  { value: "1h", label: "Last hour" },
  { value: "24h", label: "Last 24 hours" },
  { value: "7d", label: "Last 7 days" },
  { value: "30d", label: "Last 30 days" },
] as const;
type Period = (typeof PERIODS)[number]["value"];

const COUNTERS = ["total", "sent", "delivered", "failed", "bounced", "suppressed"] as const;
const COUNTER_LABELS: Record<(typeof COUNTERS)[number], string> = {
  total: "Created",
  sent: "Sent",
  delivered: "Delivered",
  failed: "Failed",
  bounced: "Bounced",
  suppressed: "Suppressed",
};

interface OverviewData {
  overview: AnalyticsOverview;
  channels: AnalyticsChannelRow[];
  series: AnalyticsTimeseries;
  templates: AnalyticsTemplateRow[];
}

export function OverviewPage({ query }: PageProps) {
  const { api, go } = useDashboard();
  const raw = query.get("period");
  const period: Period = PERIODS.some((p) => p.value === raw) ? (raw as Period) : "24h";
  const load = useLoad<OverviewData>(
    async () => {
      const [overview, channels, series, templates] = await Promise.all([
        api.analytics.overview({ period }),
        api.analytics.channels({ period }),
        api.analytics.timeseries({ period }),
        api.analytics.templates({ period, limit: 10 }),
      ]);
      return { overview, channels, series, templates };
    },
    [period],
  );

  return (
    <>
      <PageHeader title="Overview">
        <label for="period">Period</label>
        <Choice id="period" value={period} choices={PERIODS.map((p) => p.value)} labels={Object.fromEntries(PERIODS.map((p) => [p.value, p.label]))} onChange={(v) => go("/", { period: v })} />
      </PageHeader>
      <Async load={load} label="Loading analytics" rows={6}>
        {(d) => (
          <>
            <section aria-labelledby="counters-title">
              <h2 id="counters-title" class="visually-hidden">
                Counters
              </h2>
              <dl class="counters">
                {COUNTERS.map((c) => (
                  <div key={c} class={`counter counter-${c}`}>
                    <dt>{COUNTER_LABELS[c]}</dt>
                    <dd>{d.overview[c].toLocaleString()}</dd>
                  </div>
                ))}
                <div class="counter">
                  <dt>Delivery rate</dt>
                  <dd>{(d.overview.delivery_rate * 100).toFixed(1)}%</dd>
                </div>
              </dl>
            </section>
            <section aria-labelledby="chart-title">
              <h2 id="chart-title">Over time{period === "1h" ? " (the last hour, per minute)" : ""}</h2>
              {d.series.points.some((p) => p.total > 0) ? (
                <TimeseriesChart series={d.series} />
              ) : (
                <div class="chart-empty">
                  <Empty title={`No notifications in this period`}>
                    Send one with <code>POST /v1/notifications</code> or the test button of a <Link to="/channels">channel</Link>.
                  </Empty>
                </div>
              )}
            </section>
            <div class="two-columns">
              <section aria-labelledby="by-channel-title">
                <h2 id="by-channel-title">By channel</h2>
                {d.channels.length ? <CounterTable rows={d.channels.map((r) => ({ name: r.channel, ...r }))} first="Channel" /> : <Empty title="No channel sent anything in this period" />}
              </section>
              <section aria-labelledby="by-template-title">
                <h2 id="by-template-title">Top templates</h2>
                {d.templates.length ? <CounterTable rows={d.templates.map((r) => ({ name: r.template, ...r }))} first="Template" /> : <Empty title="No template was used in this period" />}
              </section>
            </div>
          </>
        )}
      </Async>
    </>
  );
}

function CounterTable({ rows, first }: { rows: ({ name: string } & Record<(typeof COUNTERS)[number], number>)[]; first: string }) {
  return (
    <table>
      <TableHead columns={[first, ...COUNTERS.map((c) => ({ label: COUNTER_LABELS[c], num: true }))]} />
      <tbody>
        {rows.map((r) => (
          <tr key={r.name}>
            <th scope="row">{r.name}</th>
            {COUNTERS.map((c) => (
              <td key={c} class="num">
                {r[c].toLocaleString()}
              </td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}
