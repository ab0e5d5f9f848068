// Preference categories as data (issue 28, docs/preferences.md): the rules of a category's fields,
// "a required category cannot be turned off", and a subscriber's effective switch per category and
// channel (stored choice, else the category's default; required ones always on).
import { fieldErrors, validationFailed, type ErrorDetails } from "../../basics/errors";
import { CHANNELS } from "../../schemas/channels";
import type { Scope, Tx } from "../../store/db";
import { sql } from "../../store/db";
import { listCategories, type PreferenceCategoryFields, type PreferenceCategoryRow } from "../../store/preference-categories";
import { listPreferences, type Preference } from "../../store/preferences";

export const CATEGORY_KEY_RE = /^[a-z0-9_-]{1,100}$/;
/** "all" is the every-category switch of a preference; a category cannot take its name. */
export const RESERVED_KEYS = ["all", "other"];
/** How a notification whose category is not one of the tenant's is shown. */
export const OTHER_CATEGORY = "other";

export interface CategoryInput {
  key?: string;
  name?: string;
  description?: string | null;
  default_enabled_channels?: string[];
  required?: boolean;
}

/** Field-named 422 for a category's input; `current` is the stored row on update. */
export function categoryFields(b: CategoryInput, current?: PreferenceCategoryRow): PreferenceCategoryFields {
  const details: ErrorDetails = fieldErrors();
  const add = (f: string, m: string) => (details[f] ??= []).push(m);
  if (!current) {
    if (b.key === undefined || !CATEGORY_KEY_RE.test(b.key)) add("key", "must be 1-100 characters: lowercase letters, digits, hyphens or underscores");
    else if (RESERVED_KEYS.includes(b.key)) add("key", `"${b.key}" is reserved`);
  } else if (b.key !== undefined && b.key !== current.key) add("key", "cannot be changed; create another category");
  if (!current && b.name === undefined) add("name", "is required");
  if (b.name !== undefined && b.name.trim() === "") add("name", "must not be blank");
  const channels = b.default_enabled_channels;
  if (channels !== undefined) {
    channels.forEach((c, i) => {
      if (!(CHANNELS as readonly string[]).includes(c)) add(`default_enabled_channels[${i}]`, `must be one of ${CHANNELS.join(", ")}`);
    });
  }
  if (Object.keys(details).length) throw validationFailed(details);
  return {
    key: current?.key ?? b.key!,
    name: b.name !== undefined ? b.name.trim() : current!.name,
    description: b.description !== undefined ? b.description : (current?.description ?? null),
    default_enabled_channels: channels !== undefined ? [...new Set(channels)] : (current?.default_enabled_channels ?? [...CHANNELS]),
    required: b.required ?? current?.required ?? false,
  };
}

/**
 * Refuses turning off a required category (422 naming each offending entry); "all" switches are
 * allowed (they never apply to a required category: its notifications are always sent).
 */
export async function assertRequiredStayOn(scope: Scope, preferences: Preference[], tx: Tx = sql): Promise<void> {
  const off = preferences.map((p, i) => ({ p, i })).filter(({ p }) => !p.enabled && p.category !== "all");
  if (off.length === 0) return;
  const required = new Set((await listCategories(scope, tx)).filter((c) => c.required).map((c) => c.key));
  const details: ErrorDetails = fieldErrors();
  for (const { p, i } of off) {
    if (required.has(p.category)) (details[`preferences[${i}].enabled`] ??= []).push(`category ${p.category} is required and cannot be turned off`);
  }
  if (Object.keys(details).length) throw validationFailed(details, "A required category cannot be turned off");
}

export interface CategoryState {
  key: string;
  name: string;
  description: string | null;
  required: boolean;
  channels: { channel: string; enabled: boolean; locked: boolean; source: "required" | "subscriber" | "default" }[];
}

/**
 * What a subscriber gets per category and channel: a required category is on and locked; else off
 * when their "all" switch for the channel is off; else their stored choice for (category, channel);
 * else the category's default. Stored choices for categories the tenant does not
 * define are listed under "other".
 */
export async function effectivePreferences(scope: Scope, subscriberId: string, tx: Tx = sql): Promise<CategoryState[]> {
  const [categories, stored] = await Promise.all([listCategories(scope, tx), listPreferences(scope, subscriberId, tx)]);
  const choice = new Map(stored.map((p) => [`${p.category}\u0000${p.channel}`, p.enabled]));
  const out: CategoryState[] = categories.map((c) => ({
    key: c.key,
    name: c.name,
    description: c.description,
    required: c.required,
    channels: CHANNELS.map((channel) => {
      if (c.required) return { channel, enabled: true, locked: true, source: "required" as const };
      // the send-time rule (domain/delivery/suppression.ts): an "all" switch off wins over a category on
      if (choice.get(`all\u0000${channel}`) === false) return { channel, enabled: false, locked: false, source: "subscriber" as const };
      const mine = choice.get(`${c.key}\u0000${channel}`);
      if (mine !== undefined) return { channel, enabled: mine, locked: false, source: "subscriber" as const };
      return { channel, enabled: c.default_enabled_channels.includes(channel), locked: false, source: "default" as const };
    }),
  }));
  const known = new Set([...categories.map((c) => c.key), "all"]);
  const others = stored.filter((p) => !known.has(p.category));
  if (others.length) {
    out.push({
      key: OTHER_CATEGORY,
      name: "Other",
      description: null,
      required: false,
      channels: CHANNELS.map((channel) => {
        const off = others.some((p) => p.channel === channel && !p.enabled);
        return { channel, enabled: !off, locked: false, source: "subscriber" as const };
      }),
    });
  }
  return out;
}
