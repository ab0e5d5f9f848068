// The delivery policy at send time (issue 22): quiet hours hold a send until they end (a runtime
// timer), frequency caps suppress a send over a cap; a critical notification ignores both.
import type { SendMessage } from "../delivery/channel-sender-mail";
import type { SendContext } from "../delivery/lost-attempts";
import { cachedDeliverySettings, type QuietHours } from "../../store/delivery-settings";
import { admitUnderCaps } from "../../store/frequency-caps";
import type { NotificationRow } from "../../store/notifications";
import { holdUntil } from "../../store/quiet-hours";
import { findSubscriber } from "../../store/subscribers";
import { minutesOf, windowMs } from "./settings";

export type PolicyVerdict = { kind: "send" } | { kind: "held"; until: Date } | { kind: "capped" };

const SEND: PolicyVerdict = { kind: "send" };

/** Local hour, minute, second and millisecond of `at` in time zone `tz`. */
function localClock(at: Date, tz: string): { minutes: number; seconds: number; ms: number } {
  const parts = new Intl.DateTimeFormat("en-GB", { timeZone: tz, hour: "2-digit", minute: "2-digit", second: "2-digit", hourCycle: "h23" }).formatToParts(at);
  const get = (t: string) => Number(parts.find((p) => p.type === t)?.value ?? 0);
  return { minutes: get("hour") * 60 + get("minute"), seconds: get("second"), ms: at.getUTCMilliseconds() };
}

/**
 * When the quiet hours around `at` end (local time of `tz`), or null when `at` is outside them.
 * start > end spans midnight (22:00-08:00); the end is exclusive.
 */
export function quietHoursEnd(at: Date, tz: string, q: Pick<QuietHours, "start" | "end">): Date | null {
  const start = minutesOf(q.start);
  const end = minutesOf(q.end);
  const { minutes, seconds, ms } = localClock(at, tz);
  const inside = start < end ? minutes >= start && minutes < end : minutes >= start || minutes < end;
  if (!inside) return null;
  const untilMs = (((end - minutes + 1440) % 1440) * 60 - seconds) * 1000 - ms;
  return new Date(at.getTime() + untilMs);
}

/** The timer that releases a held notification (one per notification: a second hold replaces it). */
export const quietHoursTimer = (notificationId: string) => `quiet:${notificationId}`;

/**
 * The policy's verdict on attempt `msg.attempt` of `n`, after suppression and before the provider:
 * - held: the first attempt of a notification never held before, for a channel of the quiet hours,
 *   inside them in the subscriber's timezone (else the tenant's). The claim is given back and a timer
 *   re-sends the same message when they end (the status reads `scheduled` meanwhile).
 * - capped: a cap of the channel is full for this subscriber (or address) over its rolling window;
 *   counted in Redis atomically, each notification once however often it is attempted.
 */
export async function applyDeliveryPolicy(msg: SendMessage, n: NotificationRow, subscriberId: string | null, ctx: SendContext): Promise<PolicyVerdict> {
  if (n.critical) return SEND;
  const scope = { tenantId: n.tenant_id, environment: n.environment };
  const settings = await cachedDeliverySettings(scope);
  const q = settings.quiet_hours;
  if (q && msg.attempt === 1 && !n.scheduled_for && q.channels.includes(n.channel)) {
    const sub = subscriberId ? await findSubscriber(scope, subscriberId) : null;
    const until = quietHoursEnd(new Date(), sub?.timezone || settings.timezone, q);
    if (until && (await holdUntil(n.id, msg.attempt, until))) {
      // scaled by TIME_SCALE like every timer of ours; the release skips quiet hours (scheduled_for is set)
      await ctx.schedule(quietHoursTimer(n.id), Math.max(1, until.getTime() - Date.now()), msg);
      return { kind: "held", until };
    }
  }
  const caps = settings.frequency_caps.filter((c) => c.channel === n.channel);
  if (caps.length) {
    const admitted = await admitUnderCaps(
      { tenantId: n.tenant_id, environment: n.environment, key: subscriberId ?? n.subscriber_id ?? `to:${n.recipient}`, channel: n.channel },
      n.id,
      caps.map((c) => ({ windowMs: windowMs(c.window)!, limit: c.limit })),
    );
    if (!admitted) return { kind: "capped" };
  }
  return SEND;
}
