// The delivery policy's settings (GET/PUT /v1/settings/delivery, issue 22): the body's rules with
// every failure keyed by its field path (422), then the upsert of store/delivery-settings.ts.
import { fieldErrors, validationFailed, type ErrorDetails } from "../../basics/errors";
import { CHANNELS } from "../../schemas/channels";
import type { Scope } from "../../store/db";
import { putDeliverySettings, type DeliverySettings, type FrequencyCap, type QuietHours } from "../../store/delivery-settings";
import { canonicalTimezone } from "../subscribers/validation";

const HHMM_RE = /^([01]\d|2[0-3]):([0-5]\d)$/;
const WINDOW_RE = /^(\d+)([smhd])$/;
const UNIT_MS = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
/** the longest cap window: 30 days */
export const MAX_WINDOW_MS = 30 * UNIT_MS.d;
export const MAX_CAPS = 20;

/** Milliseconds of a `<N>s|m|h|d` window (N a positive integer), or null when malformed. */
export function windowMs(window: string): number | null {
  const m = WINDOW_RE.exec(window);
  if (!m) return null;
  const n = Number(m[1]);
  if (!Number.isSafeInteger(n) || n < 1) return null;
  return n * UNIT_MS[m[2] as keyof typeof UNIT_MS];
}

/** Minutes after midnight of "HH:MM". */
export function minutesOf(hhmm: string): number {
  const [h, m] = hhmm.split(":").map(Number);
  return h! * 60 + m!;
}

function checkQuietHours(v: unknown, details: ErrorDetails): QuietHours | null {
  if (v === null || v === undefined) return null;
  if (typeof v !== "object" || Array.isArray(v)) {
    details.quiet_hours = ["must be an object {start, end, channels} or null"];
    return null;
  }
  const q = v as Record<string, unknown>;
  for (const f of ["start", "end"] as const) {
    if (typeof q[f] !== "string" || !HHMM_RE.test(q[f] as string)) details[`quiet_hours.${f}`] = ["must be a time HH:MM (00:00 to 23:59)"];
  }
  if (typeof q.start === "string" && q.start === q.end) details["quiet_hours.end"] = ["must differ from start"];
  if (!Array.isArray(q.channels) || q.channels.length === 0) details["quiet_hours.channels"] = [`must be a non-empty array of ${CHANNELS.join(", ")}`];
  else {
    q.channels.forEach((c, i) => {
      if (!(CHANNELS as readonly unknown[]).includes(c)) details[`quiet_hours.channels[${i}]`] = [`must be one of ${CHANNELS.join(", ")}`];
    });
  }
  for (const k of Object.keys(q)) if (!["start", "end", "channels"].includes(k)) details[`quiet_hours.${k}`] = ["is not a known field"];
  return { start: q.start as string, end: q.end as string, channels: [...new Set(q.channels as string[])] };
}

function checkCaps(v: unknown, details: ErrorDetails): FrequencyCap[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) {
    details.frequency_caps = ["must be an array of {channel, limit, window}"];
    return [];
  }
  if (v.length > MAX_CAPS) details.frequency_caps = [`must hold at most ${MAX_CAPS} caps`];
  return v.map((c, i) => {
    const at = `frequency_caps[${i}]`;
    if (c === null || typeof c !== "object" || Array.isArray(c)) {
      details[at] = ["must be an object {channel, limit, window}"];
      return c;
    }
    if (!(CHANNELS as readonly unknown[]).includes(c.channel)) details[`${at}.channel`] = [`must be one of ${CHANNELS.join(", ")}`];
    if (!Number.isInteger(c.limit) || c.limit < 1 || c.limit > 100_000) details[`${at}.limit`] = ["must be an integer from 1 to 100000"];
    const ms = typeof c.window === "string" ? windowMs(c.window) : null;
    if (ms === null) details[`${at}.window`] = ["must be <N>s, <N>m, <N>h or <N>d with N a positive integer, e.g. 1h, 1d"];
    else if (ms > MAX_WINDOW_MS) details[`${at}.window`] = ["must be at most 30d"];
    for (const k of Object.keys(c)) if (!["channel", "limit", "window"].includes(k)) details[`${at}.${k}`] = ["is not a known field"];
    return { channel: c.channel, limit: c.limit, window: c.window };
  });
}

/** PUT: the whole policy replaces the stored one (absent quiet_hours: none; absent frequency_caps: none). */
export async function replaceDeliverySettings(scope: Scope, body: Record<string, unknown>): Promise<DeliverySettings> {
  const details: ErrorDetails = fieldErrors();
  let timezone = "UTC";
  if (body.timezone !== undefined) {
    const tz = typeof body.timezone === "string" ? canonicalTimezone(body.timezone) : null;
    if (!tz) details.timezone = ["must be an IANA time zone such as America/Sao_Paulo"];
    else timezone = tz;
  }
  const quiet_hours = checkQuietHours(body.quiet_hours, details);
  const frequency_caps = checkCaps(body.frequency_caps, details);
  for (const k of Object.keys(body)) if (!["timezone", "quiet_hours", "frequency_caps"].includes(k)) details[k] = ["is not a known field"];
  if (Object.keys(details).length) throw validationFailed(details);
  return await putDeliverySettings(scope, { timezone, quiet_hours, frequency_caps });
}
