// Reading a subscribers CSV for POST /v1/subscribers/import (papaparse): a header row naming the
// columns; external_id, email, phone, name, locale and timezone are the record's fields, any other
// column becomes a custom property. Rows are numbered from 1 after the header, as a person counts them.
import Papa from "papaparse";
import type { SubscriberCreateParams } from "../../../client";

export const RECORD_COLUMNS = ["external_id", "email", "phone", "name", "locale", "timezone"] as const;
type RecordColumn = (typeof RECORD_COLUMNS)[number];
/** The API's bulk import takes at most this many per call; the page sends one call, all or nothing. */
export const IMPORT_LIMIT = 1000;

export type CsvRead =
  | { ok: true; subscribers: SubscriberCreateParams[]; columns: string[]; customColumns: string[] }
  | { ok: false; message: string; row?: number };

export function readSubscribersCsv(text: string): CsvRead {
  const parsed = Papa.parse<Record<string, string>>(text.replace(/^\uFEFF/, ""), {
    header: true,
    skipEmptyLines: "greedy",
    transformHeader: (h) => h.trim().toLowerCase(),
  });
  const columns = parsed.meta.fields ?? [];
  if (!columns.includes("external_id")) return { ok: false, message: "The first row must name the columns, one of them external_id" };
  const duplicate = columns.find((c, i) => columns.indexOf(c) !== i);
  if (duplicate) return { ok: false, message: `The column ${duplicate} appears twice` };
  const bad = parsed.errors.find((e) => e.type !== "Delimiter");
  if (bad) return { ok: false, message: `Row ${(bad.row ?? 0) + 1}: ${bad.message}`, row: (bad.row ?? 0) + 1 };
  if (parsed.data.length === 0) return { ok: false, message: "The file has no rows after its header" };
  if (parsed.data.length > IMPORT_LIMIT) return { ok: false, message: `The file has ${parsed.data.length} rows; one import takes at most ${IMPORT_LIMIT}` };
  const customColumns = columns.filter((c) => !(RECORD_COLUMNS as readonly string[]).includes(c));
  const subscribers = parsed.data.map((row) => {
    const s: Record<string, unknown> = {};
    for (const c of RECORD_COLUMNS) {
      const v = row[c]?.trim();
      // an empty cell leaves the field as it is, except external_id, which the API then names as missing
      if (v || c === "external_id") s[c as RecordColumn] = v ?? "";
    }
    const custom = Object.fromEntries(customColumns.flatMap((c) => (row[c]?.trim() ? [[c, row[c]!.trim()]] : [])));
    if (Object.keys(custom).length) s.custom_properties = custom;
    return s as SubscriberCreateParams;
  });
  return { ok: true, subscribers, columns, customColumns };
}

/** The row (1-based, after the header) a `subscribers[i].field` detail names, with that field. */
export function failingRow(details: Record<string, string[]> | undefined, index: unknown): { row: number; messages: string[] } | null {
  const entries = Object.entries(details ?? {});
  const i = typeof index === "number" ? index : Number(/^subscribers\[(\d+)\]/.exec(entries[0]?.[0] ?? "")?.[1]);
  if (!Number.isInteger(i)) return null;
  const messages = entries.filter(([k]) => k.startsWith(`subscribers[${i}]`)).map(([k, v]) => `${k.slice(`subscribers[${i}]`.length).replace(/^\./, "") || "row"}: ${v.join("; ")}`);
  return { row: i + 1, messages };
}
