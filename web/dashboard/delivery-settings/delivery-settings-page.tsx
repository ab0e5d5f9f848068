// The delivery policy (/v1/settings/delivery): time zone, quiet hours (held sends go out when they
// end) and frequency caps across workflows; saved as a whole, errors shown beside their fields.
import { useEffect, useState } from "preact/hooks";
import type { DeliverySettings } from "../../../client";
import { CHANNELS } from "../../../schemas/channels";
import { useDashboard } from "../app/context";
import type { PageProps } from "../app/section";
import { Field, fieldErrors } from "../ui/field";
import { PageHeader } from "../ui/page-header";
import { Async, ErrorNotice } from "../ui/states";
import { useAction, useLoad } from "../ui/use-load";

type Cap = { channel: string; limit: string; window: string };

export function DeliverySettingsPage(_: PageProps) {
  const { api } = useDashboard();
  const load = useLoad(async () => await api.deliverySettings.retrieve(), []);
  return (
    <>
      <PageHeader title="Delivery settings" />
      <p class="lead">Quiet hours hold a send until they end; frequency caps suppress sends over a limit, across every workflow and the API. Notifications sent with critical: true ignore both.</p>
      <Async load={load} label="Loading the delivery settings" rows={4}>
        {(s) => <SettingsForm initial={s} onSaved={(v) => load.setData(v)} />}
      </Async>
    </>
  );
}

function SettingsForm({ initial, onSaved }: { initial: DeliverySettings; onSaved: (s: DeliverySettings) => void }) {
  const { api } = useDashboard();
  const [timezone, setTimezone] = useState(initial.timezone);
  const [quiet, setQuiet] = useState(initial.quiet_hours !== null);
  const [start, setStart] = useState(initial.quiet_hours?.start ?? "22:00");
  const [end, setEnd] = useState(initial.quiet_hours?.end ?? "08:00");
  const [channels, setChannels] = useState<string[]>(initial.quiet_hours?.channels ?? ["sms", "push", "whatsapp"]);
  const [caps, setCaps] = useState<Cap[]>(initial.frequency_caps.map((c) => ({ channel: c.channel, limit: String(c.limit), window: c.window })));
  const [saved, setSaved] = useState(false);
  useEffect(() => setSaved(false), [timezone, quiet, start, end, channels, caps]);
  const save = useAction(async () => {
    const out = await api.deliverySettings.update({
      timezone: timezone.trim(),
      quiet_hours: quiet ? { start, end, channels } : null,
      frequency_caps: caps.map((c) => ({ channel: c.channel, limit: Number(c.limit), window: c.window.trim() })),
    });
    onSaved(out);
    setSaved(true);
  });
  const d = save.error?.details;
  const setCap = (i: number, patch: Partial<Cap>) => setCaps(caps.map((c, k) => (k === i ? { ...c, ...patch } : c)));
  return (
    <form
      class="stack narrow"
      aria-label="Delivery settings"
      onSubmit={(e) => {
        e.preventDefault();
        save.run();
      }}
    >
      <Field id="ds-timezone" label="Time zone" errors={fieldErrors(d, "timezone")} hint="IANA zone used when a subscriber has none, e.g. America/Sao_Paulo">
        <input id="ds-timezone" value={timezone} onInput={(e) => setTimezone(e.currentTarget.value)} />
      </Field>
      <fieldset>
        <legend>Quiet hours</legend>
        <label>
          <input type="checkbox" checked={quiet} onChange={(e) => setQuiet(e.currentTarget.checked)} /> Hold sends during quiet hours
        </label>
        {quiet ? (
          <>
            <Field id="ds-start" label="From" errors={fieldErrors(d, "quiet_hours.start")}>
              <input id="ds-start" type="time" value={start} onInput={(e) => setStart(e.currentTarget.value)} />
            </Field>
            <Field id="ds-end" label="Until" errors={fieldErrors(d, "quiet_hours.end")}>
              <input id="ds-end" type="time" value={end} onInput={(e) => setEnd(e.currentTarget.value)} />
            </Field>
            <div role="group" aria-label="Quiet hours channels">
              {CHANNELS.map((c) => (
                <label key={c}>
                  <input type="checkbox" checked={channels.includes(c)} onChange={(e) => setChannels(e.currentTarget.checked ? [...channels, c] : channels.filter((x) => x !== c))} /> {c}
                </label>
              ))}
            </div>
            {fieldErrors(d, "quiet_hours.channels") ? <p class="field-error">{fieldErrors(d, "quiet_hours.channels")!.join(" ")}</p> : null}
          </>
        ) : null}
      </fieldset>
      <fieldset>
        <legend>Frequency caps</legend>
        {caps.map((c, i) => (
          <div class="cap-row" key={i} role="group" aria-label={`Cap ${i + 1}`}>
            <select aria-label={`Cap ${i + 1} channel`} value={c.channel} onChange={(e) => setCap(i, { channel: e.currentTarget.value })}>
              {CHANNELS.map((ch) => (
                <option key={ch} value={ch}>
                  {ch}
                </option>
              ))}
            </select>
            <input aria-label={`Cap ${i + 1} limit`} inputMode="numeric" value={c.limit} onInput={(e) => setCap(i, { limit: e.currentTarget.value })} />
            <span> per </span>
            <input aria-label={`Cap ${i + 1} window`} value={c.window} placeholder="1h" onInput={(e) => setCap(i, { window: e.currentTarget.value })} />
            <button type="button" class="secondary" onClick={() => setCaps(caps.filter((_, k) => k !== i))}>
              Remove
            </button>
            {["channel", "limit", "window"].flatMap((f) => fieldErrors(d, `frequency_caps[${i}].${f}`) ?? []).map((m) => (
              <p class="field-error" key={m}>
                {m}
              </p>
            ))}
          </div>
        ))}
        <button type="button" class="secondary" onClick={() => setCaps([...caps, { channel: "push", limit: "3", window: "1h" }])}>
          Add a cap
        </button>
      </fieldset>
      {save.error ? <ErrorNotice error={save.error} title="Not saved" /> : null}
      {saved ? <p role="status">Saved. Sends not yet made follow the new settings within seconds.</p> : null}
      <div class="button-row">
        <button type="submit" disabled={save.pending}>
          {save.pending ? "Saving…" : "Save"}
        </button>
      </div>
    </form>
  );
}
