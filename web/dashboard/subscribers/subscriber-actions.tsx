// Doing something for one subscriber from their page: send a test on a channel they can be reached
// on (POST /v1/notifications to their address, a template or a test message), or trigger a workflow
// for them (POST /v1/workflows/:slug/trigger with their external id).
import { useState } from "preact/hooks";
import type { AcceptedNotification, ChannelName, Subscriber } from "../../../client";
import { useDashboard } from "../app/context";
import { Choice } from "../ui/choice";
import { describedBy, Field, fieldErrors } from "../ui/field";
import { Link } from "../ui/link";
import { ErrorNotice } from "../ui/states";
import { useAction, useLoad } from "../ui/use-load";
import { CHANNEL_LABELS } from "../vocabulary";
import { jsonObject } from "../workflows/trigger-form";

const TEST_TEXT = "A test notification from the NMS dashboard.";

/** Where the subscriber can be reached: the address a channel takes (push needs a device token, which a subscriber record does not hold). */
export function reachable(s: Subscriber): { channel: ChannelName; to: string }[] {
  const out: { channel: ChannelName; to: string }[] = [];
  if (s.email) out.push({ channel: "email", to: s.email });
  if (s.phone) out.push({ channel: "sms", to: s.phone }, { channel: "whatsapp", to: s.phone });
  out.push({ channel: "in_app", to: s.external_id });
  return out;
}

function testMessage(channel: ChannelName): Record<string, string> {
  if (channel === "email") return { subject: "Test notification", content: TEST_TEXT };
  if (channel === "sms" || channel === "whatsapp") return { content: TEST_TEXT };
  return { title: "Test notification", body: TEST_TEXT };
}

export function SendTest({ subscriber, onSent }: { subscriber: Subscriber; onSent(): void }) {
  const { api, environment } = useDashboard();
  const targets = reachable(subscriber);
  const [channel, setChannel] = useState<ChannelName>(targets[0]!.channel);
  const [template, setTemplate] = useState("");
  const [dataText, setDataText] = useState(JSON.stringify({ name: subscriber.name ?? subscriber.external_id }));
  const [sent, setSent] = useState<AcceptedNotification | null>(null);
  const templates = useLoad(async () => await api.templates.list({ channel, limit: 100 }), [channel]);
  const data = jsonObject(dataText);
  const to = targets.find((t) => t.channel === channel)!.to;
  const send = useAction(async () => {
    setSent(null);
    const n = await api.notifications.create(template ? { channel, to, template, data: data ?? {} } : { channel, to, data: testMessage(channel) });
    setSent(n);
    onSent();
  });
  const dataErrors = template && data === null ? ['must be a JSON object, e.g. {"name": "Ana"}'] : fieldErrors(send.error?.details, "data");
  return (
    <section aria-labelledby="send-test-title">
      <h2 id="send-test-title">Send a test</h2>
      <form
        class="stack narrow"
        aria-labelledby="send-test-title"
        onSubmit={(e) => {
          e.preventDefault();
          if (!template || data !== null) send.run();
        }}
      >
        <Field id="test-channel" label="Channel" hint={`To ${to}`}>
          <Choice
            id="test-channel"
            value={channel}
            choices={targets.map((t) => t.channel)}
            labels={CHANNEL_LABELS}
            onChange={(v) => {
              setChannel(v!);
              setTemplate("");
            }}
            aria-describedby="test-channel-hint"
          />
        </Field>
        <Field
          id="test-template"
          label="Template"
          hint={environment === "production" ? "Production sends need an active template and a configured channel." : "Sandbox: any template; unconfigured channels use the sandbox provider."}
        >
          <select id="test-template" value={template} onChange={(e) => setTemplate(e.currentTarget.value)} aria-describedby="test-template-hint">
            <option value="">None: a short test message</option>
            {templates.status === "ready"
              ? templates.data.data.map((t) => (
                  <option key={t.id} value={t.slug}>
                    {t.name} ({t.slug}, {t.status})
                  </option>
                ))
              : null}
          </select>
        </Field>
        {template ? (
          <Field id="test-data" label="Data (JSON)" errors={dataErrors}>
            <textarea id="test-data" rows={3} spellcheck={false} value={dataText} onInput={(e) => setDataText(e.currentTarget.value)} aria-describedby={describedBy("test-data", false, dataErrors)} />
          </Field>
        ) : null}
        {send.error ? <ErrorNotice error={send.error} title="Not sent" /> : null}
        <div class="button-row">
          <button type="submit" disabled={send.pending}>
            {send.pending ? "Sending…" : "Send test"}
          </button>
        </div>
      </form>
      <div aria-live="polite">
        {sent ? (
          <p class="notice success-notice test-sent">
            Queued for {sent.recipient}. <Link to={`/notifications/${sent.id}`}>Follow the notification</Link>
          </p>
        ) : null}
      </div>
    </section>
  );
}

export function TriggerForSubscriber({ subscriber }: { subscriber: Subscriber }) {
  const { api, go } = useDashboard();
  const workflows = useLoad(async () => await api.workflows.list({ limit: 100 }), []);
  const [slug, setSlug] = useState("");
  const [dataText, setDataText] = useState(JSON.stringify({ name: subscriber.name ?? subscriber.external_id }));
  const data = jsonObject(dataText);
  const trigger = useAction(async () => {
    const run = await api.workflows.trigger(slug, { recipient: subscriber.external_id, data: data ?? {} });
    go(`/workflow-runs/${run.id}`, {}, { notice: `Run started for ${subscriber.external_id}.` });
  });
  const dataErrors = data === null ? ['must be a JSON object, e.g. {"name": "Ana"}'] : fieldErrors(trigger.error?.details, "data", "payload");
  const list = workflows.status === "ready" ? workflows.data.data : [];
  return (
    <section aria-labelledby="trigger-for-title">
      <h2 id="trigger-for-title">Trigger a workflow</h2>
      {workflows.status === "ready" && list.length === 0 ? (
        <p class="muted">
          No workflow in this environment yet: <Link to="/workflows/new">create one</Link>.
        </p>
      ) : (
        <form
          class="stack narrow"
          aria-labelledby="trigger-for-title"
          onSubmit={(e) => {
            e.preventDefault();
            if (slug && data !== null) trigger.run();
          }}
        >
          <Field id="trigger-workflow" label="Workflow" hint={`Runs for ${subscriber.external_id}: each step reaches them on its channel.`}>
            <select id="trigger-workflow" required value={slug} onChange={(e) => setSlug(e.currentTarget.value)} aria-describedby="trigger-workflow-hint">
              <option value="">Choose a workflow</option>
              {list.map((w) => (
                <option key={w.id} value={w.slug}>
                  {w.name} ({w.slug})
                </option>
              ))}
            </select>
          </Field>
          <Field id="trigger-for-data" label="Data (JSON)" errors={dataErrors}>
            <textarea id="trigger-for-data" rows={3} spellcheck={false} value={dataText} onInput={(e) => setDataText(e.currentTarget.value)} aria-describedby={describedBy("trigger-for-data", false, dataErrors)} />
          </Field>
          {trigger.error ? <ErrorNotice error={trigger.error} title="Not triggered" /> : null}
          <div class="button-row">
            <button type="submit" disabled={trigger.pending || !slug}>
              {trigger.pending ? "Starting…" : "Trigger for this subscriber"}
            </button>
          </div>
        </form>
      )}
    </section>
  );
}
