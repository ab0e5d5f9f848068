// The hosted preference center (issue 28, docs/preferences.md): what its page shows for a link's
// subscriber (tenant name and color, categories x channels in the subscriber's language), and the
// save of its form: changed switches only, audited, with a subscriber.preferences_updated event.
import { CHANNELS } from "../../schemas/channels";
import { writeAudit } from "../../store/audit";
import { sql, type Scope, type Tx } from "../../store/db";
import { brandColorOf } from "../../store/preference-center";
import { upsertPreferences, type Preference, type PreferenceSource } from "../../store/preferences";
import { findSubscriber } from "../../store/subscribers";
import { findTenant } from "../../store/tenants";
import { emitEvent } from "../events/outbox";
import { normalizeLocale } from "../templates/locale";
import { effectivePreferences, OTHER_CATEGORY, type CategoryState } from "./categories";
import type { PreferenceLinkClaims } from "./link-token";

/** The page's languages: Portuguese (Brazil) for any pt subscriber, English otherwise. */
export type CenterLanguage = "pt_BR" | "en";

export function centerLanguage(locale: string | null | undefined): CenterLanguage {
  return normalizeLocale(locale)?.startsWith("pt") ? "pt_BR" : "en";
}

export interface CenterView {
  tenantName: string;
  color: string;
  language: CenterLanguage;
  subscriberName: string | null;
  categories: CategoryState[];
}

const scopeOf = (c: PreferenceLinkClaims): Scope => ({ tenantId: c.tenantId, environment: c.environment });

/** null when the subscriber is gone (erased or deleted): the link then shows nothing. */
export async function centerView(c: PreferenceLinkClaims): Promise<CenterView | null> {
  const scope = scopeOf(c);
  const [tenant, sub, color] = await Promise.all([findTenant(c.tenantId), findSubscriber(scope, c.subscriberId), brandColorOf(scope)]);
  if (!tenant || !sub) return null;
  return {
    tenantName: tenant.name,
    color,
    language: centerLanguage(sub.locale),
    subscriberName: sub.name,
    categories: await effectivePreferences(scope, sub.id),
  };
}

/** The form field of one switch: `p:<category>:<channel>` (a checkbox, sent only when checked). */
export const fieldName = (category: string, channel: string) => `p:${category}:${channel}`;

/** Audit and event of a change of a subscriber's preferences, in the transaction that made it. */
export async function recordPreferenceChange(
  tx: Tx,
  scope: Scope,
  subscriber: { id: string; external_id: string },
  changes: Preference[],
  source: PreferenceSource,
  actor: { actorType: "user" | "api_key" | "system"; actorId: string | null; ip?: string | null; userAgent?: string | null },
): Promise<void> {
  await writeAudit(tx, {
    tenantId: scope.tenantId,
    actorType: actor.actorType,
    actorId: actor.actorId,
    action: "subscriber.preferences_updated",
    resourceType: "subscriber",
    resourceId: subscriber.id,
    metadata: { environment: scope.environment, source, preferences: changes },
    ip: actor.ip ?? null,
    userAgent: actor.userAgent ?? null,
  });
  await emitEvent(tx, {
    tenantId: scope.tenantId,
    environment: scope.environment,
    type: "subscriber.preferences_updated",
    data: { subscriber: { id: subscriber.id, external_id: subscriber.external_id }, source, preferences: changes },
  });
}

/**
 * Saves the page's form: every switch the page showed and may change (not required, not "other")
 * is on when its checkbox came back; only the switches that differ from what the subscriber had
 * are written. Returns the changes (none: nothing written, no event).
 */
export async function saveFromCenter(
  c: PreferenceLinkClaims,
  form: Record<string, unknown>,
  request: { ip?: string | null; userAgent?: string | null },
): Promise<Preference[] | null> {
  const scope = scopeOf(c);
  return await sql.begin(async (tx) => {
    const sub = await findSubscriber(scope, c.subscriberId, tx);
    if (!sub) return null;
    await tx`select pg_advisory_xact_lock(hashtextextended(${`prefs:${sub.id}`}, 0))`;
    const current = await effectivePreferences(scope, sub.id, tx);
    const changes: Preference[] = [];
    for (const cat of current) {
      if (cat.required || cat.key === OTHER_CATEGORY) continue;
      for (const ch of cat.channels) {
        if (!(CHANNELS as readonly string[]).includes(ch.channel)) continue;
        const want = form[fieldName(cat.key, ch.channel)] !== undefined;
        if (want !== ch.enabled) changes.push({ category: cat.key, channel: ch.channel, enabled: want });
      }
    }
    if (changes.length === 0) return changes;
    await upsertPreferences(tx, scope, sub.id, changes, "preference_center");
    await recordPreferenceChange(tx, scope, sub, changes, "preference_center", { actorType: "system", actorId: null, ...request });
    return changes;
  });
}
