// Generated from schemas/broadcasts.ts by scripts/generate-client-types.ts: do not edit. The types
// Static<typeof Schema> gives for each TypeBox schema the server validates with, so @nms/client needs neither.

export type BroadcastIdParams = {
  /** Broadcast id */
  id: string;
};

export type BroadcastRecord = {
  id: string;
  /** The topic's key */
  topic: string;
  workflow_slug: string;
  workflow_version: number;
  /** fanning_out, completed or cancelled */
  status: string;
  recipients: number | null;
  runs_created: number;
  created_at: string;
  completed_at: string | null;
};

export type BroadcastResponse = {
  data: {
    id: string;
    /** The topic's key */
    topic: string;
    workflow_slug: string;
    workflow_version: number;
    /** fanning_out, completed or cancelled */
    status: string;
    recipients: number | null;
    runs_created: number;
    created_at: string;
    completed_at: string | null;
  };
};

export type BroadcastStarted = {
  /** The broadcast id */
  id: string;
  topic: string;
  workflow_slug: string;
  /** fanning_out */
  status: string;
  /** Known once the fan-out has started: GET /v1/broadcasts/:id */
  recipients: null;
};

export type BroadcastStartedResponse = {
  data: {
    /** The broadcast id */
    id: string;
    topic: string;
    workflow_slug: string;
    /** fanning_out */
    status: string;
    /** Known once the fan-out has started: GET /v1/broadcasts/:id */
    recipients: null;
  };
};

export type BulkRunsResponse = {
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
};

export type BulkTriggerBody = {
  /** array of object. 1-1,000 trigger events, each `{recipient|to, data|payload, locale}` as the single trigger takes them; validated all or nothing (details keyed `events[i].field`). */
  events?: unknown;
  [key: string]: unknown;
};
