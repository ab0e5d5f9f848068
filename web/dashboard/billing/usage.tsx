// The period's usage against the plan: a meter for notifications (warning from 80 %, full at the
// limit) and the resources a plan counts, each "used of limit".
import type { Subscription } from "../../../client";
import { count } from "./money";

export function NotificationsMeter({ sub }: { sub: Subscription }) {
  const used = sub.usage.notifications_this_period;
  const limit = sub.limits.notifications_per_month;
  const pct = limit ? Math.min(100, Math.round((used / limit) * 100)) : null;
  const tone = pct === null ? "" : pct >= 100 ? "full" : pct >= 80 ? "warn" : "";
  return (
    <div class={`usage ${tone}`}>
      <p id="usage-label" class="usage-label">
        Production notifications this period
      </p>
      {limit !== null ? <meter aria-labelledby="usage-label usage-text" min={0} max={limit} low={limit * 0.8} high={limit * 0.99} optimum={0} value={Math.min(used, limit)} /> : null}
      <p id="usage-text" class="usage-text">
        {limit === null ? `${count(used)} notifications, no limit on this plan` : `${count(used)} of ${count(limit)} (${pct} %)`}
        {pct !== null && pct >= 100 ? " · new production notifications are refused until the next period or an upgrade" : null}
      </p>
    </div>
  );
}

const RESOURCES = [
  ["webhooks", "Webhooks"],
  ["domains", "Sending domains"],
  ["team_members", "Team members"],
  ["subscribers", "Subscribers"],
] as const;

export function ResourceUsage({ sub }: { sub: Subscription }) {
  return (
    <table class="resource-usage">
      <caption class="visually-hidden">Resources the plan counts (production)</caption>
      <tbody>
        {RESOURCES.map(([key, label]) => (
          <tr key={key}>
            <th scope="row">{label}</th>
            <td>{sub.limits[key] === null ? `${count(sub.usage[key])} (no limit)` : `${count(sub.usage[key])} of ${count(sub.limits[key])}`}</td>
          </tr>
        ))}
        <tr>
          <th scope="row">API requests per minute, per key</th>
          <td>{count(sub.limits.api_requests_per_minute, "the service default")}</td>
        </tr>
      </tbody>
    </table>
  );
}
