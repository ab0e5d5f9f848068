// How the chaos check tells a true duplicate from a retry after an unknown outcome (scripts/chaos-count.ts).
import { describe, expect, test } from "bun:test";
import { judge } from "../../scripts/chaos-count";

const rows = (recorded: number, unknown: number) => ({ ids: ["n1"], recorded, unknown });

describe("judge", () => {
  test("one call, its outcome recorded: clean", () => {
    expect(judge(rows(1, 0), { calls: 1, ok: 1 })).toEqual({ trueDuplicate: false, unknownOutcomeRetries: 0 });
  });

  test("a 503 then an accepted retry: two recorded attempts, no duplicate", () => {
    expect(judge(rows(2, 0), { calls: 2, ok: 1 })).toEqual({ trueDuplicate: false, unknownOutcomeRetries: 0 });
  });

  test("the sender died after the provider accepted: outcome_unknown, then a retry that is accepted again", () => {
    expect(judge(rows(1, 1), { calls: 2, ok: 2 })).toEqual({ trueDuplicate: false, unknownOutcomeRetries: 1 });
  });

  test("the sender died before its call left: outcome_unknown without a call, no retry counted", () => {
    expect(judge(rows(1, 1), { calls: 1, ok: 1 })).toEqual({ trueDuplicate: false, unknownOutcomeRetries: 0 });
  });

  test("two calls for one recorded attempt (the claim failed to stop a second caller): a true duplicate", () => {
    expect(judge(rows(1, 0), { calls: 2, ok: 1 }).trueDuplicate).toBe(true);
  });

  test("two accepted calls with no outcome_unknown between them: a true duplicate", () => {
    expect(judge(rows(2, 0), { calls: 2, ok: 2 }).trueDuplicate).toBe(true);
    // two unknowns explain at most two extra calls, not three
    expect(judge(rows(1, 2), { calls: 4, ok: 4 }).trueDuplicate).toBe(true);
  });
});
