// The cursor pagination helper every cursor-paged list uses (SPEC Common rules, Limits): opaque
// cursors, meta {cursor, has_more}, limit default 20 / max 100, stable under concurrent inserts.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { decodeCursor, encodeCursor, pageOf } from "../../store/cursor";
import { parseLimit } from "../../http/pagination";
import "../support/app-error-status";
import { sql } from "../../store/db";
import { newId } from "../../store/ids";

const table = `pagination_probe_${process.pid}`;
beforeAll(async () => {
  await sql.unsafe(`create table ${table} (id uuid primary key, created_at timestamptz not null default clock_timestamp())`);
});
afterAll(async () => {
  await sql.unsafe(`drop table if exists ${table}`);
});

async function insert(n: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) ids.push(newId());
  await sql`insert into ${sql(table)} ${sql(ids.map((id) => ({ id })))}`;
  return ids;
}

async function page(limit: number, cursor: string | null) {
  const c = decodeCursor(cursor);
  const rows = await sql<{ id: string; created_at: Date }[]>`
    select id::text, created_at from ${sql(table)} ${c ? sql`where id < ${c.id}::uuid` : sql``}
    order by id desc limit ${limit + 1}`;
  return pageOf(rows, limit, (r) => ({ t: r.created_at.toISOString(), id: r.id }));
}

describe("cursor pagination (http/pagination.ts)", () => {
  test("walks every row exactly once, newest first, while rows are inserted between pages", async () => {
    const initial = await insert(45); // many share a millisecond: the case a ms timestamp cursor broke
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const { page: rows, meta } = await page(10, cursor);
      seen.push(...rows.map((r) => r.id));
      expect(meta.has_more).toBe(meta.cursor !== null);
      cursor = meta.cursor;
      await insert(3); // concurrent inserts sort before the cursor and never shift later pages
      pages++;
    } while (cursor && pages < 20);
    expect(seen).toEqual([...initial].reverse());
    expect(new Set(seen).size).toBe(seen.length);
  });

  test("last page: has_more false and cursor null", async () => {
    const { meta } = pageOf([{ id: newId() }], 5, (r) => ({ t: new Date().toISOString(), id: r.id }));
    expect(meta).toEqual({ cursor: null, has_more: false });
  });

  test("cursors are opaque base64url; a tampered cursor -> 422 validation_failed", () => {
    const id = newId();
    const c = encodeCursor({ t: new Date().toISOString(), id });
    expect(c).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeCursor(c)!.id).toBe(id);
    for (const bad of ["nope", encodeCursor({ t: "x", id }), encodeCursor({ t: new Date().toISOString(), id: "1; drop table" })]) {
      let err: any = null;
      try {
        decodeCursor(bad);
      } catch (e) {
        err = e;
      }
      expect(err?.status).toBe(422);
      expect(err?.code).toBe("validation_failed");
      expect(err?.details?.cursor).toBeArray();
    }
    expect(decodeCursor(undefined)).toBeNull();
    expect(decodeCursor("")).toBeNull();
  });

  test("SPEC Limits: limit default 20, max 100; out of range -> 422", () => {
    expect(parseLimit(undefined)).toBe(20);
    expect(parseLimit("100")).toBe(100);
    for (const bad of ["0", "101", "1.5", "x", "-1"]) expect(() => parseLimit(bad)).toThrow();
  });
});
