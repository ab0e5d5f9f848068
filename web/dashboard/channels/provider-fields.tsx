// The inputs of a provider's credentials and settings, generated from the one description the API
// serves (GET /v1/providers: name, type, required, description), and the values they produce.
import type { ProviderField } from "../../../client";
import { describedBy, Field, fieldErrors } from "../ui/field";

export type Scope = "credentials" | "settings";

/** What the inputs hold: text as typed, per scope and field name. */
export type FieldValues = Record<Scope, Record<string, string>>;

/** A setting's stored value as the text its input shows. */
export function asText(value: unknown, type: ProviderField["type"]): string {
  if (value === undefined || value === null) return "";
  if (type === "object") return JSON.stringify(value, null, 2);
  return String(value);
}

/**
 * The typed values of one scope: empty inputs left out; numbers, booleans and JSON objects parsed.
 * Text that does not parse becomes a message under the field's API path, as the API would name it.
 */
export function valuesOf(fields: ProviderField[], scope: Scope, texts: Record<string, string>, problems: Record<string, string[]>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of fields) {
    const raw = (texts[f.name] ?? "").trim();
    if (raw === "") continue;
    const at = `${scope}.${f.name}`;
    if (f.type === "number" || f.type === "integer") {
      const n = Number(raw);
      if (!Number.isFinite(n) || (f.type === "integer" && !Number.isInteger(n))) problems[at] = [`must be ${f.type === "integer" ? "an integer" : "a number"}`];
      else out[f.name] = n;
    } else if (f.type === "boolean") {
      out[f.name] = raw === "true";
    } else if (f.type === "object") {
      try {
        const v = JSON.parse(raw);
        if (v && typeof v === "object" && !Array.isArray(v)) out[f.name] = v;
        else problems[at] = ["must be a JSON object"];
      } catch {
        problems[at] = ["must be a JSON object (it does not parse)"];
      }
    } else out[f.name] = raw;
  }
  return out;
}

interface InputsProps {
  provider: string;
  scope: Scope;
  fields: ProviderField[];
  texts: Record<string, string>;
  /** Credential names already stored: their inputs stay empty (secrets are write-only). */
  stored?: string[];
  details?: Record<string, string[]>;
  onChange(name: string, text: string): void;
}

export function ProviderInputs({ provider, scope, fields, texts, stored = [], details, onChange }: InputsProps) {
  return (
    <>
      {fields.map((f) => {
        const id = `${provider}-${scope}-${f.name}`;
        const errors = fieldErrors(details, `${scope}.${f.name}`);
        const hint = scope === "credentials" && stored.includes(f.name) ? `${f.description} · stored; leave empty to keep it` : f.description;
        const common = {
          id,
          name: f.name,
          required: f.required && !(scope === "credentials" && stored.includes(f.name)),
          "aria-describedby": describedBy(id, true, errors),
          "aria-invalid": errors ? ("true" as const) : undefined,
        };
        const value = texts[f.name] ?? "";
        const set = (e: { currentTarget: { value: string } }) => onChange(f.name, e.currentTarget.value);
        let input;
        if (f.type === "object") {
          input = <textarea {...common} rows={5} spellcheck={false} value={value} onInput={set} />;
        } else if (f.type === "boolean") {
          input = (
            <select {...common} value={value} onChange={set}>
              <option value="">Default</option>
              <option value="true">Yes</option>
              <option value="false">No</option>
            </select>
          );
        } else if (scope === "credentials") {
          input = <input {...common} type="password" autocomplete="new-password" spellcheck={false} value={value} onInput={set} />;
        } else if (f.type === "number" || f.type === "integer") {
          input = <input {...common} type="number" step={f.type === "integer" ? "1" : "any"} value={value} onInput={set} />;
        } else {
          input = <input {...common} type="text" value={value} onInput={set} />;
        }
        return (
          <Field key={id} id={id} label={`${f.name}${f.required ? "" : " (optional)"}`} hint={hint} errors={errors}>
            {input}
          </Field>
        );
      })}
    </>
  );
}
