// The notifications-over-time chart (uPlot): created, delivered and failed per hour or day, sized
// to its box (fixed height, so the page never jumps), with a text summary for screen readers.
import { useEffect, useRef } from "preact/hooks";
import uPlot from "uplot";
import type { AnalyticsTimeseries } from "../../../client";

const SERIES = [
  { key: "total", label: "Created", stroke: "#3558d4" },
  { key: "delivered", label: "Delivered", stroke: "#1d7f4e" },
  { key: "failed", label: "Failed", stroke: "#c2362b" },
] as const;

/** styles.css gives .chart-canvas and .chart-empty the same height, so data arriving moves nothing. */
const CHART_HEIGHT = 240;

export function TimeseriesChart({ series }: { series: AnalyticsTimeseries }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = box.current!;
    const xs = series.points.map((p) => Date.parse(p.timestamp) / 1000);
    const data: uPlot.AlignedData = [xs, ...SERIES.map((s) => series.points.map((p) => p[s.key]))];
    const chart = new uPlot(
      {
        width: Math.max(el.clientWidth, 200),
        height: CHART_HEIGHT,
        scales: { x: { time: true }, y: { range: (_u, _min, max) => [0, Math.max(1, max)] } },
        series: [{}, ...SERIES.map((s) => ({ label: s.label, stroke: s.stroke, width: 2, points: { show: false } }))],
        axes: [{}, { size: 50 }],
        legend: { live: false },
        cursor: { drag: { x: false, y: false } },
      },
      data,
      el,
    );
    const resize = new ResizeObserver(() => chart.setSize({ width: Math.max(el.clientWidth, 200), height: CHART_HEIGHT }));
    resize.observe(el);
    return () => {
      resize.disconnect();
      chart.destroy();
    };
  }, [series]);

  const sum = (key: (typeof SERIES)[number]["key"]) => series.points.reduce((n, p) => n + p[key], 0);
  const summary =
    `Notifications per ${series.granularity} over ${series.period}: ` + SERIES.map((s) => `${sum(s.key)} ${s.label.toLowerCase()}`).join(", ");
  return (
    <figure class="chart">
      <div ref={box} class="chart-canvas" role="img" aria-label={summary} />
      <figcaption class="visually-hidden">{summary}</figcaption>
    </figure>
  );
}
