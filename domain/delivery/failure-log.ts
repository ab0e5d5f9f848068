// The warn line of a failed provider call: what on-call searches for when a tenant says "it did not
// arrive". Ids and the provider's answer (its credentials already redacted by the provider registry),
// never the message content or the recipient's data.
import { logger } from "../../basics/log";
import type { NotificationRow } from "../../store/notifications";
import type { SendFailure } from "../../providers/types";

export function logProviderFailure(n: NotificationRow, provider: string, attempt: number, result: SendFailure, willRetry: boolean): void {
  logger.warn(
    {
      tenant_id: n.tenant_id,
      environment: n.environment,
      notification_id: n.id,
      channel: n.channel,
      provider,
      attempt,
      will_retry: willRetry,
      error_code: result.error.code,
      error_message: result.error.message,
      provider_response: result.response ?? {},
    },
    "provider call failed",
  );
}
