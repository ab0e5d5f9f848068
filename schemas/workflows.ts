// TypeBox schemas of the workflow and workflow-run routes (SPEC "Workflow", "Workflow run",
// Endpoints "Workflows"): bodies, params, queries, records and the error responses, with examples.
import { t } from "elysia";
import { CHANNELS_TEXT } from "./channels";
import { PageMeta } from "./notifications";

// Field rules beyond the JSON shape (lengths, the slug alphabet, per-type required fields, the
// duration format and bound, unknown fields) are checked by domain/workflows/definitions.ts, which
// reports every failure at once keyed like `steps[2].duration`; the schema documents them.
const Field = (type: string, description: string) => t.Optional(t.Unknown({ description: `${type}. ${description}` }));

export const WORKFLOW_LIMITS = {
  steps: 10,
  slugLength: 100,
  nameLength: 255,
  /** 7 days, the longest delay (SPEC Limits) */
  maxDelaySeconds: 7 * 24 * 3600,
} as const;

export const StepInput = t.Object(
  {
    type: Field("string", "`send`, `delay`, `fallback`, `digest` or `throttle`."),
    channel: Field("string", `send: the channel, one of ${CHANNELS_TEXT}.`),
    template: Field("string", "send and fallback: the template slug; the trigger's data is its payload."),
    duration: Field("string", "delay: `<N>m`, `<N>h` or `<N>d`, N a positive integer, at most 7 days (10080m, 168h, 7d)."),
    until: Field("string", "delay, instead of duration: wait for the next `HH:MM` in the recipient's timezone (subscriber's, else the tenant's delivery timezone, else UTC)."),
    window: Field("string", "digest: `<N>m|<N>h|<N>d`, at most 24h; throttle: the rolling window, at most 7 days."),
    key: Field("string", "digest and throttle: optional Liquid over the trigger data splitting digests or throttles, e.g. `{{ data.thread_id }}`."),
    max_events: Field("integer", "digest: 2-1000; the digest closes early when this many events joined."),
    limit: Field("integer", "throttle: 1-1000 runs pass per window; the others end `throttled`."),
    if: Field("object", "any step: a JSON Logic rule over `data`, `subscriber` and `steps`; false skips the step (`skipped`, `condition_false`)."),
    channels: Field("array of string", "fallback: channels tried in order until one is delivered or sent (at least one)."),
    condition: Field("string", "fallback: only `not_delivered` (the default)."),
    category: Field("string", "send and fallback: the preference category of its notifications (a /v1/preference-categories key; others count as \"other\")."),
    priority: Field("string", "send and fallback: the notifications' lane, `high`, `normal` (the default) or `low` (docs/routing.md)."),
    critical: Field("boolean", "send and fallback: `true` for an OTP or security alert: the delivery policy's quiet hours and frequency caps do not apply to its notifications (docs/delivery-policy.md)."),
  },
  { additionalProperties: t.Unknown(), description: "One step; `type` selects the variant and its required fields." },
);

const STEPS_EXAMPLE = [
  { type: "send", channel: "email", template: "welcome-email" },
  { type: "delay", duration: "1h" },
  { type: "fallback", channels: ["sms", "whatsapp"], template: "welcome-sms", condition: "not_delivered" },
];

export const WorkflowCreateBody = t.Object(
  {
    slug: Field("string", "1-100 characters of a-z, 0-9, `-` and `_`; unique among the scope's active workflows."),
    name: Field("string", "1-255 characters."),
    steps: t.Array(StepInput, { description: "1 to 10 steps, run in order." }),
  },
  {
    // a schema, not `true`: the request normalizer keeps only extra keys matching one, and unknown
    // fields must reach the domain check to be refused by name
    additionalProperties: t.Unknown(),
    examples: [{ slug: "welcome", name: "Welcome series", steps: STEPS_EXAMPLE }],
  },
);

export const WorkflowUpdateBody = t.Object(
  {
    slug: Field("string", "Optional: kept when absent, or changed (1-100 of a-z, 0-9, `-`, `_`)."),
    name: Field("string", "1-255 characters."),
    steps: t.Array(StepInput, { description: "1 to 10 steps, run in order." }),
  },
  { additionalProperties: t.Unknown(), examples: [{ name: "Welcome series v2", steps: STEPS_EXAMPLE.slice(0, 2) }] },
);

export const TriggerBody = t.Object(
  {
    recipient: Field("string", "A subscriber (id or external_id) or a literal address (email, E.164 phone, push token). Alias `to`."),
    to: Field("string", "Alias of `recipient`."),
    data: Field("object", "Template payload of every send and fallback step. Alias `payload`."),
    payload: Field("object", "Alias of `data`."),
    locale: Field(
      "string",
      "Optional: the locale every send step renders in when the recipient subscriber has none (pt_BR, pt, en, en-US; docs/localization.md). Recorded on each notification.",
    ),
  },
  { additionalProperties: t.Unknown(), examples: [{ recipient: "user-123", data: { name: "Ana", code: "123456" } }, { recipient: "ana@example.com", data: { name: "Ana" }, locale: "en" }] },
);

export const WorkflowIdParams = t.Object({ id: t.String({ description: "Id of a workflow version" }) });
export const WorkflowSlugParams = t.Object({ slug: t.String({ description: "Slug of an active workflow" }) });
export const RunIdParams = t.Object({ id: t.String({ description: "Workflow run id" }) });

export const WorkflowListQuery = t.Object({
  limit: t.Optional(t.String({ description: "1-100, default 50" })),
  cursor: t.Optional(t.String({ description: "meta.cursor of the previous page" })),
  slug: t.Optional(t.String({ description: "Only versions with this slug" })),
  include_inactive: t.Optional(t.String({ description: "`true`: every version, not only the active ones" })),
});

export const RunListQuery = t.Object({
  limit: t.Optional(t.String({ description: "1-100, default 50" })),
  cursor: t.Optional(t.String({ description: "meta.cursor of the previous page" })),
  status: t.Optional(t.String({ description: "`running`, `completed`, `failed` or `cancelled`" })),
  workflow_id: t.Optional(t.String({ description: "Runs of this workflow version (UUID)" })),
  subscriber: t.Optional(
    t.String({ maxLength: 255, description: "Runs whose recipient is this subscriber (external_id or id); an unknown one gives an empty list" }),
  ),
});

const Nullable = <T extends import("@sinclair/typebox").TSchema>(s: T) => t.Union([s, t.Null()]);

export const WorkflowStep = t.Object({
  type: t.String({ description: "send, delay, fallback, digest or throttle" }),
  channel: t.Optional(t.String()),
  template: t.Optional(t.String()),
  duration: t.Optional(t.String()),
  channels: t.Optional(t.Array(t.String())),
  condition: t.Optional(t.String()),
  until: t.Optional(t.String({ description: "delay: local time HH:MM" })),
  window: t.Optional(t.String({ description: "digest and throttle" })),
  key: t.Optional(t.String({ description: "digest and throttle: Liquid over the trigger data" })),
  max_events: t.Optional(t.Integer({ description: "digest" })),
  limit: t.Optional(t.Integer({ description: "throttle" })),
  if: t.Optional(t.Record(t.String(), t.Unknown(), { description: "JSON Logic condition" })),
  category: t.Optional(t.String()),
  priority: t.Optional(t.String({ description: "send and fallback: high, normal or low (absent: normal)" })),
  critical: t.Optional(t.Boolean({ description: "send and fallback: quiet hours and frequency caps do not apply (absent: false)" })),
});

export const WorkflowRecord = t.Object({
  id: t.String({ description: "Id of this version (a new id per version)" }),
  slug: t.String(),
  name: t.String(),
  steps: t.Array(WorkflowStep),
  version: t.Integer(),
  active: t.Boolean(),
  inserted_at: t.String(),
  updated_at: t.String(),
});

const StepError = t.Object({ code: t.String(), message: t.String() });

export const FallbackAttempt = t.Object({
  channel: t.String(),
  notification_id: Nullable(t.String()),
  status: t.String({ description: "the notification's status when it was judged, or `failed` when none could be created" }),
  notification_status: t.Optional(Nullable(t.String({ description: "the notification's status now (read with the run)" }))),
  error: t.Optional(StepError),
});

export const StepResult = t.Object(
  {
    type: t.String({ description: "send, delay or fallback" }),
    step: t.Integer({ description: "zero-based index of the step" }),
    channel: t.Optional(Nullable(t.String())),
    notification_id: t.Optional(Nullable(t.String())),
    status: t.Optional(
      t.String({
        description:
          "send: `enqueued` or `failed`; fallback: `skipped`, `sent` or `failed`; digest: `completed` (leader) or `merged`; " +
          "throttle: `passed` or `throttled`; any step whose `if` was false: `skipped`",
      }),
    ),
    notification_status: t.Optional(
      Nullable(
        t.String({
          description:
            "send and fallback steps with a notification: that notification's status now (pending, sent, delivered, failed, bounced, " +
            "suppressed), read with the run; `status` keeps what the step did (`enqueued`). null when the notification was erased",
        }),
      ),
    ),
    duration: t.Optional(t.String()),
    duration_seconds: t.Optional(t.Integer()),
    scheduled_at: t.Optional(t.String({ description: "delay: when the run resumes" })),
    reason: t.Optional(t.String({ description: "fallback skipped: `previous_step_delivered`; a step whose condition was false: `condition_false`" })),
    until: t.Optional(t.String({ description: "delay until a local time: the HH:MM waited for" })),
    timezone: t.Optional(t.String({ description: "delay until a local time: the IANA timezone used" })),
    digest_run_id: t.Optional(t.String({ description: "digest merged: the leader run, which sends the digest" })),
    event_count: t.Optional(t.Integer({ description: "digest completed: events in the digest, the leader's included" })),
    run_ids: t.Optional(t.Array(t.String(), { description: "digest completed: the runs of the digest in arrival order, leader first" })),
    window_started_at: t.Optional(t.String()),
    window_ended_at: t.Optional(t.String()),
    attempts: t.Optional(t.Array(FallbackAttempt)),
    error: t.Optional(StepError),
  },
  {
    description:
      "send {type, step, channel, notification_id, status}; delay {type, step, duration, duration_seconds, scheduled_at}; " +
      "fallback {type, step, status, reason} when skipped, {type, step, status, channel, notification_id, attempts} otherwise; " +
      "a failed step adds error {code, message}",
  },
);

export const RunRecord = t.Object({
  id: t.String(),
  workflow_id: t.String({ description: "The version captured at trigger" }),
  workflow_slug: t.String(),
  workflow_version: t.Integer(),
  recipient: t.String(),
  status: t.String({ description: "running, completed, failed or cancelled" }),
  current_step: t.Integer({ description: "Step being or next to be run; the step count once completed" }),
  step_results: t.Array(StepResult),
  data: t.Record(t.String(), t.Unknown()),
  started_at: t.String(),
  completed_at: Nullable(t.String()),
});

const WORKFLOW_EXAMPLE = {
  id: "0195f1c2-7b7e-7a41-9c3e-2f4b6d8e1a01",
  slug: "welcome",
  name: "Welcome series",
  steps: [
    { type: "send", channel: "email", template: "welcome-email" },
    { type: "delay", duration: "1d" },
    { type: "fallback", channels: ["sms", "whatsapp"], template: "welcome-sms", condition: "not_delivered" },
  ],
  version: 1,
  active: true,
  inserted_at: "2026-11-24T10:00:00.000Z",
  updated_at: "2026-11-24T10:00:00.000Z",
};

const RUN_EXAMPLE = {
  id: "0195f1c3-0a10-7c2d-8e4f-5a6b7c8d9e02",
  workflow_id: WORKFLOW_EXAMPLE.id,
  workflow_slug: "welcome",
  workflow_version: 1,
  recipient: "user-123",
  status: "running",
  current_step: 1, // the delay (step 1) is being run
  step_results: [
    { type: "send", step: 0, channel: "email", notification_id: "0195f1c3-0a11-7000-8000-000000000003", status: "enqueued", notification_status: "delivered" },
    { type: "delay", step: 1, duration: "1d", duration_seconds: 86400, scheduled_at: "2026-11-25T10:00:00.000Z" },
  ],
  data: { name: "Ana" },
  started_at: "2026-11-24T10:00:00.000Z",
  completed_at: null,
};

const PAGE_EXAMPLE = { cursor: "eyJ0IjoiMjAyNi0xMS0yNFQxMDowMDowMC4wMDBaIiwiaWQiOiIwMTk1In0", has_more: true };

export const WorkflowResponse = t.Object({ data: WorkflowRecord }, { examples: [{ data: WORKFLOW_EXAMPLE }] });
export const WorkflowListResponse = t.Object({ data: t.Array(WorkflowRecord), meta: PageMeta }, { examples: [{ data: [WORKFLOW_EXAMPLE], meta: PAGE_EXAMPLE }] });
export const RunResponse = t.Object({ data: RunRecord }, { examples: [{ data: RUN_EXAMPLE }] });
export const RunListResponse = t.Object({ data: t.Array(RunRecord), meta: PageMeta }, { examples: [{ data: [RUN_EXAMPLE], meta: PAGE_EXAMPLE }] });
