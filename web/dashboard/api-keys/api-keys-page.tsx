// API keys of the environment (/v1/api-keys): create (the raw key shown once, with copy), rotate
// with a grace period, revoke; and for the browser inbox: developer mode, allowed origins, the inbox secret.
import { useState } from "preact/hooks";
import type { ApiKey, InboxEmbedSettings } from "../../../client";
import { useDashboard } from "../app/context";
import type { PageProps } from "../app/section";
import { ConfirmButton } from "../ui/confirm";
import { CopyButton, SecretValue } from "../ui/copy";
import { describedBy, Field, fieldErrors } from "../ui/field";
import { Badge, Time } from "../ui/format";
import { PageHeader } from "../ui/page-header";
import { Async, Empty, ErrorNotice } from "../ui/states";
import { useAction, useLoad } from "../ui/use-load";
import { Choice } from "../ui/choice";
import { TableHead } from "../ui/table-head";

const GRACE_HOURS = 24;
const KEY_TYPES = ["secret", "publishable"] as const;

export function ApiKeysPage(_: PageProps) {
  return (
    <>
      <PageHeader title="API keys" />
      <Keys />
      <InboxEmbed />
    </>
  );
}

function Keys() {
  const { api, environment } = useDashboard();
  // a production session is also shown the sandbox keys: this page lists the chosen environment's
  const load = useLoad(async () => (await api.apiKeys.list()).filter((k) => k.environment === environment), []);
  const [shown, setShown] = useState<{ raw: string; what: string } | null>(null);
  const [label, setLabel] = useState("");
  const [keyType, setKeyType] = useState<"secret" | "publishable">("secret");
  const [permissions, setPermissions] = useState({ read: true, write: true });

  const create = useAction(async () => {
    const key = await api.apiKeys.create({
      label: label.trim() || null,
      key_type: keyType,
      environment,
      permissions: (["read", "write"] as const).filter((p) => permissions[p]),
    });
    setShown({ raw: key.raw_key, what: `New ${keyType} key ${key.label ?? key.prefix}` });
    setLabel("");
    load.reload();
  });
  const rotate = useAction(async (k: ApiKey) => {
    const next = await api.apiKeys.rotate(k.id, { grace_period_hours: GRACE_HOURS });
    setShown({ raw: next.raw_key, what: `Key ${k.label ?? k.prefix} rotated; the old key works until ${new Date(next.rotated_from.expires_at).toLocaleString()}` });
    load.reload();
  });
  const revoke = useAction(async (k: ApiKey) => {
    await api.apiKeys.revoke(k.id, { reason: "revoked in the dashboard" });
    load.reload();
  });
  const errors = create.error?.details;

  return (
    <section aria-labelledby="keys-title">
      <h2 id="keys-title">Keys for {environment}</h2>
      <p class="lead">
        Secret keys (<code>{environment === "production" ? "nk_live_" : "nk_test_"}</code>) call the API from your servers; publishable keys (
        <code>{environment === "production" ? "pk_live_" : "pk_test_"}</code>) only reach a subscriber's inbox from allowed origins.
      </p>
      {shown ? (
        <div class="notice success-notice shown-once" role="status">
          <p>{shown.what}. Copy it now: it is shown only this once.</p>
          <SecretValue id="new-key" label="API key" value={shown.raw} />
          <button type="button" class="secondary" onClick={() => setShown(null)}>
            I have copied it
          </button>
        </div>
      ) : null}
      {rotate.error ? <ErrorNotice error={rotate.error} title="Not rotated" /> : null}
      {revoke.error ? <ErrorNotice error={revoke.error} title="Not revoked" /> : null}
      <Async load={load} label="Loading API keys" rows={4} isEmpty={(keys) => keys.length === 0} empty={<Empty title={`No ${environment} keys`}>Create one below.</Empty>}>
        {(keys) => (
          <table class="api-keys">
            <TableHead columns={["Label", "Type", "Prefix", "Permissions", "Created", "Last used", { label: "Actions", hidden: true }]} />
            <tbody>
              {keys.map((k) => (
                <tr key={k.id} data-prefix={k.prefix}>
                  <td>
                    {k.label ?? <span class="muted">—</span>}
                    {k.expires_at ? (
                      <div class="hint">
                        expires <Time iso={k.expires_at} />
                      </div>
                    ) : null}
                  </td>
                  <td>
                    <Badge value={k.key_type === "secret" ? "sent" : "draft"}>{k.key_type}</Badge>
                  </td>
                  <td>
                    <code>{k.prefix}</code>
                  </td>
                  <td>{k.permissions.join(", ")}</td>
                  <td>
                    <Time iso={k.created_at} />
                  </td>
                  <td>
                    <Time iso={k.last_used_at} fallback="never" />
                  </td>
                  <td class="actions">
                    <ConfirmButton tone="secondary" label="Rotate" title={`Rotate ${k.label ?? k.prefix}?`} confirmLabel="Rotate key" onConfirm={() => rotate.run(k)} disabled={rotate.pending}>
                      <p>A new key is issued and shown once. The old key keeps working for {GRACE_HOURS} hours, then stops.</p>
                    </ConfirmButton>
                    <ConfirmButton label="Revoke" title={`Revoke ${k.label ?? k.prefix}?`} confirmLabel="Revoke key" onConfirm={() => revoke.run(k)} disabled={revoke.pending}>
                      <p>Every request with this key fails from now on. This cannot be undone.</p>
                    </ConfirmButton>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </Async>
      <form
        class="stack narrow"
        aria-labelledby="create-key-title"
        onSubmit={(e) => {
          e.preventDefault();
          create.run();
        }}
      >
        <h3 id="create-key-title">Create a key</h3>
        <Field id="key-label" label="Label" errors={fieldErrors(errors, "label")} hint="What uses it, e.g. backend or ci.">
          <input id="key-label" value={label} onInput={(e) => setLabel(e.currentTarget.value)} aria-describedby={describedBy("key-label", true, fieldErrors(errors, "label"))} />
        </Field>
        <Field id="key-type" label="Type" errors={fieldErrors(errors, "key_type")}>
          <Choice id="key-type" value={keyType} choices={KEY_TYPES} labels={{ secret: "Secret (server side)", publishable: "Publishable (browser inbox)" }} onChange={(v) => setKeyType(v!)} />
        </Field>
        <fieldset class="inline">
          <legend>Permissions</legend>
          {(["read", "write"] as const).map((p) => (
            <label key={p} class="checkbox">
              <input type="checkbox" checked={permissions[p]} onChange={(e) => setPermissions({ ...permissions, [p]: e.currentTarget.checked })} /> {p}
            </label>
          ))}
        </fieldset>
        {create.error ? <ErrorNotice error={create.error} title="Not created" /> : null}
        <div class="button-row">
          <button type="submit" disabled={create.pending}>
            Create key
          </button>
        </div>
      </form>
    </section>
  );
}

function InboxEmbed() {
  const { api, environment } = useDashboard();
  const load = useLoad(async () => {
    const [settings, origins] = await Promise.all([api.inboxEmbed.settings.retrieve(), api.inboxEmbed.allowedOrigins.list()]);
    return { settings, origins };
  }, []);
  const [origin, setOrigin] = useState("");
  const [reveal, setReveal] = useState(false);
  const add = useAction(async () => {
    await api.inboxEmbed.allowedOrigins.create({ origin: origin.trim() });
    setOrigin("");
    load.reload();
  });
  const remove = useAction(async (id: string) => {
    await api.inboxEmbed.allowedOrigins.del(id);
    load.reload();
  });
  const errors = add.error?.details;
  return (
    <section aria-labelledby="embed-title">
      <h2 id="embed-title">Inbox embed ({environment})</h2>
      <p class="lead">
        Pages that embed <code>&lt;nms-inbox&gt;</code> with a publishable key must be on an allowed origin (see docs/inbox-embed.md).
      </p>
      <Async load={load} label="Loading inbox embed settings" rows={3}>
        {({ settings, origins }) => (
          <>
            <DeveloperMode settings={settings} onSaved={(next) => load.setData({ settings: next, origins })} />
            <div class="secret-value">
              <span class="label">Inbox secret</span>
              <div class="secret-row">
                <code class="secret">{reveal ? settings.inbox_secret : "•".repeat(24)}</code>
                <button type="button" class="secondary" aria-pressed={reveal} onClick={() => setReveal(!reveal)}>
                  {reveal ? "Hide" : "Reveal"}
                </button>
                <CopyButton text={settings.inbox_secret} label="Copy the inbox secret" />
              </div>
              <p class="hint">Your server computes X-Subscriber-Hash = hex HMAC-SHA256(subscriber external id) with this secret.</p>
            </div>
            <h3>Allowed origins</h3>
            {origins.length ? (
              <ul class="origins">
                {origins.map((o) => (
                  <li key={o.id}>
                    <code>{o.origin}</code>{" "}
                    <ConfirmButton label="Remove" title={`Remove ${o.origin}?`} confirmLabel="Remove origin" onConfirm={() => remove.run(o.id)} disabled={remove.pending}>
                      <p>Pages on this origin can no longer use publishable keys.</p>
                    </ConfirmButton>
                  </li>
                ))}
              </ul>
            ) : (
              <Empty title="No allowed origins">Add the origin of each site that embeds the inbox, e.g. https://app.example.com.</Empty>
            )}
            {remove.error ? <ErrorNotice error={remove.error} title="Not removed" /> : null}
            <form
              class="filters"
              aria-label="Add an allowed origin"
              onSubmit={(e) => {
                e.preventDefault();
                add.run();
              }}
            >
              <Field id="origin" label="Origin" errors={fieldErrors(errors, "origin")}>
                <input id="origin" value={origin} placeholder="https://app.example.com" onInput={(e) => setOrigin(e.currentTarget.value)} aria-describedby={describedBy("origin", false, fieldErrors(errors, "origin"))} />
              </Field>
              <button type="submit" disabled={add.pending || !origin.trim()}>
                Add origin
              </button>
            </form>
            {add.error && !fieldErrors(errors, "origin") ? <ErrorNotice error={add.error} title="Not added" /> : null}
          </>
        )}
      </Async>
    </section>
  );
}

/** The developer-mode switch: it shows the new state at once and goes back if the API refuses. */
function DeveloperMode({ settings, onSaved }: { settings: InboxEmbedSettings; onSaved(s: InboxEmbedSettings): void }) {
  const { api } = useDashboard();
  const [on, setOn] = useState(settings.developer_mode);
  const save = useAction(async (next: boolean) => {
    setOn(next);
    try {
      onSaved({ ...settings, ...(await api.inboxEmbed.settings.update({ developer_mode: next })) });
    } catch (err) {
      setOn(!next);
      throw err;
    }
  });
  return (
    <>
      <label class="checkbox">
        <input type="checkbox" checked={on} disabled={save.pending} onChange={(e) => save.run(e.currentTarget.checked)} /> Developer mode: also allow http(s)://localhost and
        127.0.0.1 on any port
      </label>
      {save.error ? <ErrorNotice error={save.error} title="Developer mode unchanged" /> : null}
    </>
  );
}
