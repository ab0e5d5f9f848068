// The subscriber's fields as a form, for creating one (POST /v1/subscribers, an upsert on external_id)
// and editing one (PUT /v1/subscribers/:id): an emptied field is sent as null, so it is cleared; the
// API's 422 messages appear under the fields they name.
import { useState } from "preact/hooks";
import type { Subscriber, SubscriberCreateParams } from "../../../client";
import type { ShownError } from "../api";
import { describedBy, Field, fieldErrors } from "../ui/field";
import { ErrorNotice } from "../ui/states";
import { jsonObject } from "../workflows/trigger-form";

const TEXT_FIELDS = [
  { key: "email", label: "Email", type: "email", hint: undefined },
  { key: "phone", label: "Phone", type: "tel", hint: "E.164, e.g. +5511912345678" },
  { key: "name", label: "Name", type: "text", hint: undefined },
  { key: "locale", label: "Locale", type: "text", hint: "e.g. pt-BR" },
  { key: "timezone", label: "Time zone", type: "text", hint: "IANA name, e.g. America/Sao_Paulo" },
] as const;
type TextKey = (typeof TEXT_FIELDS)[number]["key"];

interface Props {
  /** The record being edited; absent when creating. */
  subscriber?: Subscriber;
  submitLabel: string;
  pendingLabel: string;
  pending: boolean;
  error: ShownError | null;
  onSubmit(params: SubscriberCreateParams): void;
}

export function SubscriberForm({ subscriber, submitLabel, pendingLabel, pending, error, onSubmit }: Props) {
  const [externalId, setExternalId] = useState(subscriber?.external_id ?? "");
  const [values, setValues] = useState<Record<TextKey, string>>(
    Object.fromEntries(TEXT_FIELDS.map((f) => [f.key, subscriber?.[f.key] ?? ""])) as Record<TextKey, string>,
  );
  const [customText, setCustomText] = useState(JSON.stringify(subscriber?.custom_properties ?? {}, null, 2));
  const [touched, setTouched] = useState(false);
  const custom = jsonObject(customText);
  const details = error?.details;
  const customErrors = custom === null && touched ? ['must be a JSON object, e.g. {"plan": "pro"}'] : fieldErrors(details, "custom_properties");
  const externalErrors = fieldErrors(details, "external_id");

  return (
    <form
      // the API checks the fields and its messages appear under them, the same for every field
      noValidate
      class="stack subscriber-form"
      aria-label={subscriber ? "Edit the subscriber" : "New subscriber"}
      onSubmit={(e) => {
        e.preventDefault();
        setTouched(true);
        if (custom === null) return;
        const params: SubscriberCreateParams = { external_id: externalId.trim(), custom_properties: custom };
        for (const f of TEXT_FIELDS) {
          const v = values[f.key].trim();
          // creating: leave empty fields out; editing: an emptied field is cleared
          if (v) params[f.key] = v;
          else if (subscriber?.[f.key]) params[f.key] = null;
        }
        onSubmit(params);
      }}
    >
      <Field id="subscriber-external-id" label="External id" errors={externalErrors} hint={subscriber ? "Your user id; it does not change." : "Your user id for this person: the key the API and your app use."}>
        <input
          id="subscriber-external-id"
          required
          value={externalId}
          readOnly={!!subscriber}
          onInput={(e) => setExternalId(e.currentTarget.value)}
          aria-invalid={externalErrors ? "true" : undefined}
          aria-describedby={describedBy("subscriber-external-id", true, externalErrors)}
        />
      </Field>
      {TEXT_FIELDS.map((f) => {
        const errors = fieldErrors(details, f.key);
        const id = `subscriber-${f.key}`;
        return (
          <Field key={f.key} id={id} label={f.label} hint={f.hint} errors={errors}>
            <input
              id={id}
              type={f.type as "text"}
              value={values[f.key]}
              onInput={(e) => setValues((v) => ({ ...v, [f.key]: e.currentTarget.value }))}
              aria-invalid={errors ? "true" : undefined}
              aria-describedby={describedBy(id, f.hint, errors)}
            />
          </Field>
        );
      })}
      <Field id="subscriber-custom" label="Custom properties (JSON)" errors={customErrors} hint="Key-value data your templates can use.">
        <textarea
          id="subscriber-custom"
          rows={4}
          spellcheck={false}
          value={customText}
          onInput={(e) => setCustomText(e.currentTarget.value)}
          aria-invalid={customErrors ? "true" : undefined}
          aria-describedby={describedBy("subscriber-custom", true, customErrors)}
        />
      </Field>
      {error ? <ErrorNotice error={error} title="Not saved" /> : null}
      <div class="button-row">
        <button type="submit" disabled={pending}>
          {pending ? pendingLabel : submitLabel}
        </button>
      </div>
    </form>
  );
}
