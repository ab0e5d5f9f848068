// The warn line of a failed webhook delivery attempt: tenant, webhook, event and delivery ids, the
// receiver's answer (status and the start of its body) or the network error. The signing secret
// and the event's data never appear; the URL is shown without its query string (it may carry a token).
import { logger } from "../../basics/log";
import type { ReceiverOutcome } from "./transport";

function withoutQuery(url: string): string {
  try {
    const u = new URL(url);
    return `${u.origin}${u.pathname}`;
  } catch {
    return "(invalid url)";
  }
}

export function logWebhookFailure(a: {
  tenantId: string;
  webhookId: string;
  url: string;
  eventId: string;
  eventType: string;
  deliveryId: string;
  attempt: number;
  nextRetryAt: Date | null;
  out: ReceiverOutcome;
}): void {
  logger.warn(
    {
      tenant_id: a.tenantId,
      webhook_id: a.webhookId,
      url: withoutQuery(a.url),
      event_id: a.eventId,
      event_type: a.eventType,
      delivery_id: a.deliveryId,
      attempt: a.attempt,
      response_status: a.out.status,
      response_body: a.out.body === null ? null : a.out.body.slice(0, 200),
      error_code: a.out.error?.code ?? null,
      error_message: a.out.error?.message ?? null,
      next_retry_at: a.nextRetryAt?.toISOString() ?? null,
    },
    "webhook delivery failed",
  );
}
