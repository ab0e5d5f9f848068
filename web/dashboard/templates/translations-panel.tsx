// A saved template's translations (issue 28, docs/localization.md): its locales, one locale's text
// edited beside the base (put, delete), and a preview of what a recipient of any locale gets
// (POST /v1/templates/:id/preview with `locale`, fallback pt_BR -> pt -> the template's language).
import { useEffect, useState } from "preact/hooks";
import type { ChannelName, Template, TemplatePreview, TemplateTranslation } from "../../../client";
import { useDashboard } from "../app/context";
import { ConfirmButton } from "../ui/confirm";
import { describedBy, Field, fieldErrors } from "../ui/field";
import { Time } from "../ui/format";
import { MessageList } from "../ui/message-list";
import { Async, Empty, ErrorNotice } from "../ui/states";
import { useAction, useLoad } from "../ui/use-load";
import { VARIANT_FIELDS } from "./variant-fields";

interface Editing {
  locale: string;
  /** false until the first PUT: the text starts as a copy of the base */
  stored: boolean;
  content: string;
  variants: Record<string, string>;
  warnings: string[];
}

export function TranslationsPanel({ template }: { template: Template }) {
  const { api } = useDashboard();
  const load = useLoad(() => api.templates.translations.list(template.id), [template.id]);
  const [editing, setEditing] = useState<Editing | null>(null);
  const [newLocale, setNewLocale] = useState("");
  const [message, setMessage] = useState<string | null>(null);
  const fields = VARIANT_FIELDS[template.channel as ChannelName] ?? [];

  const open = (t: TemplateTranslation) => {
    setMessage(null);
    save.clearError();
    setEditing({ locale: t.locale, stored: true, content: t.content, variants: { ...t.variants }, warnings: t.warnings });
  };
  // a new locale is checked by the API on its first save (422 under Locale when it is not one)
  const add = () => {
    const locale = newLocale.trim();
    if (!locale) return;
    const existing = load.status === "ready" ? load.data.find((t) => t.locale.toLowerCase() === locale.replace("-", "_").toLowerCase()) : undefined;
    if (existing) return open(existing);
    setMessage(null);
    save.clearError();
    setEditing({ locale, stored: false, content: template.content, variants: { ...template.variants }, warnings: [] });
    setNewLocale("");
  };
  const save = useAction(async () => {
    const e = editing!;
    const variants = Object.fromEntries(Object.entries(e.variants).filter(([, v]) => v !== ""));
    const t = await api.templates.translations.upsert(template.id, e.locale, { content: e.content, variants });
    setEditing({ locale: t.locale, stored: true, content: t.content, variants: { ...t.variants }, warnings: t.warnings });
    setMessage(`Translation ${t.locale} saved.`);
    load.reload();
  });
  const remove = useAction(async () => {
    const locale = editing!.locale;
    await api.templates.translations.del(template.id, locale);
    setEditing(null);
    setMessage(`Translation ${locale} deleted: its recipients get the fallback.`);
    load.reload();
  });
  const details = save.error?.details;
  const placed = ["locale", "content", ...fields.map((f) => `variants.${f.key}`)];
  const unplaced = save.error && !Object.keys(details ?? {}).some((k) => placed.includes(k));
  const id = (name: string) => `translation-${name}`;

  return (
    <section class="translations" aria-labelledby="translations-title">
      <h2 id="translations-title">Translations</h2>
      <p class="lead">
        A recipient gets the text of their locale: the subscriber's <code>locale</code>, else the notification's or trigger's <code>locale</code>, else the
        template's language (<code>{template.language}</code>). Without a translation for it, <code>pt_BR</code> falls back to <code>pt</code>, then to this
        base text. A variant left empty is the base's.
      </p>
      <p class="form-status" role="status">
        {message}
      </p>
      <Async load={load} label="Loading the translations" rows={2} isEmpty={() => false}>
        {(list) =>
          list.length ? (
            <ul class="locale-list" aria-label="Locales">
              {list.map((t) => (
                <li key={t.locale}>
                  <button type="button" class="secondary" aria-pressed={editing?.locale === t.locale} onClick={() => open(t)}>
                    {t.locale}
                  </button>{" "}
                  <span class="muted">
                    updated <Time iso={t.updated_at} />
                    {t.warnings.length ? ` · ${t.warnings.length} warning${t.warnings.length > 1 ? "s" : ""}` : ""}
                  </span>
                </li>
              ))}
            </ul>
          ) : (
            <Empty title="No translations yet">Every recipient gets the base text. Add a locale below, e.g. en or pt_PT.</Empty>
          )
        }
      </Async>
      <form
        class="filters"
        aria-label="Add a translation"
        onSubmit={(e) => {
          e.preventDefault();
          add();
        }}
      >
        <Field id={id("new-locale")} label="New locale" hint="pt_BR, pt, en, en-US…">
          <input id={id("new-locale")} value={newLocale} onInput={(e) => setNewLocale(e.currentTarget.value)} aria-describedby={id("new-locale-hint")} />
        </Field>
        <button type="submit" class="secondary" disabled={!newLocale.trim()}>
          Add translation
        </button>
      </form>
      {editing ? (
        <form
          class="translation-editor"
          aria-label={`Translation ${editing.locale}`}
          onSubmit={(e) => {
            e.preventDefault();
            save.run();
          }}
        >
          <h3>
            {editing.stored ? `Translation ${editing.locale}` : `New translation ${editing.locale}`} <span class="muted">beside the base ({template.language})</span>
          </h3>
          {fieldErrors(details, "locale") ? (
            <p class="field-error" role="alert">
              Locale: {fieldErrors(details, "locale")!.join("; ")}
            </p>
          ) : null}
          <div class="side-by-side">
            <div class="base-column" aria-label={`Base text (${template.language})`}>
              <h4>Base ({template.language})</h4>
              {fields.map((f) => (
                <div key={f.key} class="field">
                  <span class="label">{f.label}</span>
                  <pre class="base-text" data-part={f.key}>
                    {template.variants[f.key] ?? ""}
                  </pre>
                </div>
              ))}
              <div class="field">
                <span class="label">Content</span>
                <pre class="base-text" data-part="content">
                  {template.content}
                </pre>
              </div>
            </div>
            <div class="translation-column">
              <h4>{editing.locale}</h4>
              {fields.map((f) => {
                const errs = fieldErrors(details, `variants.${f.key}`);
                const props = {
                  id: id(f.key),
                  value: editing.variants[f.key] ?? "",
                  onInput: (e: { currentTarget: { value: string } }) => setEditing({ ...editing, variants: { ...editing.variants, [f.key]: e.currentTarget.value } }),
                  "aria-describedby": describedBy(id(f.key), false, errs),
                };
                return (
                  <Field key={f.key} id={id(f.key)} label={`${f.label} (${editing.locale})`} errors={errs}>
                    {f.multiline ? <textarea rows={6} {...props} /> : <input {...props} />}
                  </Field>
                );
              })}
              <Field id={id("content")} label={`Content (${editing.locale})`} errors={fieldErrors(details, "content")}>
                <textarea
                  id={id("content")}
                  rows={6}
                  value={editing.content}
                  required
                  onInput={(e) => setEditing({ ...editing, content: e.currentTarget.value })}
                  aria-describedby={describedBy(id("content"), false, fieldErrors(details, "content"))}
                />
              </Field>
            </div>
          </div>
          <MessageList items={editing.warnings} label="Translation warnings" tone="warnings" />
          {unplaced ? <ErrorNotice error={save.error!} title="Translation not saved" /> : null}
          {remove.error ? <ErrorNotice error={remove.error} title="Translation not deleted" /> : null}
          <div class="button-row">
            <button type="submit" disabled={save.pending}>
              Save translation
            </button>
            {editing.stored ? (
              <ConfirmButton label="Delete translation" title={`Delete the ${editing.locale} translation?`} confirmLabel="Delete translation" onConfirm={() => remove.run()} disabled={remove.pending}>
                <p>Recipients of {editing.locale} get the fallback text from the next send.</p>
              </ConfirmButton>
            ) : (
              <button type="button" class="secondary" onClick={() => setEditing(null)}>
                Discard
              </button>
            )}
          </div>
        </form>
      ) : null}
      <LocalePreview template={template} initialLocale={editing?.stored ? editing.locale : ""} />
    </section>
  );
}

/** What a recipient of a locale gets from the stored template and translations (unsaved edits are not included). */
function LocalePreview({ template, initialLocale }: { template: Template; initialLocale: string }) {
  const { api } = useDashboard();
  const [locale, setLocale] = useState(initialLocale);
  const [sample, setSample] = useState("{}");
  const [result, setResult] = useState<{ asked: string; preview: TemplatePreview } | null>(null);
  // choosing another translation proposes its locale
  useEffect(() => {
    if (initialLocale) setLocale(initialLocale);
  }, [initialLocale]);
  let variables: Record<string, unknown> | null = null;
  try {
    const v = JSON.parse(sample);
    if (v && typeof v === "object" && !Array.isArray(v)) variables = v;
  } catch {
    // shown as the field's error
  }
  const preview = useAction(async () => {
    const asked = locale.trim();
    const p = await api.templates.preview(template.id, { variables: variables ?? {}, ...(asked ? { locale: asked } : {}) });
    setResult({ asked, preview: p });
  });
  const sampleErrors = variables === null ? ["is not valid JSON: it must be a JSON object"] : undefined;
  const localeErrors = fieldErrors(preview.error?.details, "locale");
  return (
    <form
      class="locale-preview stack"
      aria-labelledby="locale-preview-title"
      onSubmit={(e) => {
        e.preventDefault();
        if (variables) preview.run();
      }}
    >
      <h3 id="locale-preview-title">Preview per locale</h3>
      <p class="hint">The saved template and translations, as a recipient of this locale gets them (try pt_PT or fr to see the fallback).</p>
      <div class="field-row">
        <Field id="preview-locale" label="Recipient locale" errors={localeErrors} hint="Empty: the base">
          <input id="preview-locale" value={locale} onInput={(e) => setLocale(e.currentTarget.value)} aria-describedby={describedBy("preview-locale", true, localeErrors)} />
        </Field>
        <Field id="preview-sample" label="Sample data (JSON)" errors={sampleErrors}>
          <textarea id="preview-sample" rows={2} value={sample} spellcheck={false} onInput={(e) => setSample(e.currentTarget.value)} aria-describedby={describedBy("preview-sample", false, sampleErrors)} />
        </Field>
      </div>
      <div class="button-row">
        <button type="submit" class="secondary" disabled={preview.pending || variables === null}>
          Preview
        </button>
      </div>
      {preview.error && !localeErrors ? <ErrorNotice error={preview.error} title="The preview failed" /> : null}
      {result ? (
        <div class="rendered" aria-label="Rendered for the locale" aria-live="polite">
          <p class="preview-locale-used" role="status">
            {result.asked ? `Asked for ${result.asked}: ` : ""}rendered in <strong data-testid="preview-locale-used">{result.preview.locale ?? template.language}</strong>
            {result.preview.locale === template.language ? " (the base)" : ""}
          </p>
          {Object.entries(result.preview.rendered).map(([part, text]) => (
            <div key={part} class={`rendered-part rendered-${part}`}>
              <h4>{part}</h4>
              {part === "html_body" ? <iframe title={`HTML body in ${result.preview.locale}`} sandbox="" srcdoc={text} class="html-preview" /> : <pre class="rendered-text">{text}</pre>}
            </div>
          ))}
          <MessageList items={result.preview.validation.warnings} label="Preview warnings" tone="warnings" />
        </div>
      ) : null}
    </form>
  );
}
