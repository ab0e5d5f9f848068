// One channel's configuration: the provider, a form generated from that provider's field
// description, secrets write-only, save or remove, and the test button (POST /v1/channels/:channel/test).
import { useState } from "preact/hooks";
import type { ChannelConfig, ChannelName, ChannelTestResult, ProviderDescription } from "../../../client";
import { useDashboard } from "../app/context";
import type { PageProps } from "../app/section";
import { ConfirmButton } from "../ui/confirm";
import { Field } from "../ui/field";
import { Link } from "../ui/link";
import { PageHeader } from "../ui/page-header";
import { Async, Empty, ErrorNotice } from "../ui/states";
import { TestPanel } from "../ui/test-panel";
import { Json } from "../ui/format";
import { builtInFor } from "./channels-page";
import { useAction, useLoad } from "../ui/use-load";
import { CHANNEL_LABELS, isChannel } from "../vocabulary";
import { asText, ProviderInputs, valuesOf, type FieldValues, type Scope } from "./provider-fields";
import { FailoverEditor } from "./failover-editor";

const TEST_RECIPIENT_HINTS: Record<ChannelName, string> = {
  email: "an email address",
  sms: "an E.164 phone number, e.g. +5511912345678",
  whatsapp: "an E.164 phone number",
  in_app: "a subscriber's id or external id",
  push: "an FCM token or a PushSubscription as JSON",
};

export function ChannelEditPage({ params }: PageProps) {
  const { api } = useDashboard();
  const channel = isChannel(params.channel ?? null) ? (params.channel as ChannelName) : null;
  const load = useLoad(
    async () => {
      if (!channel) return null;
      // from the list rather than GET /v1/channels/:channel, whose 404 for an unconfigured channel the browser would log
      const [providers, configs] = await Promise.all([api.providers.list(), api.channels.list()]);
      return { providers: providers.filter((p) => p.channels.includes(channel)), config: configs.find((c) => c.channel === channel) ?? null };
    },
    [channel],
  );
  return (
    <>
      <PageHeader title={channel ? `${CHANNEL_LABELS[channel]} channel` : "Unknown channel"}>
        <Link to="/channels">All channels</Link>
      </PageHeader>
      <Async load={load} label="Loading the channel" rows={6} isEmpty={(d) => d === null} empty={<Empty title={`There is no channel named ${params.channel}`} />}>
        {(d) => <ChannelForm channel={channel!} providers={d!.providers} config={d!.config} onSaved={(config) => load.setData({ ...d!, config })} />}
      </Async>
    </>
  );
}

interface FormProps {
  channel: ChannelName;
  providers: ProviderDescription[];
  config: ChannelConfig | null;
  /** The configuration as stored now (null once removed). */
  onSaved(config: ChannelConfig | null): void;
}

function initialTexts(p: ProviderDescription | undefined, config: ChannelConfig | null): FieldValues {
  const settings: Record<string, string> = {};
  for (const f of p?.setting_fields ?? []) settings[f.name] = config?.provider === p?.name ? asText(config?.settings[f.name], f.type) : "";
  return { credentials: {}, settings };
}

function ChannelForm({ channel, providers, config, onSaved }: FormProps) {
  const { api, environment } = useDashboard();
  const builtIn = builtInFor(providers, channel, environment);
  const [providerName, setProviderName] = useState(config?.provider ?? providers[0]?.name ?? "");
  const provider = providers.find((p) => p.name === providerName);
  const [texts, setTexts] = useState<FieldValues>(() => initialTexts(provider, config));
  const [active, setActive] = useState(config?.active ?? true);
  const [problems, setProblems] = useState<Record<string, string[]>>({});
  const [saved, setSaved] = useState<string | null>(null);
  const stored = config && config.provider === providerName ? config.credential_keys : [];

  const pickProvider = (name: string) => {
    setProviderName(name);
    setTexts(initialTexts(providers.find((p) => p.name === name), config));
    setProblems({});
  };
  const setText = (scope: Scope) => (name: string, text: string) => {
    setSaved(null);
    setTexts((t) => ({ ...t, [scope]: { ...t[scope], [name]: text } }));
  };

  const save = useAction(async () => {
    if (!provider) return;
    const found: Record<string, string[]> = {};
    const credentials = valuesOf(provider.credential_fields, "credentials", texts.credentials, found);
    const settings = valuesOf(provider.setting_fields, "settings", texts.settings, found);
    setProblems(found);
    if (Object.keys(found).length) return;
    // settings the form does not describe (e.g. test_recipient) are kept
    const described = new Set(provider.setting_fields.map((f) => f.name));
    const kept = config && config.provider === provider.name ? Object.fromEntries(Object.entries(config.settings).filter(([k]) => !described.has(k))) : {};
    // credentials are replaced as a set: sent when any is typed, or when the provider changes
    const sendCredentials = Object.keys(credentials).length > 0 || !config || config.provider !== provider.name;
    const body = { provider: provider.name, settings: { ...kept, ...settings }, active, ...(sendCredentials ? { credentials } : {}) };
    const next = config ? await api.channels.update(channel, body) : await api.channels.create({ channel, ...body });
    setTexts((t) => ({ ...t, credentials: {} }));
    setSaved("Saved.");
    onSaved(next);
  });
  const remove = useAction(async () => {
    await api.channels.del(channel);
    setSaved("Removed: the channel is not configured.");
    onSaved(null);
  });

  if (!provider) return <Empty title="No provider serves this channel" />;
  const details = { ...(save.error?.details ?? {}), ...problems };
  return (
    <div class="detail">
      {!config ? (
        <p class="notice channel-unconfigured">
          {builtIn
            ? `Not configured: ${CHANNEL_LABELS[channel]} delivers through the built-in ${builtIn} provider. Configure a provider only to change that (or to set a rate limit).`
            : `Not configured: ${environment} sends on ${CHANNEL_LABELS[channel]} are refused (422 channel_not_configured) until a provider is configured.`}
        </p>
      ) : null}
      <form
        class="stack channel-form"
        aria-label={`${CHANNEL_LABELS[channel]} configuration`}
        onSubmit={(e) => {
          e.preventDefault();
          save.run();
        }}
      >
        <Field id="channel-provider" label="Provider" hint={`Default rate limit: ${provider.default_rate_limit_per_second} per second.`}>
          <select id="channel-provider" value={providerName} onChange={(e) => pickProvider(e.currentTarget.value)} aria-describedby="channel-provider-hint">
            {providers.map((p) => (
              <option key={p.name} value={p.name}>
                {p.name}
              </option>
            ))}
          </select>
        </Field>
        <fieldset>
          <legend>Credentials</legend>
          {provider.credential_fields.length ? (
            <>
              <p class="hint">Write-only: stored encrypted and never shown again. Saving any credential replaces the stored set.</p>
              <ProviderInputs provider={provider.name} scope="credentials" fields={provider.credential_fields} texts={texts.credentials} stored={stored} details={details} onChange={setText("credentials")} />
            </>
          ) : (
            <p class="hint">This provider needs no credentials.</p>
          )}
        </fieldset>
        <fieldset>
          <legend>Settings</legend>
          {provider.setting_fields.length ? (
            <ProviderInputs provider={provider.name} scope="settings" fields={provider.setting_fields} texts={texts.settings} details={details} onChange={setText("settings")} />
          ) : (
            <p class="hint">This provider has no settings.</p>
          )}
        </fieldset>
        <label class="checkbox">
          <input type="checkbox" checked={active} onChange={(e) => setActive(e.currentTarget.checked)} /> Active (notifications on this channel go through this provider)
        </label>
        {save.error ? <ErrorNotice error={save.error} title="Not saved" /> : null}
        {remove.error ? <ErrorNotice error={remove.error} title="Not removed" /> : null}
        <p class="form-status" role="status">
          {saved}
        </p>
        <div class="button-row">
          <button type="submit" disabled={save.pending}>
            {config ? "Save" : "Configure channel"}
          </button>
          {config ? (
            <ConfirmButton label="Remove configuration" title={`Remove the ${CHANNEL_LABELS[channel]} configuration?`} confirmLabel="Remove" onConfirm={() => remove.run()} disabled={remove.pending}>
              <p>Its stored credentials are deleted. Production notifications on this channel are refused until it is configured again.</p>
            </ConfirmButton>
          ) : null}
        </div>
      </form>
      {config ? <FailoverEditor key={config.id} channel={channel} providers={providers} config={config} onSaved={onSaved} /> : null}
      {config || builtIn ? <TestChannel channel={channel} /> : null}
    </div>
  );
}

function TestChannel({ channel }: { channel: ChannelName }) {
  const { api } = useDashboard();
  const [to, setTo] = useState("");
  const [result, setResult] = useState<ChannelTestResult | null>(null);
  const test = useAction(async () => {
    setResult(null);
    setResult(await api.channels.test(channel, to.trim() ? { to: to.trim() } : {}));
  });
  return (
    <TestPanel
      class="channel-test"
      test={test}
      result={result}
      submitLabel="Send test"
      pendingLabel="Testing…"
      describe={(r) => (
        <>
          {r.message}
          {r.notification_id ? (
            <>
              {" "}
              <Link to={`/notifications/${r.notification_id}`}>Follow the test notification</Link>
            </>
          ) : null}
          {r.providers?.length ? (
            <ul class="provider-results">
              {r.providers.map((p, i) => (
                <li key={i}>
                  {p.role === "primary" ? "Primary" : "Backup"} {p.provider}: {p.success ? "passed" : "failed"} ({p.message})
                </li>
              ))}
            </ul>
          ) : null}
          {r.provider_response && Object.keys(r.provider_response).length ? (
            <details class="provider-answer">
              <summary>The provider's answer</summary>
              <Json value={r.provider_response} label="The provider's answer to the test" />
            </details>
          ) : null}
        </>
      )}
    >
      <Field
        id="test-recipient"
        label="Recipient"
        hint={`Optional: ${TEST_RECIPIENT_HINTS[channel]}: a test is sent and the provider's answer shown. Without one the provider is asked to connect and authenticate where it can (SMTP), without sending.`}
      >
        <input id="test-recipient" value={to} onInput={(e) => setTo(e.currentTarget.value)} aria-describedby="test-recipient-hint" />
      </Field>
    </TestPanel>
  );
}
