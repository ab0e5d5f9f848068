// TypeBox schema of an outbound webhook delivery body (SPEC "Outbound webhook delivery"):
// {id, type, created_at, data}, with every event type SPEC lists (and billing's quota.*); signed by X-Service-Signature.
import { t } from "elysia";

export const WebhookEventType = t.Union([
  t.Literal("notification.created"),
  t.Literal("notification.sent"),
  t.Literal("notification.delivered"),
  t.Literal("notification.failed"),
  t.Literal("notification.bounced"),
  t.Literal("notification.opened"),
  t.Literal("notification.clicked"),
  t.Literal("notification.complained"),
  t.Literal("notification.test"),
  t.Literal("workflow.triggered"),
  t.Literal("workflow.step.completed"),
  t.Literal("workflow.step.failed"),
  t.Literal("workflow.completed"),
  // audiences (docs/topics.md): a broadcast's fan-out created its last run
  t.Literal("broadcast.completed"),
  t.Literal("inbox.notification.received"),
  t.Literal("inbox.notification.read"),
  // a subscriber's preferences changed (the hosted preference center or the API; docs/preferences.md)
  t.Literal("subscriber.preferences_updated"),
  // billing (docs/billing.md): once per tenant and period each, in production
  t.Literal("quota.warning"),
  t.Literal("quota.exceeded"),
  // delivery routing (docs/routing.md): a provider entry's circuit breaker opened or closed again
  t.Literal("channel.provider.circuit_opened"),
  t.Literal("channel.provider.circuit_closed"),
]);

export const WebhookEvent = t.Object({
  id: t.String({ description: "Event id; the same event may arrive twice" }),
  type: WebhookEventType,
  created_at: t.String({ description: "ISO 8601; order events by it, not by arrival" }),
  data: t.Record(t.String(), t.Unknown()),
});
