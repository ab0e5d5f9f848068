// A configured channel's backup providers (docs/routing.md): each provider's circuit breaker as the API
// reports it (GET /v1/channels/:channel providers), and the failover list edited and saved with PUT.
import { useState } from "preact/hooks";
import type { ChannelConfig, ChannelName, ProviderDescription } from "../../../client";
import { useDashboard } from "../app/context";
import { Field, fieldErrors } from "../ui/field";
import { Async, ErrorNotice } from "../ui/states";
import { useAction, useLoad } from "../ui/use-load";

const MAX_BACKUPS = 3;
const CIRCUIT_LABELS: Record<string, string> = { closed: "Closed (sending)", open: "Open (skipped)", half_open: "Half-open (one probe)" };

interface Entry {
  provider: string;
  settings: string;
  /** JSON typed now; empty keeps the stored credentials of the entry at this position (same provider) */
  credentials: string;
  /** credential names stored for this position (shown, never the values) */
  stored: string[];
}

interface Props {
  channel: ChannelName;
  providers: ProviderDescription[];
  config: ChannelConfig;
  onSaved(config: ChannelConfig): void;
}

function entriesOf(config: ChannelConfig): Entry[] {
  return (config.failover ?? []).map((e) => ({ provider: e.provider, settings: JSON.stringify(e.settings ?? {}, null, 2), credentials: "", stored: e.credential_keys }));
}

export function FailoverEditor({ channel, providers, config, onSaved }: Props) {
  const { api } = useDashboard();
  const circuits = useLoad(async () => (await api.channels.retrieve(channel)).providers ?? [], [channel, config.updated_at]);
  const [entries, setEntries] = useState<Entry[]>(() => entriesOf(config));
  const [problems, setProblems] = useState<Record<string, string[]>>({});
  const [saved, setSaved] = useState<string | null>(null);

  const change = (i: number, patch: Partial<Entry>) => {
    setSaved(null);
    setEntries((list) => list.map((e, k) => (k === i ? { ...e, ...patch, ...(patch.provider && patch.provider !== e.provider ? { stored: [] } : {}) } : e)));
  };
  const save = useAction(async () => {
    const found: Record<string, string[]> = {};
    const parse = (text: string, at: string): Record<string, unknown> | undefined => {
      if (text.trim() === "") return undefined;
      try {
        const v = JSON.parse(text);
        if (v && typeof v === "object" && !Array.isArray(v)) return v;
      } catch {
        /* reported below */
      }
      found[at] = ["must be a JSON object"];
      return undefined;
    };
    const failover = entries.map((e, i) => {
      const settings = parse(e.settings, `failover[${i}].settings`) ?? {};
      const credentials = parse(e.credentials, `failover[${i}].credentials`);
      return { provider: e.provider, settings, ...(credentials ? { credentials } : {}) };
    });
    setProblems(found);
    if (Object.keys(found).length) return;
    const next = await api.channels.update(channel, { failover });
    setEntries(entriesOf(next));
    setSaved("Backup providers saved.");
    onSaved(next);
  });
  const details = { ...(save.error?.details ?? {}), ...problems };

  return (
    <section class="stack channel-failover" aria-label="Backup providers">
      <h2>Providers and circuits</h2>
      <Async load={circuits} label="Loading the circuits" rows={2}>
        {(list) => (
          <table class="circuits">
            <thead>
              <tr>
                <th scope="col">Provider</th>
                <th scope="col">Role</th>
                <th scope="col">Circuit</th>
                <th scope="col">Failures in a row</th>
                <th scope="col">Last error</th>
                <th scope="col">Opened at</th>
              </tr>
            </thead>
            <tbody>
              {list.map((p, i) => (
                <tr key={i} data-circuit={p.circuit}>
                  <td>{p.provider}</td>
                  <td>{p.role === "primary" ? "Primary" : `Backup ${i}`}</td>
                  <td>{CIRCUIT_LABELS[p.circuit] ?? p.circuit}</td>
                  <td>{p.failures}</td>
                  <td>{p.last_error ?? "—"}</td>
                  <td>{p.opened_at ? new Date(p.opened_at).toLocaleString() : "—"}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </Async>
      <form
        class="stack failover-form"
        aria-label="Backup providers"
        onSubmit={(e) => {
          e.preventDefault();
          save.run();
        }}
      >
        <p class="hint">
          Tried in order when the provider before fails or its circuit is open (at most {MAX_BACKUPS}). Credentials are write-only: leave them empty to keep
          the stored ones.
        </p>
        {entries.map((e, i) => (
          <fieldset key={i} class="failover-entry">
            <legend>Backup {i + 1}</legend>
            <Field id={`failover-${i}-provider`} label="Provider" errors={fieldErrors(details, `failover[${i}].provider`)}>
              <select id={`failover-${i}-provider`} value={e.provider} onChange={(ev) => change(i, { provider: ev.currentTarget.value })}>
                {providers.map((p) => (
                  <option key={p.name} value={p.name}>
                    {p.name}
                  </option>
                ))}
              </select>
            </Field>
            <Field
              id={`failover-${i}-credentials`}
              label="Credentials (JSON)"
              hint={e.stored.length ? `Stored: ${e.stored.join(", ")}. Empty keeps them.` : "JSON object, e.g. {\"api_key\": \"...\"}"}
              errors={Object.entries(details)
                .filter(([k]) => k.startsWith(`failover[${i}].credentials`))
                .flatMap(([k, m]) => m.map((x) => `${k.slice(`failover[${i}].`.length)} ${x}`))}
            >
              <textarea id={`failover-${i}-credentials`} rows={3} value={e.credentials} onInput={(ev) => change(i, { credentials: ev.currentTarget.value })} />
            </Field>
            <Field
              id={`failover-${i}-settings`}
              label="Settings (JSON)"
              errors={Object.entries(details)
                .filter(([k]) => k.startsWith(`failover[${i}].settings`))
                .flatMap(([k, m]) => m.map((x) => `${k.slice(`failover[${i}].`.length)} ${x}`))}
            >
              <textarea id={`failover-${i}-settings`} rows={3} value={e.settings} onInput={(ev) => change(i, { settings: ev.currentTarget.value })} />
            </Field>
            <button type="button" class="secondary" onClick={() => setEntries((list) => list.filter((_, k) => k !== i))}>
              Remove backup {i + 1}
            </button>
          </fieldset>
        ))}
        {save.error ? <ErrorNotice error={save.error} title="Backups not saved" /> : null}
        <p class="form-status" role="status">
          {saved}
        </p>
        <div class="button-row">
          <button
            type="button"
            class="secondary"
            disabled={entries.length >= MAX_BACKUPS}
            onClick={() => setEntries((list) => [...list, { provider: providers[0]?.name ?? "", settings: "{}", credentials: "", stored: [] }])}
          >
            Add backup provider
          </button>
          <button type="submit" disabled={save.pending}>
            Save backup providers
          </button>
        </div>
      </form>
    </section>
  );
}
