// Unit tests of domain/workflows/verdicts.ts, walking SPEC's "Workflow run" state table row by row:
// each row's decision (due, delivered, advance, terminal) as the pure function the engine calls.
import { describe, expect, test } from "bun:test";
import { isDue, isLive, judgeChannel, judgePrevious, previousOutcome, statusAfterStep } from "../../domain/workflows/verdicts";
import type { WorkflowRunMessage } from "../../domain/workflows/workflow-run-mail";

const RUN = "00000000-0000-4000-8000-000000000001";
const N1 = "00000000-0000-4000-8000-0000000000a1";
const N2 = "00000000-0000-4000-8000-0000000000a2";
const wait = (dueMs: number) => ({ token: "tok-1", due_at: new Date(dueMs).toISOString() });
const runMsg: WorkflowRunMessage = { v: 1, type: "run", runId: RUN };
const timer = (token: string): WorkflowRunMessage => ({ v: 1, type: "timer", runId: RUN, token });

describe("SPEC Workflow run state table", () => {
  test("row '(none) -> running on POST trigger': a new run is live and step 0 of several leaves it running", () => {
    expect(isLive("running")).toBe(true);
    expect(statusAfterStep(0, 3)).toBe("running");
  });

  test("row 'send step executes': the run advances to the next step in the same job (still running before the last)", () => {
    expect(statusAfterStep(1, 3)).toBe("running");
    // the send's notification is what a later fallback looks at
    expect(previousOutcome([{ type: "send", step: 0, channel: "email", notification_id: N1, status: "enqueued" }], 1)).toEqual({ notificationId: N1 });
  });

  describe("row 'delay step executes': execution stops until the scheduled time", () => {
    const now = 1_700_000_000_000;
    test("not due before its time on a plain job message", () => {
      expect(isDue(wait(now + 60_000), runMsg, now)).toBe(false);
    });
    test("due when its own timer fires, even a little early by the clock", () => {
      expect(isDue(wait(now + 60_000), timer("tok-1"), now)).toBe(true);
    });
    test("a timer left from an earlier wait (other token) is not this wait's", () => {
      expect(isDue(wait(now + 60_000), timer("tok-0"), now)).toBe(false);
    });
    test("due by the clock once its time has passed (a lost timer, the reconciler's message)", () => {
      expect(isDue(wait(now - 1), runMsg, now)).toBe(true);
      expect(isDue(wait(now), runMsg, now)).toBe(true);
    });
  });

  describe("row 'fallback step executes': previous delivered -> skipped; else channels in order until one succeeds", () => {
    test("previous send delivered: skip", () => {
      expect(judgePrevious("delivered")).toBe("delivered");
    });
    test("previous send pending or sent: wait for its outcome", () => {
      expect(judgePrevious("pending")).toBe("wait");
      expect(judgePrevious("sent")).toBe("wait");
    });
    test("previous send failed, bounced, suppressed or gone: try the channels", () => {
      for (const s of ["failed", "bounced", "suppressed", null]) expect(judgePrevious(s)).toBe("not_delivered");
    });
    test("a channel succeeds when delivered or sent, waits when pending, else the next channel is tried", () => {
      expect(judgeChannel("delivered")).toBe("success");
      expect(judgeChannel("sent")).toBe("success");
      expect(judgeChannel("pending")).toBe("wait");
      for (const s of ["failed", "bounced", "suppressed", null]) expect(judgeChannel(s)).toBe("failure");
    });
    test("the previous outcome is the nearest earlier send or fallback; delays are looked through", () => {
      const results = [
        { type: "send", step: 0, channel: "email", notification_id: N1, status: "enqueued" },
        { type: "delay", step: 1, duration: "1h", duration_seconds: 3600, scheduled_at: "2026-01-01T00:00:00.000Z" },
      ];
      expect(previousOutcome(results, 2)).toEqual({ notificationId: N1 });
    });
    test("an earlier fallback that was skipped counts as delivered; one that sent counts by its notification", () => {
      expect(previousOutcome([{ type: "fallback", step: 0, status: "skipped", reason: "previous_step_delivered" }], 1)).toEqual({ delivered: true });
      const sent = [
        { type: "send", step: 0, channel: "email", notification_id: N1, status: "enqueued" },
        { type: "fallback", step: 1, status: "sent", channel: "sms", notification_id: N2, attempts: [] },
      ];
      expect(previousOutcome(sent, 2)).toEqual({ notificationId: N2 });
    });
    test("nothing sent before (a fallback first, or a failed send): no previous outcome, the channels are tried", () => {
      expect(previousOutcome([], 0)).toBeNull();
      expect(previousOutcome([{ type: "send", step: 0, channel: "email", notification_id: null, status: "failed" }], 1)).toBeNull();
    });
    test("issue 21 rows: a step skipped by its `if` (condition_false) sent nothing, so the fallback looks further back", () => {
      const results = [
        { type: "send", step: 0, channel: "email", notification_id: N1, status: "enqueued" },
        { type: "fallback", step: 1, status: "skipped", reason: "condition_false" },
        { type: "send", step: 2, status: "skipped", reason: "condition_false" },
        { type: "throttle", step: 3, status: "passed" },
        { type: "digest", step: 4, status: "completed", event_count: 2, run_ids: [RUN] },
      ];
      expect(previousOutcome(results, 5)).toEqual({ notificationId: N1 });
      expect(previousOutcome(results.slice(1), 5)).toBeNull();
    });
    test("results at or after the step itself are not its previous outcome", () => {
      expect(previousOutcome([{ type: "send", step: 2, channel: "email", notification_id: N1, status: "enqueued" }], 2)).toBeNull();
    });
  });

  test("row 'last step finishes' -> completed", () => {
    expect(statusAfterStep(2, 3)).toBe("completed");
    expect(statusAfterStep(0, 1)).toBe("completed");
  });

  test("row 'POST cancel' on a running run -> cancelled: only a live run moves", () => {
    expect(isLive("running")).toBe(true);
  });

  test("rows 'a step fails' and 'POST cancel on a terminal run (409)': completed, failed, cancelled never move again", () => {
    for (const s of ["completed", "failed", "cancelled"] as const) expect(isLive(s)).toBe(false);
  });
});
