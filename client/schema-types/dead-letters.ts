// Generated from schemas/dead-letters.ts by scripts/generate-client-types.ts: do not edit. The types
// Static<typeof Schema> gives for each TypeBox schema the server validates with, so @nms/client needs neither.

export type DeadLetter = {
  /** Entry id in the actor's dead-letter stream; an actor and an id name one dead letter */
  id: string;
  actor: string;
  /** Partition it was read from */
  partition: number;
  /** Its entry id in the partition stream when it failed */
  message_id: string;
  /** The message's actor key (one at a time per key) */
  key: string;
  /** The message as sent (JSON); the raw text when it was not readable JSON */
  message: unknown;
  /** Message of the last error */
  error: string;
  /** Stack of the last error (in the single dead letter only) */
  stack?: string;
  /** Runs before it was dead-lettered */
  deliveries: number;
  /** When it was dead-lettered (ISO 8601) */
  failed_at: string;
};

export type DeadLetterList = {
  /** Newest first */
  data: {
    /** Entry id in the actor's dead-letter stream; an actor and an id name one dead letter */
    id: string;
    actor: string;
    /** Partition it was read from */
    partition: number;
    /** Its entry id in the partition stream when it failed */
    message_id: string;
    /** The message's actor key (one at a time per key) */
    key: string;
    /** The message as sent (JSON); the raw text when it was not readable JSON */
    message: unknown;
    /** Message of the last error */
    error: string;
    /** Stack of the last error (in the single dead letter only) */
    stack?: string;
    /** Runs before it was dead-lettered */
    deliveries: number;
    /** When it was dead-lettered (ISO 8601) */
    failed_at: string;
  }[];
  meta: {
    limit: number;
    /** Pass as cursor for the next page; null on the last */
    next_cursor: string | null;
    /** Actor name -> dead letters it holds now */
    totals: { [key: string]: number };
  };
};

export type DeadLetterListQuery = {
  /** Only this actor's dead letters (default: every actor's) */
  actor?: string;
  /** meta.next_cursor of the previous page */
  cursor?: string;
  /** 1-500, default 50 */
  limit?: string;
};

export type DeadLetterParams = {
  actor: string;
  id: string;
};

export type DeadLetterResponse = {
  data: {
    /** Entry id in the actor's dead-letter stream; an actor and an id name one dead letter */
    id: string;
    actor: string;
    /** Partition it was read from */
    partition: number;
    /** Its entry id in the partition stream when it failed */
    message_id: string;
    /** The message's actor key (one at a time per key) */
    key: string;
    /** The message as sent (JSON); the raw text when it was not readable JSON */
    message: unknown;
    /** Message of the last error */
    error: string;
    /** Stack of the last error (in the single dead letter only) */
    stack?: string;
    /** Runs before it was dead-lettered */
    deliveries: number;
    /** When it was dead-lettered (ISO 8601) */
    failed_at: string;
  };
};

export type RedriveResponse = {
  data: {
    /** The dead letter's id (now deleted) */
    id: string;
    actor: string;
    /** The partition of its key, where it was appended */
    partition: number;
    /** Its new entry id in that partition stream (delivery count starts again at 1) */
    entry_id: string;
  };
};
