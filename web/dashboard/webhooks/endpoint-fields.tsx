// The fields of a webhook endpoint, for adding one and for changing it: the receiver's URL, the event
// types it receives (SPEC's table, grouped), a description; the API's messages under each.
import type { WebhookEventType } from "../../../client";
import { describedBy, Field, fieldErrors } from "../ui/field";
import { WEBHOOK_EVENT_GROUPS, WEBHOOK_EVENT_LABELS, WEBHOOK_EVENT_TYPES } from "../vocabulary";

export interface EndpointDraft {
  url: string;
  events: WebhookEventType[];
  description: string;
}

interface Props {
  /** Prefix of the controls' ids, so two forms on one page never share one. */
  idPrefix: string;
  draft: EndpointDraft;
  onChange(draft: EndpointDraft): void;
  details?: Record<string, string[]>;
}

export function EndpointFields({ idPrefix, draft, onChange, details }: Props) {
  const id = (f: string) => `${idPrefix}-${f}`;
  const urlErrors = fieldErrors(details, "url");
  const eventErrors = fieldErrors(details, "events", ...draft.events.map((_, i) => `events[${i}]`));
  const descriptionErrors = fieldErrors(details, "description");
  const toggle = (type: WebhookEventType, on: boolean) =>
    onChange({ ...draft, events: on ? WEBHOOK_EVENT_TYPES.filter((t) => t === type || draft.events.includes(t)) : draft.events.filter((t) => t !== type) });
  return (
    <>
      <Field id={id("url")} label="URL" errors={urlErrors} hint="Where the service POSTs each event, signed; http(s), on a public address.">
        <input
          id={id("url")}
          type="url"
          value={draft.url}
          required
          placeholder="https://example.com/hooks/nms"
          spellcheck={false}
          onInput={(e) => onChange({ ...draft, url: e.currentTarget.value })}
          aria-invalid={urlErrors ? "true" : undefined}
          aria-describedby={describedBy(id("url"), true, urlErrors)}
        />
      </Field>
      <fieldset class={eventErrors ? "events has-error" : "events"} aria-describedby={eventErrors ? id("events-error") : undefined}>
        <legend>Events</legend>
        <div class="event-groups">
          {WEBHOOK_EVENT_GROUPS.map((group) => (
            <div key={group} class="event-group" role="group" aria-labelledby={id(`${group}-title`)}>
              <p id={id(`${group}-title`)} class="event-group-title">
                <code>{group}.*</code>
              </p>
              {WEBHOOK_EVENT_TYPES.filter((t) => t.startsWith(`${group}.`)).map((t) => (
                <label key={t} class="checkbox">
                  <input type="checkbox" value={t} checked={draft.events.includes(t)} onChange={(e) => toggle(t, e.currentTarget.checked)} />
                  <span>
                    {WEBHOOK_EVENT_LABELS[t]} <code class="small">{t}</code>
                  </span>
                </label>
              ))}
            </div>
          ))}
        </div>
        {eventErrors ? (
          <p id={id("events-error")} class="field-error">
            {eventErrors.join("; ")}
          </p>
        ) : null}
      </fieldset>
      <Field id={id("description")} label="Description (optional)" errors={descriptionErrors}>
        <input id={id("description")} value={draft.description} maxLength={500} onInput={(e) => onChange({ ...draft, description: e.currentTarget.value })} aria-describedby={describedBy(id("description"), false, descriptionErrors)} />
      </Field>
    </>
  );
}
