// The step editor: one fieldset per step (type, then that type's fields), moved, removed, added up to
// SPEC's 10; the API's messages keyed like `steps[2].duration` shown under that step's field.
import type { ChannelName } from "../../../client";
import { Choice } from "../ui/choice";
import { describedBy, Field, fieldErrors } from "../ui/field";
import { CHANNEL_LABELS, CHANNELS, DELAY_MODE_LABELS, DELAY_MODES, STEP_PRIORITIES, STEP_PRIORITY_LABELS, STEP_TYPE_LABELS, STEP_TYPES } from "../vocabulary";
import { MAX_STEPS, newStep, type StepDraft } from "./steps";

interface StepEditorProps {
  steps: StepDraft[];
  onChange(steps: StepDraft[]): void;
  details?: Record<string, string[]>;
  /** Template slugs offered while typing (any slug may be typed: templates can come later). */
  templates: { slug: string; channel: string }[];
}

export function StepEditor({ steps, onChange, details, templates }: StepEditorProps) {
  const update = (i: number, patch: Partial<StepDraft>) => onChange(steps.map((s, j) => (j === i ? { ...s, ...patch } : s)));
  const move = (i: number, by: -1 | 1) => {
    const next = [...steps];
    [next[i], next[i + by]] = [next[i + by]!, next[i]!];
    onChange(next);
  };
  const stepsErrors = fieldErrors(details, "steps");
  return (
    <fieldset class="steps" aria-describedby={stepsErrors ? "steps-error" : "steps-hint"}>
      <legend>Steps</legend>
      <p id="steps-hint" class="hint">
        Run in order for one recipient, at most {MAX_STEPS}. The trigger's data fills every template.
      </p>
      {stepsErrors ? (
        <p id="steps-error" class="field-error">
          {stepsErrors.join("; ")}
        </p>
      ) : null}
      <ol class="step-list">
        {steps.map((s, i) => (
          <li key={s.key}>
            <StepFields step={s} index={i} count={steps.length} details={details} onChange={(patch) => update(i, patch)} onMove={(by) => move(i, by)} onRemove={() => onChange(steps.filter((_, j) => j !== i))} />
          </li>
        ))}
      </ol>
      <datalist id="template-slugs">
        {templates.map((t) => (
          <option key={t.slug} value={t.slug}>
            {t.channel}
          </option>
        ))}
      </datalist>
      <button type="button" class="secondary" disabled={steps.length >= MAX_STEPS} onClick={() => onChange([...steps, newStep()])}>
        Add step
      </button>
      {steps.length >= MAX_STEPS ? <span class="hint"> A workflow has at most {MAX_STEPS} steps.</span> : null}
    </fieldset>
  );
}

interface StepFieldsProps {
  step: StepDraft;
  index: number;
  count: number;
  details?: Record<string, string[]>;
  onChange(patch: Partial<StepDraft>): void;
  onMove(by: -1 | 1): void;
  onRemove(): void;
}

const KNOWN = ["type", "channel", "template", "duration", "channels", "until", "window", "key", "max_events", "limit", "if", "category", "priority", "critical"];

interface TextFieldProps {
  id: string;
  label: string;
  value: string;
  errors: string[] | undefined;
  hint?: string;
  placeholder?: string;
  required?: boolean;
  inputMode?: "numeric";
  onInput(v: string): void;
}

function TextField({ id, label, value, errors, hint, placeholder, required, inputMode, onInput }: TextFieldProps) {
  return (
    <Field id={id} label={label} errors={errors} hint={hint}>
      <input
        id={id}
        value={value}
        placeholder={placeholder}
        required={required}
        inputMode={inputMode}
        spellcheck={false}
        onInput={(e) => onInput(e.currentTarget.value)}
        aria-invalid={errors ? "true" : undefined}
        aria-describedby={describedBy(id, hint !== undefined, errors)}
      />
    </Field>
  );
}

function StepFields({ step, index, count, details, onChange, onMove, onRemove }: StepFieldsProps) {
  const at = `steps[${index}]`;
  const id = (f: string) => `step-${index}-${f}`;
  const errs = (f: string) => fieldErrors(details, `${at}.${f}`);
  // what the API says about the step itself or a field the form does not show (condition, unknown fields)
  const other = Object.entries(details ?? {})
    .filter(([k]) => k === at || (k.startsWith(`${at}.`) && !KNOWN.some((f) => k === `${at}.${f}` || k.startsWith(`${at}.${f}[`))))
    .map(([k, v]) => `${k === at ? "" : `${k.slice(at.length + 1)} `}${v.join("; ")}`);
  const n = index + 1;
  return (
    <fieldset class="step" data-step={index}>
      <legend>Step {n}</legend>
      {other.length ? <p class="field-error">{other.join("; ")}</p> : null}
      <div class="field-row">
        <Field id={id("type")} label="Type" errors={errs("type")}>
          <Choice id={id("type")} value={step.type} choices={STEP_TYPES} labels={STEP_TYPE_LABELS} onChange={(v) => onChange({ type: v! })} aria-describedby={describedBy(id("type"), false, errs("type"))} />
        </Field>
        {step.type === "send" ? (
          <Field id={id("channel")} label="Channel" errors={errs("channel")}>
            <Choice id={id("channel")} value={step.channel} choices={CHANNELS} labels={CHANNEL_LABELS} onChange={(v) => onChange({ channel: v! })} aria-describedby={describedBy(id("channel"), false, errs("channel"))} />
          </Field>
        ) : null}
        {step.type === "delay" ? (
          <Field id={id("delay-mode")} label="Wait">
            <Choice id={id("delay-mode")} value={step.delayMode} choices={DELAY_MODES} labels={DELAY_MODE_LABELS} onChange={(v) => onChange({ delayMode: v! })} />
          </Field>
        ) : null}
        {step.type === "delay" && step.delayMode === "until" ? (
          <TextField id={id("until")} label="Until" value={step.until} errors={errs("until")} placeholder="09:00" required hint="HH:MM in the recipient's timezone (the subscriber's, else the account's, else UTC)." onInput={(until) => onChange({ until })} />
        ) : null}
        {step.type === "digest" || step.type === "throttle" ? (
          <TextField
            id={id("window")}
            label="Window"
            value={step.window}
            errors={errs("window")}
            placeholder="30m"
            required
            hint={step.type === "digest" ? "How long the digest collects events: 30m, 2h or 1d, at most 24 hours." : "The rolling window: 30m, 2h or 1d, at most 7 days."}
            onInput={(window) => onChange({ window })}
          />
        ) : null}
        {step.type === "throttle" ? (
          <TextField id={id("limit")} label="Limit" value={step.limit} errors={errs("limit")} inputMode="numeric" required hint="Runs that pass per window (1-1000); the others end throttled." onInput={(limit) => onChange({ limit })} />
        ) : null}
        {step.type === "digest" ? (
          <TextField id={id("max_events")} label="Max events" value={step.maxEvents} errors={errs("max_events")} inputMode="numeric" hint="Optional, 2-1000: the digest closes early at this many events." onInput={(maxEvents) => onChange({ maxEvents })} />
        ) : null}
        {step.type === "digest" || step.type === "throttle" ? (
          <TextField id={id("key")} label="Key" value={step.digestKey} errors={errs("key")} placeholder="{{ data.thread_id }}" hint="Optional Liquid over the trigger data: one digest or throttle per value." onInput={(digestKey) => onChange({ digestKey })} />
        ) : null}
        {step.type === "delay" && step.delayMode === "duration" ? (
          <Field id={id("duration")} label="Duration" errors={errs("duration")} hint="30m, 2h or 1d: minutes, hours or days, at most 7 days.">
            <input
              id={id("duration")}
              value={step.duration}
              placeholder="30m"
              required
              spellcheck={false}
              onInput={(e) => onChange({ duration: e.currentTarget.value })}
              aria-invalid={errs("duration") ? "true" : undefined}
              aria-describedby={describedBy(id("duration"), true, errs("duration"))}
            />
          </Field>
        ) : null}
      </div>
      {step.type === "fallback" ? <ChannelOrder id={id("channels")} at={`${at}.channels`} value={step.channels} details={details} onChange={(channels) => onChange({ channels })} /> : null}
      {step.type === "send" || step.type === "fallback" ? (
        <Field id={id("template")} label="Template" errors={errs("template")} hint={step.type === "fallback" ? "One template for every channel tried; sent only if the previous send was not delivered." : "A template's slug."}>
          <input
            id={id("template")}
            list="template-slugs"
            value={step.template}
            required
            spellcheck={false}
            onInput={(e) => onChange({ template: e.currentTarget.value })}
            aria-invalid={errs("template") ? "true" : undefined}
            aria-describedby={describedBy(id("template"), true, errs("template"))}
          />
        </Field>
      ) : null}
      {step.type === "send" || step.type === "fallback" ? <DeliveryFields step={step} index={index} details={details} onChange={onChange} /> : null}
      <Field id={id("if")} label="Condition" errors={errs("if")} hint='Optional JSON Logic over data, subscriber and steps, e.g. {"!": {"var": "steps.0.read"}}; false skips the step.'>
        <textarea
          id={id("if")}
          rows={2}
          spellcheck={false}
          value={step.condition}
          onInput={(e) => onChange({ condition: e.currentTarget.value })}
          aria-invalid={errs("if") ? "true" : undefined}
          aria-describedby={describedBy(id("if"), true, errs("if"))}
        />
      </Field>
      <div class="button-row step-actions">
        <button type="button" class="secondary" disabled={index === 0} onClick={() => onMove(-1)} aria-label={`Move step ${n} up`}>
          Move up
        </button>
        <button type="button" class="secondary" disabled={index === count - 1} onClick={() => onMove(1)} aria-label={`Move step ${n} down`}>
          Move down
        </button>
        <button type="button" class="danger" disabled={count === 1} onClick={onRemove} aria-label={`Remove step ${n}`}>
          Remove
        </button>
      </div>
    </fieldset>
  );
}

/** A send's or fallback's category, lane and critical flag (docs/preferences.md, docs/routing.md, docs/delivery-policy.md). */
function DeliveryFields({ step, index, details, onChange }: { step: StepDraft; index: number; details?: Record<string, string[]>; onChange(patch: Partial<StepDraft>): void }) {
  const id = (f: string) => `step-${index}-${f}`;
  const errs = (f: string) => fieldErrors(details, `steps[${index}].${f}`);
  return (
    <div class="field-row">
      <TextField id={id("category")} label="Category" value={step.category} errors={errs("category")} placeholder="comments" hint="Optional: the preference category subscribers can turn off (others count as other)." onInput={(category) => onChange({ category })} />
      <Field id={id("priority")} label="Priority" errors={errs("priority")} hint="The delivery lane; normal unless set.">
        <Choice id={id("priority")} value={step.priority} choices={STEP_PRIORITIES} labels={STEP_PRIORITY_LABELS} any="Default (normal)" onChange={(priority) => onChange({ priority })} aria-describedby={describedBy(id("priority"), true, errs("priority"))} />
      </Field>
      <Field id={id("critical")} label="Critical" errors={errs("critical")} hint="For OTPs and security alerts: quiet hours and frequency caps do not apply.">
        <input id={id("critical")} type="checkbox" checked={step.critical} onChange={(e) => onChange({ critical: e.currentTarget.checked })} aria-describedby={describedBy(id("critical"), true, errs("critical"))} />
      </Field>
    </div>
  );
}

interface ChannelOrderProps {
  id: string;
  /** The API path of the list: its messages are under it and under `<at>[k]`. */
  at: string;
  value: ChannelName[];
  details?: Record<string, string[]>;
  onChange(channels: ChannelName[]): void;
}

/** A fallback's channels in the order they are tried: add from a select, move earlier, remove. */
function ChannelOrder({ id, at, value, details, onChange }: ChannelOrderProps) {
  const rest = CHANNELS.filter((c) => !value.includes(c));
  const errors = fieldErrors(details, at);
  return (
    <div class={errors ? "field has-error" : "field"} role="group" aria-labelledby={`${id}-label`}>
      <span id={`${id}-label`} class="label">
        Channels, tried in this order until one is sent
      </span>
      {value.length ? (
        <ol class="channel-order">
          {value.map((c, k) => (
            <li key={c}>
              {CHANNEL_LABELS[c]}{" "}
              <button type="button" class="secondary small" disabled={k === 0} onClick={() => onChange([...value.slice(0, k - 1), c, value[k - 1]!, ...value.slice(k + 1)])} aria-label={`Try ${CHANNEL_LABELS[c]} earlier`}>
                Earlier
              </button>{" "}
              <button type="button" class="secondary small" onClick={() => onChange(value.filter((x) => x !== c))} aria-label={`Remove ${CHANNEL_LABELS[c]}`}>
                Remove
              </button>
              {fieldErrors(details, `${at}[${k}]`) ? <span class="field-error"> {fieldErrors(details, `${at}[${k}]`)!.join("; ")}</span> : null}
            </li>
          ))}
        </ol>
      ) : (
        <p class="hint">No channel yet.</p>
      )}
      {rest.length ? (
        <>
          <label for={id}>Add a channel</label>
          <select id={id} value="" onChange={(e) => e.currentTarget.value && onChange([...value, e.currentTarget.value as ChannelName])} aria-describedby={errors ? `${id}-error` : undefined}>
            <option value="">Choose a channel…</option>
            {rest.map((c) => (
              <option key={c} value={c}>
                {CHANNEL_LABELS[c]}
              </option>
            ))}
          </select>
        </>
      ) : null}
      {errors ? (
        <p id={`${id}-error`} class="field-error">
          {errors.join("; ")}
        </p>
      ) : null}
    </div>
  );
}
