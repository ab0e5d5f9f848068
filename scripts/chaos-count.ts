// How scripts/chaos.ts judges provider traffic: per message body (one notification, or one workflow
// (run, step) whatever its rows), the provider calls against its attempt rows. Pure, so it is tested alone.

export interface BodyRows {
  /** notification ids with this body (more than one: a duplicated workflow step) */
  ids: string[];
  /** attempt rows with a provider outcome (success or failure) */
  recorded: number;
  /** attempt rows recorded outcome_unknown (the sender died between its claim and its outcome) */
  unknown: number;
}

export interface BodyCalls {
  calls: number;
  /** calls the provider accepted (2xx) */
  ok: number;
}

export interface Verdict {
  /** two calls for one attempt (more calls than attempts that could make one), or two accepted calls without an outcome_unknown attempt between them */
  trueDuplicate: boolean;
  /** calls of attempts recorded outcome_unknown that did reach the provider: each was followed by a retry */
  unknownOutcomeRetries: number;
}

export function judge(rows: BodyRows, calls: BodyCalls): Verdict {
  // calls with no recorded outcome were made by attempts whose sender died after calling
  const unmatched = calls.calls - rows.recorded;
  return {
    trueDuplicate: unmatched > rows.unknown || calls.ok > 1 + rows.unknown,
    unknownOutcomeRetries: Math.max(0, Math.min(rows.unknown, unmatched)),
  };
}
