// The endpoint's two sends on request: one signed test event now (POST .../test, its outcome shown),
// and a replay of every event of a time window it has not acknowledged (POST .../replay).
import { useState } from "preact/hooks";
import type { Webhook, WebhookEventType, WebhookReplayResult, WebhookTestResult } from "../../../client";
import { useDashboard } from "../app/context";
import { Choice } from "../ui/choice";
import { describedBy, Field, fieldErrors } from "../ui/field";
import { ErrorNotice } from "../ui/states";
import { TestPanel } from "../ui/test-panel";
import { useAction } from "../ui/use-load";
import { WEBHOOK_EVENT_TYPES } from "../vocabulary";

const SHAPES = WEBHOOK_EVENT_TYPES.filter((t) => t !== "notification.test");

export function TestEvent({ webhook: w, onSent }: { webhook: Webhook; onSent(): void }) {
  const { api } = useDashboard();
  const [shape, setShape] = useState<WebhookEventType | undefined>(undefined);
  const [result, setResult] = useState<WebhookTestResult | null>(null);
  const test = useAction(async () => {
    setResult(null);
    setResult(await api.webhooks.test(w.id, shape ? { event: shape } : {}));
    onSent();
  });
  return (
    <TestPanel
      test={test}
      result={result}
      submitLabel="Send test event"
      pendingLabel="Sending…"
      describe={(r) => (
        <>
          {r.status_code === null ? "The receiver did not answer" : `The receiver answered HTTP ${r.status_code}`} in {r.duration_ms} ms
          {r.success ? ": delivered." : r.error ? `: ${r.error.message}` : ": not a success."}
        </>
      )}
    >
      <Field id="test-shape" label="Data in the shape of" hint="A signed notification.test event goes to the URL now, even while the endpoint is disabled.">
        <Choice<WebhookEventType> id="test-shape" value={shape} choices={SHAPES} any="No sample data" onChange={setShape} aria-describedby="test-shape-hint" />
      </Field>
    </TestPanel>
  );
}

/** A Date as a datetime-local input's value (local time, minutes). */
function localInput(d: Date): string {
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

export function ReplayForm({ webhook: w, onQueued }: { webhook: Webhook; onQueued(): void }) {
  const { api } = useDashboard();
  const [since, setSince] = useState(() => localInput(new Date(Date.now() - 3_600_000)));
  const [until, setUntil] = useState("");
  const [result, setResult] = useState<WebhookReplayResult | null>(null);
  const replay = useAction(async () => {
    setResult(null);
    setResult(await api.webhooks.replay(w.id, { since: new Date(since), ...(until ? { until: new Date(until) } : {}) }));
    onQueued();
  });
  const sinceErrors = fieldErrors(replay.error?.details, "since");
  const untilErrors = fieldErrors(replay.error?.details, "until");
  return (
    <section aria-labelledby="replay-title">
      <h2 id="replay-title">Replay</h2>
      <p class="hint">Sends once more every event of the window that this endpoint has not acknowledged (failed, given up, or missed while it was disabled). Acknowledged events are skipped.</p>
      <form
        class="filters"
        aria-labelledby="replay-title"
        onSubmit={(e) => {
          e.preventDefault();
          if (since) replay.run();
        }}
      >
        <Field id="replay-since" label="From" errors={sinceErrors}>
          <input id="replay-since" type="datetime-local" required value={since} onInput={(e) => setSince(e.currentTarget.value)} aria-describedby={describedBy("replay-since", false, sinceErrors)} />
        </Field>
        <Field id="replay-until" label="Until (optional)" errors={untilErrors} hint="Empty: now.">
          <input id="replay-until" type="datetime-local" value={until} onInput={(e) => setUntil(e.currentTarget.value)} aria-describedby={describedBy("replay-until", true, untilErrors)} />
        </Field>
        <button type="submit" disabled={replay.pending || !since}>
          {replay.pending ? "Queueing…" : "Replay"}
        </button>
      </form>
      <div aria-live="polite">
        {replay.error ? <ErrorNotice error={replay.error} title="Not replayed" /> : null}
        {result ? (
          <p class="notice success-notice replay-result">
            {result.queued === 1 ? "1 event queued" : `${result.queued} events queued`} for one more attempt.
            {result.truncated ? ` More remain: replay again from ${new Date(result.last_event_at!).toLocaleString()}.` : ""}
          </p>
        ) : null}
      </div>
    </section>
  );
}
