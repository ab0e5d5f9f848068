// The template editor: fields and the channel's variants, a live preview with the API's
// validation errors and warnings while typing (POST /v1/templates/preview), save, publish, delete;
// a saved template's translations below (translations-panel.tsx).
import { useEffect, useRef, useState } from "preact/hooks";
import type { ChannelName, Template, TemplatePreview } from "../../../client";
import { shownError, type ShownError } from "../api";
import { useDashboard } from "../app/context";
import type { PageProps } from "../app/section";
import { ConfirmButton } from "../ui/confirm";
import { describedBy, Field, fieldErrors } from "../ui/field";
import { Badge } from "../ui/format";
import { Link } from "../ui/link";
import { PageHeader } from "../ui/page-header";
import { Async, ErrorNotice } from "../ui/states";
import { useAction, useLoad } from "../ui/use-load";
import { CHANNEL_LABELS, CHANNELS } from "../vocabulary";
import { templatePath } from "./template-list-page";
import { Choice } from "../ui/choice";
import { MessageList } from "../ui/message-list";
import { TranslationsPanel } from "./translations-panel";
import { VARIANT_FIELDS } from "./variant-fields";


const PREVIEW_DELAY_MS = 250;

export function TemplateEditorPage({ params }: PageProps) {
  const { api } = useDashboard();
  const slug = params.slug;
  const load = useLoad<Template | null>(() => (slug ? api.templates.retrieve(slug) : Promise.resolve(null)), [slug]);
  return (
    <>
      <PageHeader title={slug ? `Template ${slug}` : "New template"}>
        <Link to="/templates">All templates</Link>
      </PageHeader>
      <Async load={load} label="Loading the template" rows={8}>
        {(template) => <TemplateForm key={template?.id ?? "new"} template={template} />}
      </Async>
    </>
  );
}

interface Draft {
  slug: string;
  name: string;
  channel: ChannelName;
  language: string;
  content: string;
  variants: Record<string, string>;
}

function draftOf(t: Template | null): Draft {
  return {
    slug: t?.slug ?? "",
    name: t?.name ?? "",
    channel: (t?.channel as ChannelName) ?? "email",
    language: t?.language ?? "",
    content: t?.content ?? "",
    variants: { ...(t?.variants ?? {}) },
  };
}

/** The variants sent: the channel's non-empty fields and any other key the template already had. */
function variantsOf(d: Draft): Record<string, string> {
  const offered = new Set(Object.values(VARIANT_FIELDS).flat().map((f) => f.key));
  const mine = new Set(VARIANT_FIELDS[d.channel].map((f) => f.key));
  return Object.fromEntries(Object.entries(d.variants).filter(([k, v]) => (mine.has(k) && v !== "") || !offered.has(k)));
}

function TemplateForm({ template }: { template: Template | null }) {
  const { api, go, environment } = useDashboard();
  const [draft, setDraft] = useState<Draft>(() => draftOf(template));
  const [saved, setSaved] = useState<Template | null>(template);
  const [message, setMessage] = useState<string | null>(null);
  const [sample, setSample] = useState("{}");
  const set = (patch: Partial<Draft>) => {
    setMessage(null);
    setDraft((d) => ({ ...d, ...patch }));
  };
  const setVariant = (key: string, value: string) => set({ variants: { ...draft.variants, [key]: value } });

  const save = useAction(async (status?: "active" | "draft") => {
    const fields = { name: draft.name, channel: draft.channel, content: draft.content, variants: variantsOf(draft), ...(draft.language ? { language: draft.language } : {}) };
    const next = saved
      ? await api.templates.update(saved.id, { ...fields, ...(status ? { status } : {}) })
      : await api.templates.create({ slug: draft.slug, ...fields, ...(status ? { status } : {}) });
    const said =
      status === "active"
        ? environment === "production"
          ? "Published: production notifications can use it now."
          : "Published in sandbox. Sandbox sends use any template, published or not; production has its own templates: publish one there to send it in production."
        : status === "draft"
          ? "Moved back to draft."
          : "Saved.";
    // a new template moves to its own URL (the editor loads again there and says what happened)
    if (!saved) return go(templatePath(next), {}, { replace: true, notice: `Template created. ${said === "Saved." ? "" : said}`.trim() });
    setSaved(next);
    setMessage(said);
  });
  const remove = useAction(async () => {
    await api.templates.del(saved!.id);
    go("/templates", {}, { notice: `Template ${saved!.slug} deleted.` });
  });

  const details = save.error?.details;
  const id = (name: string) => `template-${name}`;
  return (
    <div class="editor">
      <form
        class="stack editor-form"
        aria-label="Template"
        onSubmit={(e) => {
          e.preventDefault();
          save.run();
        }}
      >
        {saved ? (
          <p class="template-state">
            Status <Badge value={saved.status} />
          </p>
        ) : null}
        <Field id={id("slug")} label="Slug" errors={fieldErrors(details, "slug")} hint={saved ? "The slug cannot change." : "Lowercase letters, digits, - and _; notifications name it as `template`."}>
          <input
            id={id("slug")}
            value={draft.slug}
            readOnly={!!saved}
            required
            onInput={(e) => set({ slug: e.currentTarget.value })}
            aria-describedby={describedBy(id("slug"), true, fieldErrors(details, "slug"))}
          />
        </Field>
        <Field id={id("name")} label="Name" errors={fieldErrors(details, "name")}>
          <input id={id("name")} value={draft.name} required onInput={(e) => set({ name: e.currentTarget.value })} aria-describedby={describedBy(id("name"), false, fieldErrors(details, "name"))} />
        </Field>
        <div class="field-row">
          <Field id={id("channel")} label="Channel" errors={fieldErrors(details, "channel")}>
            <Choice id={id("channel")} value={draft.channel} choices={CHANNELS} labels={CHANNEL_LABELS} onChange={(v) => set({ channel: v! })} />
          </Field>
          <Field id={id("language")} label="Language" errors={fieldErrors(details, "language")}>
            <input id={id("language")} value={draft.language} placeholder="pt_BR" onInput={(e) => set({ language: e.currentTarget.value })} />
          </Field>
        </div>
        {VARIANT_FIELDS[draft.channel].map((f) => {
          const errs = fieldErrors(details, `variants.${f.key}`);
          const props = {
            id: id(f.key),
            value: draft.variants[f.key] ?? "",
            onInput: (e: { currentTarget: { value: string } }) => setVariant(f.key, e.currentTarget.value),
            "aria-describedby": describedBy(id(f.key), false, errs),
          };
          return (
            <Field key={f.key} id={id(f.key)} label={f.label} errors={errs}>
              {f.multiline ? <textarea rows={6} {...props} /> : <input {...props} />}
            </Field>
          );
        })}
        <Field id={id("content")} label="Content" errors={fieldErrors(details, "content")} hint={<>Liquid text: <code>{"{{ name }}"}</code> is replaced by the notification's data.</>}>
          <textarea
            id={id("content")}
            rows={8}
            value={draft.content}
            required
            onInput={(e) => set({ content: e.currentTarget.value })}
            aria-describedby={describedBy(id("content"), true, fieldErrors(details, "content"))}
          />
        </Field>
        {save.error ? <ErrorNotice error={save.error} title="Not saved" /> : null}
        {remove.error ? <ErrorNotice error={remove.error} title="Not deleted" /> : null}
        <p class="form-status" role="status">
          {message}
        </p>
        <div class="button-row">
          <button type="submit" disabled={save.pending}>
            {saved ? "Save" : "Create template"}
          </button>
          {saved?.status !== "active" ? (
            <button type="button" class="secondary" disabled={save.pending} onClick={() => save.run("active")}>
              {saved ? "Publish" : "Create and publish"}
            </button>
          ) : (
            <button type="button" class="secondary" disabled={save.pending} onClick={() => save.run("draft")}>
              Move back to draft
            </button>
          )}
          {saved ? (
            <ConfirmButton label="Delete" title={`Delete the template ${saved.slug}?`} confirmLabel="Delete template" onConfirm={() => remove.run()} disabled={remove.pending}>
              <p>Notifications that name it can no longer be sent. Notifications already sent keep their content.</p>
            </ConfirmButton>
          ) : null}
        </div>
      </form>
      <PreviewPanel draft={draft} sample={sample} onSample={setSample} />
      {saved ? <TranslationsPanel template={saved} /> : null}
    </div>
  );
}

/** The template's own check (errors, warnings), and its render when the sample data could be read. */
type Checked = { valid: boolean; errors: string[]; warnings: string[]; variables: string[]; rendered: TemplatePreview["rendered"] | null };
type PreviewState = { status: "idle" } | { status: "ready"; result: Checked; key: string } | { status: "error"; error: ShownError; key: string };

/**
 * Asks the API a moment after each keystroke; the newest answer wins. With sample data that is not
 * a JSON object the template is still checked (validate: its warnings follow every change) but
 * nothing is rendered, so no earlier render is shown as if it were this one.
 */
function PreviewPanel({ draft, sample, onSample }: { draft: Draft; sample: string; onSample(v: string): void }) {
  const { api } = useDashboard();
  const [state, setState] = useState<PreviewState>({ status: "idle" });
  const round = useRef(0);
  let sampleData: Record<string, unknown> | null = null;
  try {
    const parsed = JSON.parse(sample);
    if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) sampleData = parsed;
  } catch {
    // shown below as a field error
  }
  const variants = variantsOf(draft);
  const key = JSON.stringify([draft.channel, draft.content, variants, sampleData]);

  useEffect(() => {
    const mine = ++round.current;
    const timer = setTimeout(async () => {
      try {
        const source = { channel: draft.channel, content: draft.content, variants };
        let result: Checked;
        if (sampleData) {
          const p = await api.templates.previewInline({ ...source, variables: sampleData });
          result = { ...p.validation, variables: p.variables, rendered: p.rendered };
        } else {
          const v = await api.templates.validateInline(source);
          result = { valid: v.valid, errors: v.errors, warnings: v.warnings, variables: v.variables, rendered: null };
        }
        if (round.current === mine) setState({ status: "ready", result, key });
      } catch (err) {
        if (round.current === mine) setState({ status: "error", error: shownError(err), key });
      }
    }, PREVIEW_DELAY_MS);
    return () => clearTimeout(timer);
  }, [key]);

  // an answer about an earlier draft is not shown as this draft's: the panel says it is updating
  const current = state.status !== "idle" && state.key === key;
  const result = state.status === "ready" && current ? state.result : null;
  const sampleId = "template-sample";
  const sampleErrors = sampleData === null ? ['is not valid JSON: it must be a JSON object, e.g. {"name": "Ana"}'] : undefined;
  return (
    <section class="preview" aria-labelledby="preview-title">
      <h2 id="preview-title">
        Preview <span class="muted preview-updating">{current ? "" : "updating…"}</span>
      </h2>
      <Field
        id={sampleId}
        label="Sample data"
        errors={sampleErrors}
        hint={result?.variables.length ? <>Variables: {result.variables.map((v) => <code key={v}>{v} </code>)}</> : "The variables the preview fills in, as JSON."}
      >
        <textarea
          id={sampleId}
          rows={4}
          value={sample}
          spellcheck={false}
          onInput={(e) => onSample(e.currentTarget.value)}
          aria-invalid={sampleErrors ? "true" : undefined}
          aria-describedby={describedBy(sampleId, true, sampleErrors)}
        />
      </Field>
      <div class="validation" aria-live="polite">
        {state.status === "error" && current ? <ErrorNotice error={state.error} title="The preview failed" /> : null}
        {result ? (
          <>
            <p class={result.valid ? "valid" : "invalid"}>{result.valid ? "Template valid" : "Template not valid"}</p>
            <MessageList items={result.errors} label="Errors" tone="errors" />
            <MessageList items={result.warnings} label="Warnings" tone="warnings" />
          </>
        ) : null}
        {sampleData === null ? (
          <p class="notice preview-paused" role="status">
            Not rendered: the sample data is not valid JSON. Fix it to see the message.
          </p>
        ) : null}
      </div>
      <div class={current ? "rendered" : "rendered stale"} aria-label="Rendered template">
        {result?.rendered
          ? Object.entries(result.rendered).map(([part, text]) => (
              <div key={part} class={`rendered-part rendered-${part}`}>
                <h3>{part}</h3>
                {part === "html_body" ? (
                  // sandbox="": no script of the email runs, and it cannot reach this page
                  <iframe title="HTML body as rendered" sandbox="" srcdoc={text} class="html-preview" />
                ) : (
                  <pre class="rendered-text">{text}</pre>
                )}
              </div>
            ))
          : null}
      </div>
    </section>
  );
}
