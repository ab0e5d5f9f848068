// Generated from schemas/workflows.ts by scripts/generate-client-types.ts: do not edit. The types
// Static<typeof Schema> gives for each TypeBox schema the server validates with, so @nms/client needs neither.

export type FallbackAttempt = {
  channel: string;
  notification_id: string | null;
  /** the notification's status when it was judged, or `failed` when none could be created */
  status: string;
  notification_status?: string | null;
  error?: {
    code: string;
    message: string;
  };
};

export type RunIdParams = {
  /** Workflow run id */
  id: string;
};

export type RunListQuery = {
  /** 1-100, default 50 */
  limit?: string;
  /** meta.cursor of the previous page */
  cursor?: string;
  /** `running`, `completed`, `failed` or `cancelled` */
  status?: string;
  /** Runs of this workflow version (UUID) */
  workflow_id?: string;
  /** Runs whose recipient is this subscriber (external_id or id); an unknown one gives an empty list */
  subscriber?: string;
};

export type RunListResponse = {
  data: {
    id: string;
    /** The version captured at trigger */
    workflow_id: string;
    workflow_slug: string;
    workflow_version: number;
    recipient: string;
    /** running, completed, failed or cancelled */
    status: string;
    /** Step being or next to be run; the step count once completed */
    current_step: number;
    step_results: {
      /** send, delay or fallback */
      type: string;
      /** zero-based index of the step */
      step: number;
      channel?: string | null;
      notification_id?: string | null;
      /** send: `enqueued` or `failed`; fallback: `skipped`, `sent` or `failed`; digest: `completed` (leader) or `merged`; throttle: `passed` or `throttled`; any step whose `if` was false: `skipped` */
      status?: string;
      notification_status?: string | null;
      duration?: string;
      duration_seconds?: number;
      /** delay: when the run resumes */
      scheduled_at?: string;
      /** fallback skipped: `previous_step_delivered`; a step whose condition was false: `condition_false` */
      reason?: string;
      /** delay until a local time: the HH:MM waited for */
      until?: string;
      /** delay until a local time: the IANA timezone used */
      timezone?: string;
      /** digest merged: the leader run, which sends the digest */
      digest_run_id?: string;
      /** digest completed: events in the digest, the leader's included */
      event_count?: number;
      /** digest completed: the runs of the digest in arrival order, leader first */
      run_ids?: string[];
      window_started_at?: string;
      window_ended_at?: string;
      attempts?: {
        channel: string;
        notification_id: string | null;
        /** the notification's status when it was judged, or `failed` when none could be created */
        status: string;
        notification_status?: string | null;
        error?: {
          code: string;
          message: string;
        };
      }[];
      error?: {
        code: string;
        message: string;
      };
    }[];
    data: { [key: string]: unknown };
    started_at: string;
    completed_at: string | null;
  }[];
  meta: {
    cursor: string | null;
    has_more: boolean;
  };
};

export type RunRecord = {
  id: string;
  /** The version captured at trigger */
  workflow_id: string;
  workflow_slug: string;
  workflow_version: number;
  recipient: string;
  /** running, completed, failed or cancelled */
  status: string;
  /** Step being or next to be run; the step count once completed */
  current_step: number;
  step_results: {
    /** send, delay or fallback */
    type: string;
    /** zero-based index of the step */
    step: number;
    channel?: string | null;
    notification_id?: string | null;
    /** send: `enqueued` or `failed`; fallback: `skipped`, `sent` or `failed`; digest: `completed` (leader) or `merged`; throttle: `passed` or `throttled`; any step whose `if` was false: `skipped` */
    status?: string;
    notification_status?: string | null;
    duration?: string;
    duration_seconds?: number;
    /** delay: when the run resumes */
    scheduled_at?: string;
    /** fallback skipped: `previous_step_delivered`; a step whose condition was false: `condition_false` */
    reason?: string;
    /** delay until a local time: the HH:MM waited for */
    until?: string;
    /** delay until a local time: the IANA timezone used */
    timezone?: string;
    /** digest merged: the leader run, which sends the digest */
    digest_run_id?: string;
    /** digest completed: events in the digest, the leader's included */
    event_count?: number;
    /** digest completed: the runs of the digest in arrival order, leader first */
    run_ids?: string[];
    window_started_at?: string;
    window_ended_at?: string;
    attempts?: {
      channel: string;
      notification_id: string | null;
      /** the notification's status when it was judged, or `failed` when none could be created */
      status: string;
      notification_status?: string | null;
      error?: {
        code: string;
        message: string;
      };
    }[];
    error?: {
      code: string;
      message: string;
    };
  }[];
  data: { [key: string]: unknown };
  started_at: string;
  completed_at: string | null;
};

export type RunResponse = {
  data: {
    id: string;
    /** The version captured at trigger */
    workflow_id: string;
    workflow_slug: string;
    workflow_version: number;
    recipient: string;
    /** running, completed, failed or cancelled */
    status: string;
    /** Step being or next to be run; the step count once completed */
    current_step: number;
    step_results: {
      /** send, delay or fallback */
      type: string;
      /** zero-based index of the step */
      step: number;
      channel?: string | null;
      notification_id?: string | null;
      /** send: `enqueued` or `failed`; fallback: `skipped`, `sent` or `failed`; digest: `completed` (leader) or `merged`; throttle: `passed` or `throttled`; any step whose `if` was false: `skipped` */
      status?: string;
      notification_status?: string | null;
      duration?: string;
      duration_seconds?: number;
      /** delay: when the run resumes */
      scheduled_at?: string;
      /** fallback skipped: `previous_step_delivered`; a step whose condition was false: `condition_false` */
      reason?: string;
      /** delay until a local time: the HH:MM waited for */
      until?: string;
      /** delay until a local time: the IANA timezone used */
      timezone?: string;
      /** digest merged: the leader run, which sends the digest */
      digest_run_id?: string;
      /** digest completed: events in the digest, the leader's included */
      event_count?: number;
      /** digest completed: the runs of the digest in arrival order, leader first */
      run_ids?: string[];
      window_started_at?: string;
      window_ended_at?: string;
      attempts?: {
        channel: string;
        notification_id: string | null;
        /** the notification's status when it was judged, or `failed` when none could be created */
        status: string;
        notification_status?: string | null;
        error?: {
          code: string;
          message: string;
        };
      }[];
      error?: {
        code: string;
        message: string;
      };
    }[];
    data: { [key: string]: unknown };
    started_at: string;
    completed_at: string | null;
  };
};

/** One step; `type` selects the variant and its required fields. */
export type StepInput = {
  /** string. `send`, `delay`, `fallback`, `digest` or `throttle`. */
  type?: unknown;
  /** string. send: the channel, one of email, whatsapp, sms, in_app or push. */
  channel?: unknown;
  /** string. send and fallback: the template slug; the trigger's data is its payload. */
  template?: unknown;
  /** string. delay: `<N>m`, `<N>h` or `<N>d`, N a positive integer, at most 7 days (10080m, 168h, 7d). */
  duration?: unknown;
  /** string. delay, instead of duration: wait for the next `HH:MM` in the recipient's timezone (subscriber's, else the tenant's delivery timezone, else UTC). */
  until?: unknown;
  /** string. digest: `<N>m|<N>h|<N>d`, at most 24h; throttle: the rolling window, at most 7 days. */
  window?: unknown;
  /** string. digest and throttle: optional Liquid over the trigger data splitting digests or throttles, e.g. `{{ data.thread_id }}`. */
  key?: unknown;
  /** integer. digest: 2-1000; the digest closes early when this many events joined. */
  max_events?: unknown;
  /** integer. throttle: 1-1000 runs pass per window; the others end `throttled`. */
  limit?: unknown;
  /** object. any step: a JSON Logic rule over `data`, `subscriber` and `steps`; false skips the step (`skipped`, `condition_false`). */
  if?: unknown;
  /** array of string. fallback: channels tried in order until one is delivered or sent (at least one). */
  channels?: unknown;
  /** string. fallback: only `not_delivered` (the default). */
  condition?: unknown;
  /** string. send and fallback: the preference category of its notifications (a /v1/preference-categories key; others count as "other"). */
  category?: unknown;
  /** string. send and fallback: the notifications' lane, `high`, `normal` (the default) or `low` (docs/routing.md). */
  priority?: unknown;
  /** boolean. send and fallback: `true` for an OTP or security alert: the delivery policy's quiet hours and frequency caps do not apply to its notifications (docs/delivery-policy.md). */
  critical?: unknown;
  [key: string]: unknown;
};

/** send {type, step, channel, notification_id, status}; delay {type, step, duration, duration_seconds, scheduled_at}; fallback {type, step, status, reason} when skipped, {type, step, status, channel, notification_id, attempts} otherwise; a failed step adds error {code, message} */
export type StepResult = {
  /** send, delay or fallback */
  type: string;
  /** zero-based index of the step */
  step: number;
  channel?: string | null;
  notification_id?: string | null;
  /** send: `enqueued` or `failed`; fallback: `skipped`, `sent` or `failed`; digest: `completed` (leader) or `merged`; throttle: `passed` or `throttled`; any step whose `if` was false: `skipped` */
  status?: string;
  notification_status?: string | null;
  duration?: string;
  duration_seconds?: number;
  /** delay: when the run resumes */
  scheduled_at?: string;
  /** fallback skipped: `previous_step_delivered`; a step whose condition was false: `condition_false` */
  reason?: string;
  /** delay until a local time: the HH:MM waited for */
  until?: string;
  /** delay until a local time: the IANA timezone used */
  timezone?: string;
  /** digest merged: the leader run, which sends the digest */
  digest_run_id?: string;
  /** digest completed: events in the digest, the leader's included */
  event_count?: number;
  /** digest completed: the runs of the digest in arrival order, leader first */
  run_ids?: string[];
  window_started_at?: string;
  window_ended_at?: string;
  attempts?: {
    channel: string;
    notification_id: string | null;
    /** the notification's status when it was judged, or `failed` when none could be created */
    status: string;
    notification_status?: string | null;
    error?: {
      code: string;
      message: string;
    };
  }[];
  error?: {
    code: string;
    message: string;
  };
};

export type TriggerBody = {
  /** string. A subscriber (id or external_id) or a literal address (email, E.164 phone, push token). Alias `to`. */
  recipient?: unknown;
  /** string. Alias of `recipient`. */
  to?: unknown;
  /** object. Template payload of every send and fallback step. Alias `payload`. */
  data?: unknown;
  /** object. Alias of `data`. */
  payload?: unknown;
  /** string. Optional: the locale every send step renders in when the recipient subscriber has none (pt_BR, pt, en, en-US; docs/localization.md). Recorded on each notification. */
  locale?: unknown;
  [key: string]: unknown;
};

export type WorkflowCreateBody = {
  /** string. 1-100 characters of a-z, 0-9, `-` and `_`; unique among the scope's active workflows. */
  slug?: unknown;
  /** string. 1-255 characters. */
  name?: unknown;
  /** 1 to 10 steps, run in order. */
  steps: {
    /** string. `send`, `delay`, `fallback`, `digest` or `throttle`. */
    type?: unknown;
    /** string. send: the channel, one of email, whatsapp, sms, in_app or push. */
    channel?: unknown;
    /** string. send and fallback: the template slug; the trigger's data is its payload. */
    template?: unknown;
    /** string. delay: `<N>m`, `<N>h` or `<N>d`, N a positive integer, at most 7 days (10080m, 168h, 7d). */
    duration?: unknown;
    /** string. delay, instead of duration: wait for the next `HH:MM` in the recipient's timezone (subscriber's, else the tenant's delivery timezone, else UTC). */
    until?: unknown;
    /** string. digest: `<N>m|<N>h|<N>d`, at most 24h; throttle: the rolling window, at most 7 days. */
    window?: unknown;
    /** string. digest and throttle: optional Liquid over the trigger data splitting digests or throttles, e.g. `{{ data.thread_id }}`. */
    key?: unknown;
    /** integer. digest: 2-1000; the digest closes early when this many events joined. */
    max_events?: unknown;
    /** integer. throttle: 1-1000 runs pass per window; the others end `throttled`. */
    limit?: unknown;
    /** object. any step: a JSON Logic rule over `data`, `subscriber` and `steps`; false skips the step (`skipped`, `condition_false`). */
    if?: unknown;
    /** array of string. fallback: channels tried in order until one is delivered or sent (at least one). */
    channels?: unknown;
    /** string. fallback: only `not_delivered` (the default). */
    condition?: unknown;
    /** string. send and fallback: the preference category of its notifications (a /v1/preference-categories key; others count as "other"). */
    category?: unknown;
    /** string. send and fallback: the notifications' lane, `high`, `normal` (the default) or `low` (docs/routing.md). */
    priority?: unknown;
    /** boolean. send and fallback: `true` for an OTP or security alert: the delivery policy's quiet hours and frequency caps do not apply to its notifications (docs/delivery-policy.md). */
    critical?: unknown;
    [key: string]: unknown;
  }[];
  [key: string]: unknown;
};

export type WorkflowIdParams = {
  /** Id of a workflow version */
  id: string;
};

export type WorkflowListQuery = {
  /** 1-100, default 50 */
  limit?: string;
  /** meta.cursor of the previous page */
  cursor?: string;
  /** Only versions with this slug */
  slug?: string;
  /** `true`: every version, not only the active ones */
  include_inactive?: string;
};

export type WorkflowListResponse = {
  data: {
    /** Id of this version (a new id per version) */
    id: string;
    slug: string;
    name: string;
    steps: {
      /** send, delay, fallback, digest or throttle */
      type: string;
      channel?: string;
      template?: string;
      duration?: string;
      channels?: string[];
      condition?: string;
      /** delay: local time HH:MM */
      until?: string;
      /** digest and throttle */
      window?: string;
      /** digest and throttle: Liquid over the trigger data */
      key?: string;
      /** digest */
      max_events?: number;
      /** throttle */
      limit?: number;
      /** JSON Logic condition */
      if?: { [key: string]: unknown };
      category?: string;
      /** send and fallback: high, normal or low (absent: normal) */
      priority?: string;
      /** send and fallback: quiet hours and frequency caps do not apply (absent: false) */
      critical?: boolean;
    }[];
    version: number;
    active: boolean;
    inserted_at: string;
    updated_at: string;
  }[];
  meta: {
    cursor: string | null;
    has_more: boolean;
  };
};

export type WorkflowRecord = {
  /** Id of this version (a new id per version) */
  id: string;
  slug: string;
  name: string;
  steps: {
    /** send, delay, fallback, digest or throttle */
    type: string;
    channel?: string;
    template?: string;
    duration?: string;
    channels?: string[];
    condition?: string;
    /** delay: local time HH:MM */
    until?: string;
    /** digest and throttle */
    window?: string;
    /** digest and throttle: Liquid over the trigger data */
    key?: string;
    /** digest */
    max_events?: number;
    /** throttle */
    limit?: number;
    /** JSON Logic condition */
    if?: { [key: string]: unknown };
    category?: string;
    /** send and fallback: high, normal or low (absent: normal) */
    priority?: string;
    /** send and fallback: quiet hours and frequency caps do not apply (absent: false) */
    critical?: boolean;
  }[];
  version: number;
  active: boolean;
  inserted_at: string;
  updated_at: string;
};

export type WorkflowResponse = {
  data: {
    /** Id of this version (a new id per version) */
    id: string;
    slug: string;
    name: string;
    steps: {
      /** send, delay, fallback, digest or throttle */
      type: string;
      channel?: string;
      template?: string;
      duration?: string;
      channels?: string[];
      condition?: string;
      /** delay: local time HH:MM */
      until?: string;
      /** digest and throttle */
      window?: string;
      /** digest and throttle: Liquid over the trigger data */
      key?: string;
      /** digest */
      max_events?: number;
      /** throttle */
      limit?: number;
      /** JSON Logic condition */
      if?: { [key: string]: unknown };
      category?: string;
      /** send and fallback: high, normal or low (absent: normal) */
      priority?: string;
      /** send and fallback: quiet hours and frequency caps do not apply (absent: false) */
      critical?: boolean;
    }[];
    version: number;
    active: boolean;
    inserted_at: string;
    updated_at: string;
  };
};

export type WorkflowSlugParams = {
  /** Slug of an active workflow */
  slug: string;
};

export type WorkflowStep = {
  /** send, delay, fallback, digest or throttle */
  type: string;
  channel?: string;
  template?: string;
  duration?: string;
  channels?: string[];
  condition?: string;
  /** delay: local time HH:MM */
  until?: string;
  /** digest and throttle */
  window?: string;
  /** digest and throttle: Liquid over the trigger data */
  key?: string;
  /** digest */
  max_events?: number;
  /** throttle */
  limit?: number;
  /** JSON Logic condition */
  if?: { [key: string]: unknown };
  category?: string;
  /** send and fallback: high, normal or low (absent: normal) */
  priority?: string;
  /** send and fallback: quiet hours and frequency caps do not apply (absent: false) */
  critical?: boolean;
};

export type WorkflowUpdateBody = {
  /** string. Optional: kept when absent, or changed (1-100 of a-z, 0-9, `-`, `_`). */
  slug?: unknown;
  /** string. 1-255 characters. */
  name?: unknown;
  /** 1 to 10 steps, run in order. */
  steps: {
    /** string. `send`, `delay`, `fallback`, `digest` or `throttle`. */
    type?: unknown;
    /** string. send: the channel, one of email, whatsapp, sms, in_app or push. */
    channel?: unknown;
    /** string. send and fallback: the template slug; the trigger's data is its payload. */
    template?: unknown;
    /** string. delay: `<N>m`, `<N>h` or `<N>d`, N a positive integer, at most 7 days (10080m, 168h, 7d). */
    duration?: unknown;
    /** string. delay, instead of duration: wait for the next `HH:MM` in the recipient's timezone (subscriber's, else the tenant's delivery timezone, else UTC). */
    until?: unknown;
    /** string. digest: `<N>m|<N>h|<N>d`, at most 24h; throttle: the rolling window, at most 7 days. */
    window?: unknown;
    /** string. digest and throttle: optional Liquid over the trigger data splitting digests or throttles, e.g. `{{ data.thread_id }}`. */
    key?: unknown;
    /** integer. digest: 2-1000; the digest closes early when this many events joined. */
    max_events?: unknown;
    /** integer. throttle: 1-1000 runs pass per window; the others end `throttled`. */
    limit?: unknown;
    /** object. any step: a JSON Logic rule over `data`, `subscriber` and `steps`; false skips the step (`skipped`, `condition_false`). */
    if?: unknown;
    /** array of string. fallback: channels tried in order until one is delivered or sent (at least one). */
    channels?: unknown;
    /** string. fallback: only `not_delivered` (the default). */
    condition?: unknown;
    /** string. send and fallback: the preference category of its notifications (a /v1/preference-categories key; others count as "other"). */
    category?: unknown;
    /** string. send and fallback: the notifications' lane, `high`, `normal` (the default) or `low` (docs/routing.md). */
    priority?: unknown;
    /** boolean. send and fallback: `true` for an OTP or security alert: the delivery policy's quiet hours and frequency caps do not apply to its notifications (docs/delivery-policy.md). */
    critical?: unknown;
    [key: string]: unknown;
  }[];
  [key: string]: unknown;
};
