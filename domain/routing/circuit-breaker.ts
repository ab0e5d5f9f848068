// The circuit-breaker rules of a configured provider entry (docs/routing.md): which answers count
// against a provider, and what a transition brings (a webhook event, a warn log line, a metric).
import { config } from "../../config";
import { logger } from "../../basics/log";
import { recordCircuitTransition } from "../../basics/metrics";
import type { SendResult } from "../../providers/types";
import { admitCall, recordCircuitFailure, recordCircuitSuccess, type Admission, type CircuitRef, type CircuitSettings } from "../../store/circuits";
import { sql } from "../../store/db";
import { emitEvent } from "../events/outbox";

export type { CircuitRef };

/** The thresholds (config.circuit, wall-clock: TIME_SCALE never shortens them); read per call so tests may change them. */
export function circuitSettings(): CircuitSettings {
  return config.circuit;
}

/**
 * Whose fault a failed call is. The provider's: anything retryable (5xx, 429, timeouts, network) and
 * a refusal of our credentials (401, 403): the entry cannot send. The caller's: every other permanent
 * 4xx (an invalid number, a malformed address): the provider answered, so it counts as an answered call.
 * An adapter that classifies its vendor's errors (callerFault true or false) decides instead: a
 * suspended SES account (a 400) is the provider's, a recipient Apple no longer knows (a 410) the caller's.
 */
export function faultOf(result: SendResult): "none" | "provider" | "caller" {
  if (result.ok) return "none";
  if (result.retryable) return "provider";
  // the adapters that classify their vendor's errors say so (providers/types.ts SendFailure.callerFault)
  if (result.callerFault !== undefined) return result.callerFault ? "caller" : "provider";
  const status = Number((result.response as { status?: unknown } | undefined)?.status);
  if (status === 401 || status === 403) return "provider";
  return "caller";
}

/** May a call go through this entry now (see store/circuits.ts ADMIT)? A Redis failure admits: routing never blocks on it. */
export async function admit(ref: CircuitRef): Promise<Admission> {
  try {
    const a = await admitCall(ref, circuitSettings());
    if (a.verdict === "probe") logTransition(ref, "half_open", null, 0);
    if (a.verdict === "probe") recordCircuitTransition(ref.channel, ref.provider, "half_open");
    return a;
  } catch (err) {
    logger.warn({ err, tenant_id: ref.tenantId, channel: ref.channel, provider: ref.provider }, "circuit state unreadable; sending anyway");
    return { verdict: "closed", openedAtMs: 0, nowMs: Date.now() };
  }
}

function answerOf(result: SendResult): string | null {
  if (result.ok) return null;
  return `${result.error.code}: ${result.error.message}`.slice(0, 300);
}

function logTransition(ref: CircuitRef, state: "open" | "half_open" | "closed", answer: string | null, failures: number) {
  // names and the provider's answer only: never credentials
  logger.warn(
    { tenant_id: ref.tenantId, environment: ref.environment, channel: ref.channel, provider: ref.provider, circuit: state, failures, answer },
    state === "open" ? "provider circuit opened; sends go to the next provider" : state === "closed" ? "provider circuit closed" : "provider circuit half-open; one probe call",
  );
}

/**
 * Records a call's answer on the entry's circuit and, when it changed the state, says so: the
 * `channel.provider.circuit_opened|closed` event, a warn line, the transition metric. Never throws
 * (the send's outcome matters more than its circuit's bookkeeping).
 */
export async function noteCall(ref: CircuitRef & { role: "primary" | "failover" }, result: SendResult): Promise<void> {
  try {
    const fault = faultOf(result);
    if (fault !== "provider") {
      if ((await recordCircuitSuccess(ref, circuitSettings())) === "closed") await transitioned(ref, "closed", null, 0, null);
      return;
    }
    const answer = answerOf(result) ?? "failed";
    const r = await recordCircuitFailure(ref, circuitSettings(), answer);
    if (r.result === "opened") await transitioned(ref, "open", answer, r.failures, r.openedAtMs);
  } catch (err) {
    logger.warn({ err, tenant_id: ref.tenantId, channel: ref.channel, provider: ref.provider }, "circuit state not recorded");
  }
}

async function transitioned(ref: CircuitRef & { role: "primary" | "failover" }, state: "open" | "closed", answer: string | null, failures: number, openedAtMs: number | null) {
  logTransition(ref, state, answer, failures);
  recordCircuitTransition(ref.channel, ref.provider, state);
  await emitEvent(sql, {
    tenantId: ref.tenantId,
    environment: ref.environment,
    type: state === "open" ? "channel.provider.circuit_opened" : "channel.provider.circuit_closed",
    data: {
      channel: ref.channel,
      provider: ref.provider,
      role: ref.role,
      circuit: state,
      opened_at: openedAtMs ? new Date(openedAtMs).toISOString() : null,
      failures,
      last_error: answer,
    },
  });
}
