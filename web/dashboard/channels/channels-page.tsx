// Channels: every channel of the API with the provider configured for it in this environment, or
// what it does without one, as GET /v1/providers says (built_in): in_app always has the built-in
// inbox, sandbox the sandbox provider; the rest refuse production sends (422 channel_not_configured).
import type { ChannelName, ProviderDescription } from "../../../client";
import { useDashboard } from "../app/context";
import { Badge, Time } from "../ui/format";
import { Link } from "../ui/link";
import { PageHeader } from "../ui/page-header";
import { Async } from "../ui/states";
import { useLoad } from "../ui/use-load";
import { CHANNEL_LABELS, CHANNELS } from "../vocabulary";
import { TableHead } from "../ui/table-head";

/** The provider a channel without configuration uses in this environment, per the API. */
export function builtInFor(providers: ProviderDescription[], channel: ChannelName, environment: string): string | null {
  return providers.find((p) => p.built_in?.channels.includes(channel) && p.built_in.environments.includes(environment))?.name ?? null;
}

export function ChannelsPage() {
  const { api, environment } = useDashboard();
  const load = useLoad(async () => {
    const [configs, providers] = await Promise.all([api.channels.list(), api.providers.list()]);
    return { configs, providers };
  }, []);
  return (
    <>
      <PageHeader title="Channels" />
      <p class="lead">
        One provider per channel and environment. In-app needs none: it delivers to the built-in inbox in both environments.{" "}
        {environment === "sandbox"
          ? "In sandbox the other channels without configuration deliver through the built-in sandbox provider (recipients starting with fail fail, bounce bounce)."
          : "In production the other channels without configuration refuse notifications (422 channel_not_configured)."}
      </p>
      <Async load={load} label="Loading channels" rows={5}>
        {({ configs, providers }) => (
          <div class="table-scroll">
            <table class="channels">
              <TableHead columns={["Channel", "Provider", "State", "Stored credentials", "Updated"]} />
              <tbody>
                {CHANNELS.map((c) => {
                  const cfg = configs.find((x) => x.channel === c);
                  const builtIn = builtInFor(providers, c, environment);
                  return (
                    <tr key={c} data-channel={c}>
                      <td>
                        <Link to={`/channels/${c}`}>{CHANNEL_LABELS[c]}</Link>
                      </td>
                      <td>
                        {cfg ? (
                          cfg.provider
                        ) : builtIn ? (
                          <>
                            {builtIn} <span class="muted">(built in, no configuration needed)</span>
                          </>
                        ) : (
                          <span class="muted">not configured: sends are refused</span>
                        )}
                      </td>
                      <td>
                        {cfg ? (
                          <Badge value={cfg.active ? "active" : "draft"}>{cfg.active ? "active" : "inactive"}</Badge>
                        ) : builtIn ? (
                          <Badge value="active">delivers</Badge>
                        ) : (
                          <Badge value="failed">refuses sends</Badge>
                        )}
                      </td>
                      <td>{cfg?.credential_keys.length ? cfg.credential_keys.map((k) => <code key={k}>{k} </code>) : <span class="muted">none</span>}</td>
                      <td>
                        <Time iso={cfg?.updated_at} fallback="" />
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
        )}
      </Async>
    </>
  );
}
