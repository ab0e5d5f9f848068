// A domain's alerts: raised when its SPF, DKIM or DMARC check stopped passing, open ones first, and
// when each was resolved.
import { useDashboard } from "../app/context";
import { Badge, Time } from "../ui/format";
import { Async, Empty } from "../ui/states";
import { TableHead } from "../ui/table-head";
import { useLoad } from "../ui/use-load";

export function DomainAlerts({ domainId, round }: { domainId: string; round: number }) {
  const { api } = useDashboard();
  const load = useLoad(async () => await api.domains.alerts({ domain_id: domainId, limit: 50 }), [domainId, round]);
  return (
    <section aria-labelledby="alerts-title">
      <h2 id="alerts-title">Alerts</h2>
      <Async load={load} label="Loading alerts" rows={2} isEmpty={(page) => page.data.length === 0} empty={<Empty title="No alerts">A check that stops passing raises one here.</Empty>}>
        {(page) => (
          <table class="domain-alerts">
            <TableHead columns={["Check", "Status", "What was found", "Raised", "Resolved"]} />
            <tbody>
              {page.data.map((a) => (
                <tr key={a.id}>
                  <td>{a.check.toUpperCase()}</td>
                  <td>
                    <Badge value={a.resolved_at ? "pass" : a.status}>{a.resolved_at ? "resolved" : a.status}</Badge>
                  </td>
                  <td>{a.message}</td>
                  <td>
                    <Time iso={a.created_at} />
                  </td>
                  <td>
                    <Time iso={a.resolved_at} fallback="open" />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </Async>
    </section>
  );
}
