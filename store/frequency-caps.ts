// Frequency-cap admission (delivery policy, issue 22): one Lua script per send counts the sends of a
// subscriber and channel over each cap's rolling window and admits or refuses, atomically.
import frequencyCapAdmitLua from "./lua/frequencyCapAdmit-1.lua" with { type: "text" };
import { redis } from "./redis";
import { redisKeys } from "./redis-keys";

type Scripted = typeof redis & { nmsFrequencyCapAdmit(key: string, ...args: (string | number)[]): Promise<number> };

let scripted: Scripted | null = null;
function scripts(): Scripted {
  if (!scripted) {
    redis.defineCommand("nmsFrequencyCapAdmit", {
      numberOfKeys: 1,
      lua: frequencyCapAdmitLua,
    });
    scripted = redis as Scripted;
  }
  return scripted;
}

/**
 * Admits notification `notificationId` under `caps` (window ms, limit) for one subscriber (or
 * address) and channel: true when every cap has room (the send is then counted), false when one is
 * full. A notification admitted before is admitted again without counting twice (a redelivery).
 */
export async function admitUnderCaps(
  who: { tenantId: string; environment: string; key: string; channel: string },
  notificationId: string,
  caps: { windowMs: number; limit: number }[],
): Promise<boolean> {
  if (caps.length === 0) return true;
  const longest = Math.max(...caps.map((c) => c.windowMs));
  const args: (string | number)[] = [0, notificationId, longest];
  for (const c of caps) args.push(c.windowMs, c.limit);
  const out = await scripts().nmsFrequencyCapAdmit(redisKeys.frequencyCap(who.tenantId, who.environment, who.key, who.channel), ...args);
  return Number(out) === 1;
}
