// The activity feed (GET /v1/notifications): the query's filters checked and put in the form the
// rows are stored in (an email lower-case, a subscriber's external_id resolved to its id), then read.
import { parsePhoneNumberFromString } from "libphonenumber-js";
import { isEmailAddress } from "../../schemas/email";
import { findSubscriber } from "../../store/subscribers";
import { listNotificationFeed, type FeedFilter, type FeedRow } from "../../store/notification-feed";
import type { Scope } from "../../store/db";
import { fieldErrors, validationFailed } from "../../basics/errors";

export interface FeedQuery {
  status?: string;
  channel?: string;
  recipient?: string;
  subscriber?: string;
  template?: string;
  workflow?: string;
  created_after?: string;
  created_before?: string;
}

/** The address as the accept path stores it: emails lower-case, phone numbers in E.164. */
function storedRecipient(raw: string): string {
  const v = raw.trim();
  if (v.includes("@")) return isEmailAddress(v) ? v.toLowerCase() : v;
  // only what the accept path reads as a phone (E.164 starts with +): an in_app external id of digits stays as it is
  if (/^\+[\d\s().-]{7,}$/.test(v)) {
    const phone = parsePhoneNumberFromString(v);
    if (phone?.isPossible()) return phone.number;
  }
  return v;
}

function timestamp(raw: string | undefined, field: string, details: Record<string, string[]>): Date | undefined {
  if (raw === undefined || raw === "") return undefined;
  // a date alone (2026-11-24) is midnight UTC; anything else must say its time zone or be UTC
  const at = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2}))?$/.test(raw) ? new Date(raw) : null;
  if (!at || Number.isNaN(at.getTime())) {
    details[field] = ["must be an ISO 8601 timestamp with a time zone, e.g. 2026-11-24T10:00:00Z, or a date, e.g. 2026-11-24"];
    return undefined;
  }
  return at;
}

/** `limit + 1` rows of the filtered feed after the cursor; 422 naming each malformed filter. */
export async function readFeed(scope: Scope, q: FeedQuery, page: { limit: number; cursor: { t: string; id: string } | null }): Promise<FeedRow[]> {
  const details = fieldErrors();
  const createdAfter = timestamp(q.created_after, "created_after", details);
  const createdBefore = timestamp(q.created_before, "created_before", details);
  if (createdAfter && createdBefore && createdAfter >= createdBefore) details.created_before = ["must be later than created_after"];
  const empty = (v: string | undefined, field: string) => {
    if (v !== undefined && v.trim() === "") details[field] = ["must not be empty"];
  };
  empty(q.recipient, "recipient");
  empty(q.subscriber, "subscriber");
  empty(q.template, "template");
  empty(q.workflow, "workflow");
  if (Object.keys(details).length) throw validationFailed(details);

  const filter: FeedFilter = {
    status: q.status,
    channel: q.channel,
    template: q.template?.trim(),
    workflow: q.workflow?.trim(),
    recipient: q.recipient === undefined ? undefined : storedRecipient(q.recipient),
    createdAfter,
    createdBefore,
  };
  if (q.subscriber !== undefined) {
    const subscriber = await findSubscriber(scope, q.subscriber.trim());
    if (!subscriber) return [];
    filter.subscriberId = subscriber.id;
  }
  return listNotificationFeed(scope, filter, page);
}
