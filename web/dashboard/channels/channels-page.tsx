// Channels: every channel of the API with the provider configured for it in this environment
// (or none), each opening its form.
import { useDashboard } from "../app/context";
import { Badge, Time } from "../ui/format";
import { Link } from "../ui/link";
import { PageHeader } from "../ui/page-header";
import { Async } from "../ui/states";
import { useLoad } from "../ui/use-load";
import { CHANNEL_LABELS, CHANNELS } from "../vocabulary";
import { TableHead } from "../ui/table-head";

export function ChannelsPage() {
  const { api, environment } = useDashboard();
  const load = useLoad(() => api.channels.list(), []);
  return (
    <>
      <PageHeader title="Channels" />
      <p class="lead">
        One provider per channel and environment.{" "}
        {environment === "sandbox"
          ? "In sandbox a channel without configuration delivers through the built-in sandbox provider (recipients starting with fail fail, bounce bounce)."
          : "In production a channel without configuration refuses notifications (422 channel_not_configured)."}
      </p>
      <Async load={load} label="Loading channels" rows={5}>
        {(configs) => (
          <table>
            <TableHead columns={["Channel", "Provider", "State", "Stored credentials", "Updated"]} />
            <tbody>
              {CHANNELS.map((c) => {
                const cfg = configs.find((x) => x.channel === c);
                return (
                  <tr key={c}>
                    <td>
                      <Link to={`/channels/${c}`}>{CHANNEL_LABELS[c]}</Link>
                    </td>
                    <td>{cfg ? cfg.provider : <span class="muted">not configured</span>}</td>
                    <td>{cfg ? <Badge value={cfg.active ? "active" : "draft"}>{cfg.active ? "active" : "inactive"}</Badge> : null}</td>
                    <td>{cfg?.credential_keys.length ? cfg.credential_keys.map((k) => <code key={k}>{k} </code>) : <span class="muted">none</span>}</td>
                    <td>
                      <Time iso={cfg?.updated_at} fallback="" />
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        )}
      </Async>
    </>
  );
}
