// The quiet-hours hold of a notification (delivery policy, issue 22): the claim of its attempt given
// back and the release time set, in one guarded write (the status stays pending underneath).
import { sql } from "./db";
import { keyDays } from "./history-keys";

/**
 * Holds notification `id` until `until`: attempt `attempt`'s claim is given back (attempt_count
 * attempt - 1), scheduled_for and next_attempt_at are `until`, so the reconciler leaves it alone
 * until then and re-enqueues it after, should its timer be lost. False when the row moved meanwhile.
 */
export async function holdUntil(id: string, attempt: number, until: Date): Promise<boolean> {
  const rows = await sql`
    update notifications set attempt_count = ${attempt - 1}, scheduled_for = ${until}, next_attempt_at = ${until}, updated_at = now()
    where id = ${id} ${keyDays("id", [id])} and attempt_count = ${attempt} and (status = 'pending') is true
    returning id`;
  return rows.length > 0;
}
