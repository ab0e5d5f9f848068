// Partition hash (FNV-1a 32 over UTF-8, mod P) and the timer payload encoding, without Redis.
import { describe, expect, test } from "bun:test";
import { encodeTimerPayload, decodeFields } from "../../runtime/codec";
import { fnv1a32, partitionOf } from "../../runtime/partition";

describe("partitionOf: p = hash(key) mod P with a stable hash", () => {
  test("fnv1a32 matches the published FNV-1a test vectors", () => {
    expect(fnv1a32("")).toBe(0x811c9dc5);
    expect(fnv1a32("a")).toBe(0xe40c292c);
    expect(fnv1a32("foobar")).toBe(0xbf9cf968);
  });

  test("non-ASCII keys hash their UTF-8 bytes", () => {
    const bytes = new TextEncoder().encode("tenant:é:email");
    let h = 0x811c9dc5;
    for (const b of bytes) h = Math.imul(h ^ b, 0x01000193);
    expect(fnv1a32("tenant:é:email")).toBe(h >>> 0);
  });

  test("is deterministic and within [0, P)", () => {
    for (let i = 0; i < 1000; i++) {
      const p = partitionOf(`run-${i}`, 16);
      expect(p).toBeGreaterThanOrEqual(0);
      expect(p).toBeLessThan(16);
      expect(partitionOf(`run-${i}`, 16)).toBe(p);
    }
  });

  test("spreads 10,000 keys over 16 partitions within ±15% of even", () => {
    const counts = new Array(16).fill(0);
    for (let i = 0; i < 10_000; i++) counts[partitionOf(`0190a1b2-${i}-tenant:production:email`, 16)]++;
    for (const c of counts) {
      expect(c).toBeGreaterThan(625 * 0.85);
      expect(c).toBeLessThan(625 * 1.15);
    }
  });
});

describe("timer payload", () => {
  test("prefixes the key's UTF-8 byte length so keys with ':' or non-ASCII split correctly", () => {
    expect(encodeTimerPayload("a:b", { x: 1 })).toBe('3:a:b{"x":1}');
    expect(encodeTimerPayload("é", 1)).toBe("2:é1");
  });

  test("decodeFields reads k, m and t from a stream entry", () => {
    expect(decodeFields(["k", "key", "m", "{}", "t", "timer-1"])).toEqual({ key: "key", json: "{}", timerId: "timer-1" });
    expect(decodeFields(["m", "{}"])).toEqual({ key: undefined, json: "{}", timerId: undefined });
  });
});
