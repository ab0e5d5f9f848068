// The environment's preference categories (/v1/preference-categories): the list, one form that
// creates a category or edits the chosen one (key, name, description, default channels, required),
// delete behind a confirmation, and the hosted preference center's brand color.
import { useState } from "preact/hooks";
import type { ChannelName, PreferenceCategory } from "../../../client";
import { useDashboard } from "../app/context";
import type { PageProps } from "../app/section";
import { ConfirmButton } from "../ui/confirm";
import { describedBy, Field, fieldErrors } from "../ui/field";
import { PageHeader } from "../ui/page-header";
import { Async, Empty, ErrorNotice } from "../ui/states";
import { TableHead } from "../ui/table-head";
import { useAction, useLoad } from "../ui/use-load";
import { CHANNEL_LABELS, CHANNELS } from "../vocabulary";

interface Draft {
  key: string;
  name: string;
  description: string;
  channels: ChannelName[];
  required: boolean;
}

const EMPTY: Draft = { key: "", name: "", description: "", channels: [...CHANNELS], required: false };

const draftOf = (c: PreferenceCategory): Draft => ({
  key: c.key,
  name: c.name,
  description: c.description ?? "",
  channels: CHANNELS.filter((ch) => c.default_enabled_channels.includes(ch)),
  required: c.required,
});

const channelList = (channels: string[]) => (channels.length ? channels.map((c) => CHANNEL_LABELS[c as ChannelName] ?? c).join(", ") : "none");

export function PreferenceCategoriesPage(_: PageProps) {
  const { api } = useDashboard();
  const load = useLoad(() => api.preferenceCategories.list(), []);
  // the category being edited (its key), or null for a new one
  const [editing, setEditing] = useState<string | null>(null);
  const [draft, setDraft] = useState<Draft>(EMPTY);
  const [message, setMessage] = useState<string | null>(null);
  const set = (patch: Partial<Draft>) => {
    setMessage(null);
    setDraft((d) => ({ ...d, ...patch }));
  };
  const save = useAction(async () => {
    const fields = { name: draft.name.trim(), description: draft.description.trim() || null, default_enabled_channels: draft.channels, required: draft.required };
    const saved = editing ? await api.preferenceCategories.update(editing, fields) : await api.preferenceCategories.create({ key: draft.key.trim(), ...fields });
    setMessage(editing ? `Category ${saved.key} saved.` : `Category ${saved.key} created.`);
    setEditing(null);
    setDraft(EMPTY);
    load.reload();
  });
  const remove = useAction(async (key: string) => {
    await api.preferenceCategories.del(key);
    setMessage(`Category ${key} deleted.`);
    if (editing === key) {
      setEditing(null);
      setDraft(EMPTY);
    }
    load.reload();
  });
  const edit = (c: PreferenceCategory) => {
    save.clearError();
    setMessage(null);
    setEditing(c.key);
    setDraft(draftOf(c));
    document.getElementById("category-form-title")?.scrollIntoView({ block: "start" });
    document.getElementById("category-name")?.focus();
  };
  const details = save.error?.details;
  const errs = (f: string) => fieldErrors(details, f);
  const known = new Set(["key", "name", "description", "default_enabled_channels", "required"]);
  const unplaced = save.error && !Object.keys(details ?? {}).some((k) => known.has(k.replace(/\[\d+\]$/, "")));
  const toggleChannel = (ch: ChannelName, on: boolean) => set({ channels: CHANNELS.filter((c) => (c === ch ? on : draft.channels.includes(c))) });
  return (
    <>
      <PageHeader title="Preference categories" />
      <p class="lead">
        What a notification's or workflow step's <code>category</code> names. A subscriber who chose nothing receives a category on its default channels; a
        required one (security, billing) cannot be turned off and shows locked in the preference center. A <code>category</code> with no category here is still
        sent, shown as "other".
      </p>
      <p class="form-status" role="status">
        {message}
      </p>
      <Async
        load={load}
        label="Loading the categories"
        rows={4}
        isEmpty={(list) => list.length === 0}
        empty={<Empty title="No preference categories yet">Create one below, e.g. marketing or security.</Empty>}
      >
        {(list) => (
          <table class="preference-categories">
            <TableHead columns={["Key", "Name", "Description", "Default channels", "Required", { label: "Actions", hidden: true }]} />
            <tbody>
              {list.map((c) => (
                <tr key={c.id} data-key={c.key}>
                  <td>
                    <code>{c.key}</code>
                  </td>
                  <td>{c.name}</td>
                  <td>{c.description ?? <span class="muted">—</span>}</td>
                  <td>{channelList(c.default_enabled_channels)}</td>
                  <td>{c.required ? "Required" : "No"}</td>
                  <td>
                    <div class="button-row">
                      <button type="button" class="secondary" onClick={() => edit(c)} aria-label={`Edit ${c.key}`}>
                        Edit
                      </button>
                      <ConfirmButton label="Delete" title={`Delete the category ${c.key}?`} confirmLabel="Delete category" onConfirm={() => remove.run(c.key)} disabled={remove.pending}>
                        <p>
                          Subscribers' choices for <code>{c.key}</code> are kept; notifications naming it are still sent, shown as "other".
                        </p>
                      </ConfirmButton>
                    </div>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </Async>
      {remove.error ? <ErrorNotice error={remove.error} title="Not deleted" /> : null}
      <section aria-labelledby="category-form-title">
        <h2 id="category-form-title">{editing ? `Edit ${editing}` : "New category"}</h2>
        <form
          class="stack narrow"
          aria-labelledby="category-form-title"
          onSubmit={(e) => {
            e.preventDefault();
            save.run();
          }}
        >
          <Field id="category-key" label="Key" errors={errs("key")} hint={editing ? "The key cannot change." : "Lowercase letters, digits, - and _ (e.g. marketing)"}>
            <input
              id="category-key"
              value={draft.key}
              readOnly={!!editing}
              required
              onInput={(e) => set({ key: e.currentTarget.value })}
              aria-describedby={describedBy("category-key", true, errs("key"))}
            />
          </Field>
          <Field id="category-name" label="Name" errors={errs("name")} hint="Shown to subscribers in the preference center.">
            <input id="category-name" value={draft.name} required onInput={(e) => set({ name: e.currentTarget.value })} aria-describedby={describedBy("category-name", true, errs("name"))} />
          </Field>
          <Field id="category-description" label="Description" errors={errs("description")}>
            <textarea
              id="category-description"
              rows={2}
              value={draft.description}
              onInput={(e) => set({ description: e.currentTarget.value })}
              aria-describedby={describedBy("category-description", false, errs("description"))}
            />
          </Field>
          <fieldset class="inline" aria-describedby={errs("default_enabled_channels") ? "category-channels-error" : undefined}>
            <legend>Default channels</legend>
            {CHANNELS.map((ch) => (
              <label key={ch} class="checkbox">
                <input type="checkbox" checked={draft.channels.includes(ch)} onChange={(e) => toggleChannel(ch, e.currentTarget.checked)} />
                {CHANNEL_LABELS[ch]}
              </label>
            ))}
          </fieldset>
          {errs("default_enabled_channels") ? (
            <p id="category-channels-error" class="field-error">
              {errs("default_enabled_channels")!.join("; ")}
            </p>
          ) : null}
          <label class="checkbox">
            <input type="checkbox" checked={draft.required} onChange={(e) => set({ required: e.currentTarget.checked })} />
            Required: subscribers cannot turn it off
          </label>
          {unplaced ? <ErrorNotice error={save.error!} title="Not saved" /> : null}
          <div class="button-row">
            <button type="submit" disabled={save.pending}>
              {editing ? "Save category" : "Create category"}
            </button>
            {editing ? (
              <button
                type="button"
                class="secondary"
                onClick={() => {
                  save.clearError();
                  setEditing(null);
                  setDraft(EMPTY);
                }}
              >
                Cancel editing
              </button>
            ) : null}
          </div>
        </form>
      </section>
      <BrandColor />
    </>
  );
}

/** The hosted preference center's accent color (GET/PUT /v1/preference-center/settings); the name shown is the account's. */
function BrandColor() {
  const { api } = useDashboard();
  const load = useLoad(() => api.preferenceCenter.settings(), []);
  const [color, setColor] = useState<string | null>(null);
  const [message, setMessage] = useState<string | null>(null);
  const save = useAction(async () => {
    const s = await api.preferenceCenter.updateSettings({ brand_color: (color ?? "").trim() });
    setColor(s.brand_color);
    setMessage(`Brand color ${s.brand_color} saved.`);
  });
  const errs = fieldErrors(save.error?.details, "brand_color");
  return (
    <section aria-labelledby="brand-title">
      <h2 id="brand-title">Preference center</h2>
      <p>
        Subscribers open their hosted page from a link (<strong>Copy preference link</strong> on a subscriber, or <code>{"{{ preferences_url }}"}</code> in a template). It
        shows the account's name and this color.
      </p>
      <Async load={load} label="Loading the preference center's settings" rows={1}>
        {(settings) => {
          const value = color ?? settings.brand_color;
          return (
            <form
              class="filters"
              aria-labelledby="brand-title"
              onSubmit={(e) => {
                e.preventDefault();
                setMessage(null);
                save.run();
              }}
            >
              <Field id="brand-color" label="Brand color" errors={errs} hint="#rrggbb">
                <input id="brand-color" value={value} onInput={(e) => setColor(e.currentTarget.value)} aria-describedby={describedBy("brand-color", true, errs)} />
              </Field>
              <span class="brand-swatch" style={{ background: /^#[0-9a-fA-F]{6}$/.test(value) ? value : "transparent" }} aria-hidden="true" />
              <button type="submit" class="secondary" disabled={save.pending}>
                Save color
              </button>
              <p class="form-status" role="status">
                {message}
              </p>
            </form>
          );
        }}
      </Async>
      {save.error && !errs ? <ErrorNotice error={save.error} title="Not saved" /> : null}
    </section>
  );
}
