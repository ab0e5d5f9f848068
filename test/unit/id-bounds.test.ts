// The constant day bounds that let a statement on a day-partitioned table prune at plan time: every
// id of the batch lies inside them (any UUID version), and for UUID v7 they are its days exactly.
import { expect, test } from "bun:test";
import { idDayRange } from "../../store/id-bounds";

/** A UUID v7-shaped id of a moment (random tail). */
function v7(at: string): string {
  const h = new Date(at).getTime().toString(16).padStart(12, "0");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-7abc-8def-0123456789ab`;
}
const floorOf = (day: string) => v7(`${day}T00:00:00.000Z`).slice(0, 14) + "0000-0000-000000000000";

test("the bounds are the start of the first id's UTC day and of the day after the last's", () => {
  const ids = [v7("2026-11-26T23:59:59.999Z"), v7("2026-11-25T00:00:00.000Z"), v7("2026-11-26T12:00:00.000Z")];
  expect(idDayRange(ids)).toEqual({ lo: floorOf("2026-11-25"), hi: floorOf("2026-11-27") });
  // one id exactly at midnight belongs to the day it starts
  expect(idDayRange([v7("2026-11-27T00:00:00.000Z")])).toEqual({ lo: floorOf("2026-11-27"), hi: floorOf("2026-11-28") });
});

test("every id lies within its bounds, whatever its version", () => {
  const ids = [crypto.randomUUID(), crypto.randomUUID(), v7("2026-01-01T10:00:00Z"), "ffffffff-ffff-4fff-bfff-ffffffffffff", "00000000-0000-4000-8000-000000000000"];
  for (const id of ids) {
    const { lo, hi } = idDayRange([id]);
    expect(lo <= id).toBe(true);
    if (hi !== null) expect(id < hi).toBe(true);
  }
  // the top of the 48-bit range has no day after it: no upper bound
  expect(idDayRange(["ffffffff-ffff-4fff-bfff-ffffffffffff"]).hi).toBeNull();
});

test("anything that is not a UUID gets no bound at all", () => {
  expect(idDayRange(["not-a-uuid"])).toEqual({ lo: "00000000-0000-0000-0000-000000000000", hi: null });
  expect(idDayRange([])).toEqual({ lo: "00000000-0000-0000-0000-000000000000", hi: null });
});
