// Trying a workflow: a recipient, the JSON data its templates get and an optional locale
// (POST /v1/workflows/:slug/trigger), then the new run's own page, which follows it.
import { useState } from "preact/hooks";
import type { Workflow } from "../../../client";
import { useDashboard } from "../app/context";
import { describedBy, Field, fieldErrors } from "../ui/field";
import { ErrorNotice } from "../ui/states";
import { useAction } from "../ui/use-load";

/** The data as an object, or null when it is not a JSON object. */
export function jsonObject(text: string): Record<string, unknown> | null {
  try {
    const v = JSON.parse(text.trim() || "{}");
    return v && typeof v === "object" && !Array.isArray(v) ? v : null;
  } catch {
    return null;
  }
}

export function TriggerForm({ workflow }: { workflow: Workflow }) {
  const { api, go } = useDashboard();
  const [recipient, setRecipient] = useState("");
  const [dataText, setDataText] = useState("{}");
  const [locale, setLocale] = useState("");
  const [touched, setTouched] = useState(false);
  const data = jsonObject(dataText);
  const trigger = useAction(async () => {
    const run = await api.workflows.trigger(workflow.slug, { recipient: recipient.trim(), data: data ?? {}, ...(locale.trim() ? { locale: locale.trim() } : {}) });
    go(`/workflow-runs/${run.id}`, {}, { notice: `Run started for ${run.recipient}.` });
  });
  const details = trigger.error?.details;
  const recipientErrors = fieldErrors(details, "recipient", "to");
  const localeErrors = fieldErrors(details, "locale");
  const dataErrors = data === null && touched ? ['must be a JSON object, e.g. {"name": "Ana"}'] : fieldErrors(details, "data", "payload");
  return (
    <section aria-labelledby="trigger-title">
      <h2 id="trigger-title">Try it</h2>
      <form
        class="stack narrow"
        aria-labelledby="trigger-title"
        onSubmit={(e) => {
          e.preventDefault();
          setTouched(true);
          if (data !== null) trigger.run();
        }}
      >
        <Field id="trigger-recipient" label="Recipient" errors={recipientErrors} hint="A subscriber's id or external id, or an address the steps' channels take (an email address, an E.164 phone number).">
          <input id="trigger-recipient" value={recipient} required onInput={(e) => setRecipient(e.currentTarget.value)} aria-describedby={describedBy("trigger-recipient", true, recipientErrors)} />
        </Field>
        <Field id="trigger-data" label="Data (JSON)" errors={dataErrors} hint="The payload of every step's template.">
          <textarea id="trigger-data" rows={4} spellcheck={false} value={dataText} onInput={(e) => setDataText(e.currentTarget.value)} aria-invalid={dataErrors ? "true" : undefined} aria-describedby={describedBy("trigger-data", true, dataErrors)} />
        </Field>
        <Field id="trigger-locale" label="Locale (optional)" errors={localeErrors} hint="pt_BR, en…: the templates' translation for a recipient without a locale of their own.">
          <input id="trigger-locale" value={locale} onInput={(e) => setLocale(e.currentTarget.value)} aria-describedby={describedBy("trigger-locale", true, localeErrors)} />
        </Field>
        {trigger.error ? <ErrorNotice error={trigger.error} title="Not triggered" /> : null}
        <div class="button-row">
          <button type="submit" disabled={trigger.pending}>
            {trigger.pending ? "Starting…" : "Trigger a run"}
          </button>
        </div>
      </form>
    </section>
  );
}
