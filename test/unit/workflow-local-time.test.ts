// Unit tests of domain/workflows/local-time.ts (delay `until`): the next HH:MM in an IANA timezone
// across DST changes in America/Sao_Paulo (2018-19, its last DST) and Europe/Berlin (2026).
import { describe, expect, test } from "bun:test";
import { instantOfWall, isTimeZone, nextLocalTime } from "../../domain/workflows/local-time";

const at = (iso: string) => Date.parse(iso);
const next = (now: string, hhmm: string, tz: string) => new Date(nextLocalTime(at(now), hhmm, tz)).toISOString();

describe("Europe/Berlin", () => {
  test("09:00 the day DST starts (2026-03-29, 02:00 -> 03:00) is 07:00Z; the day before 08:00Z", () => {
    expect(next("2026-03-28T06:00:00Z", "09:00", "Europe/Berlin")).toBe("2026-03-28T08:00:00.000Z");
    expect(next("2026-03-28T12:00:00Z", "09:00", "Europe/Berlin")).toBe("2026-03-29T07:00:00.000Z");
  });
  test("a time in the spring gap (02:30) moves forward by the gap: 03:30 CEST", () => {
    expect(next("2026-03-28T12:00:00Z", "02:30", "Europe/Berlin")).toBe("2026-03-29T01:30:00.000Z");
  });
  test("a time in the autumn overlap (02:30 on 2026-10-25) is the earlier instant (CEST)", () => {
    expect(next("2026-10-24T12:00:00Z", "02:30", "Europe/Berlin")).toBe("2026-10-25T00:30:00.000Z");
  });
  test("09:00 after DST ends is 08:00Z (CET)", () => {
    expect(next("2026-10-25T06:00:00Z", "09:00", "Europe/Berlin")).toBe("2026-10-25T08:00:00.000Z");
  });
});

describe("America/Sao_Paulo", () => {
  test("DST started at 00:00 on 2018-11-04: 00:30 is in the gap and becomes 01:30 -02 (03:30Z)", () => {
    expect(next("2018-11-03T12:00:00Z", "00:30", "America/Sao_Paulo")).toBe("2018-11-04T03:30:00.000Z");
  });
  test("09:00 the day DST started is 11:00Z (-02); the day before 12:00Z (-03)", () => {
    expect(next("2018-11-03T06:00:00Z", "09:00", "America/Sao_Paulo")).toBe("2018-11-03T12:00:00.000Z");
    expect(next("2018-11-03T18:00:00Z", "09:00", "America/Sao_Paulo")).toBe("2018-11-04T11:00:00.000Z");
  });
  test("DST ended at 00:00 on 2019-02-17 (back to 23:00 on the 16th): 23:30 on the 16th is the earlier instant (-02)", () => {
    expect(next("2019-02-16T12:00:00Z", "23:30", "America/Sao_Paulo")).toBe("2019-02-17T01:30:00.000Z");
  });
  test("09:00 after DST ended is 12:00Z (-03)", () => {
    expect(next("2019-02-16T18:00:00Z", "09:00", "America/Sao_Paulo")).toBe("2019-02-17T12:00:00.000Z");
  });
});

describe("basics", () => {
  test("a time already past today is tomorrow's; exactly now is tomorrow's too; UTC", () => {
    expect(next("2026-06-01T09:00:00Z", "09:00", "UTC")).toBe("2026-06-02T09:00:00.000Z");
    expect(next("2026-06-01T08:59:00Z", "09:00", "UTC")).toBe("2026-06-01T09:00:00.000Z");
    expect(next("2026-12-31T23:30:00Z", "00:15", "UTC")).toBe("2027-01-01T00:15:00.000Z");
  });
  test("wall time to instant without DST: a plain offset", () => {
    expect(new Date(instantOfWall(Date.UTC(2026, 0, 15, 9, 0), "Asia/Kolkata")).toISOString()).toBe("2026-01-15T03:30:00.000Z");
  });
  test("isTimeZone accepts IANA names only", () => {
    expect(isTimeZone("Europe/Berlin")).toBe(true);
    expect(isTimeZone("Mars/Olympus")).toBe(false);
    expect(isTimeZone("")).toBe(false);
    expect(isTimeZone(null)).toBe(false);
  });
});
