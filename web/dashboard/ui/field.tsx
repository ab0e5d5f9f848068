// A labelled form field: the label bound to its control, a hint and the API's messages for the
// field (validation_failed details), both announced with the control through aria-describedby.
import type { ComponentChildren } from "preact";

export interface FieldProps {
  id: string;
  label: string;
  hint?: ComponentChildren;
  errors?: string[];
  children: ComponentChildren;
}

/** The ids a control names in aria-describedby for its hint and errors. */
export function describedBy(id: string, hint: unknown, errors?: string[]): string | undefined {
  const ids = [hint ? `${id}-hint` : null, errors?.length ? `${id}-error` : null].filter(Boolean);
  return ids.length ? ids.join(" ") : undefined;
}

export function Field({ id, label, hint, errors, children }: FieldProps) {
  return (
    <div class={errors?.length ? "field has-error" : "field"}>
      <label for={id}>{label}</label>
      {children}
      {hint ? (
        <p id={`${id}-hint`} class="hint">
          {hint}
        </p>
      ) : null}
      {errors?.length ? (
        <p id={`${id}-error`} class="field-error">
          {errors.join("; ")}
        </p>
      ) : null}
    </div>
  );
}

/** The messages the API gave for one field path (details of a 422), if any. */
export function fieldErrors(details: Record<string, string[]> | undefined, ...paths: string[]): string[] | undefined {
  const found = paths.flatMap((p) => details?.[p] ?? []);
  return found.length ? found : undefined;
}
