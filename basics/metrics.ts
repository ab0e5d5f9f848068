// The process's Prometheus registry (prom-client) and every metric recorded as things happen:
// HTTP requests, actor handler runs and fates, timer lateness, provider calls, webhook deliveries.
// Gauges read from Redis and PostgreSQL on scrape are filled by store/metrics.ts; docs/operations.md lists them all.
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";

/** One registry per process: a process running several kinds (npm start) serves them all on one /metrics. */
export const metricsRegistry = new Registry();
// The event-loop lag is sampled every 500 ms, not prom-client's 10 ms: that timer cost an idle process
// 7 ms of CPU a second, and at 100 ms it was still 10 of its wake-ups a second (docs/operations.md, idle
// burn). Lags are still measured to the ms; a stall shorter than 500 ms may fall between two samples,
// which the p99 alert (a lag over 0.5 s for 10 minutes) does not miss.
collectDefaultMetrics({ register: metricsRegistry, prefix: "nms_", eventLoopMonitoringPrecision: 500 });

const registers = [metricsRegistry];
/** Seconds, from 1 ms to 30 s: API answers, handler runs and provider calls all fall in it. */
const LATENCY_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
/** Timer lateness: promotion runs every 200 ms, so anything past a few seconds means nobody promotes. */
const LATENESS_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];

/** A counter of events and a latency histogram over the same labels (its _count counts what was timed). */
function countedAndTimed<L extends string>(labelNames: readonly L[], counter: { name: string; help: string }, histogram: { name: string; help: string }) {
  return {
    count: new Counter({ ...counter, labelNames, registers }),
    seconds: new Histogram({ ...histogram, labelNames, buckets: LATENCY_BUCKETS, registers }),
  };
}

// ---- HTTP ---------------------------------------------------------------------------------------

const http = countedAndTimed(
  ["method", "route", "status"],
  { name: "nms_http_requests_total", help: "HTTP requests answered, by method, route pattern (never the raw path; 'unmatched' for 404s without a route) and status" },
  { name: "nms_http_request_duration_seconds", help: "Time from the request's arrival to its response, by method, route pattern and status" },
);

export function recordHttpRequest(method: string, route: string | undefined, status: number, seconds: number): void {
  const labels = { method, route: route || "unmatched", status: String(status) };
  http.count.inc(labels);
  http.seconds.observe(labels, seconds);
}

// ---- actor runtime (through the runtime's observer hooks) -------------------------------------------

export type HandlerRunOutcome = "ok" | "failed" | "deadline_missed";

const handlers = countedAndTimed(
  ["actor", "outcome"],
  {
    name: "nms_actor_handler_outcomes_total",
    help: "Handler runs by outcome (ok, failed, deadline_missed) and message fates (dead_lettered after the last failure, deferred without running)",
  },
  { name: "nms_actor_handler_duration_seconds", help: "Handler run time, by actor and outcome (ok, failed: threw, deadline_missed: still running at its deadline)" },
);
const timerLateness = new Histogram({
  name: "nms_actor_timer_lateness_seconds",
  help: "How long after its due time a timer moved into its partition stream (Redis clock), by actor",
  labelNames: ["actor"] as const,
  buckets: LATENESS_BUCKETS,
  registers,
});

/** The runtime's observer (runtime/types.ts RuntimeObserver); store/runtime-handle.ts hands it to createRuntime. */
export const runtimeObserver = {
  handlerRun(e: { actor: string; outcome: HandlerRunOutcome; durationMs: number }): void {
    handlers.count.inc({ actor: e.actor, outcome: e.outcome });
    handlers.seconds.observe({ actor: e.actor, outcome: e.outcome }, e.durationMs / 1000);
  },
  deadLettered(e: { actor: string }): void {
    handlers.count.inc({ actor: e.actor, outcome: "dead_lettered" });
  },
  deferred(e: { actor: string }): void {
    handlers.count.inc({ actor: e.actor, outcome: "deferred" });
  },
  timersPromoted(e: { actor: string; latenessMs: number[] }): void {
    for (const ms of e.latenessMs) timerLateness.observe({ actor: e.actor }, Math.max(0, ms) / 1000);
  },
};

// ---- providers ------------------------------------------------------------------------------------

/** ok; failed and retryable (timeouts, 5xx, 429); failed for good (4xx, bad configuration). */
export type ProviderCallOutcome = "ok" | "retryable_failure" | "permanent_failure";

const providerCalls = countedAndTimed(
  ["provider", "outcome"],
  { name: "nms_provider_calls_total", help: "Delivery provider calls, by provider and outcome (ok, retryable_failure, permanent_failure)" },
  { name: "nms_provider_call_duration_seconds", help: "Delivery provider call latency, by provider and outcome" },
);

export function recordProviderCall(provider: string, outcome: ProviderCallOutcome, seconds: number): void {
  providerCalls.count.inc({ provider, outcome });
  providerCalls.seconds.observe({ provider, outcome }, seconds);
}

// ---- provider circuits (domain/routing/) ----------------------------------------------------------
const circuitTransitions = new Counter({
  name: "nms_provider_circuit_transitions_total",
  help: "Circuit breaker changes of configured provider entries, by channel, provider and the state entered (open, half_open, closed)",
  labelNames: ["channel", "provider", "state"] as const,
  registers,
});
const circuitSkips = new Counter({
  name: "nms_provider_circuit_skips_total",
  help: "Sends routed past a provider entry because its circuit was open (the next provider took them), by channel and provider",
  labelNames: ["channel", "provider"] as const,
  registers,
});
export function recordCircuitTransition(channel: string, provider: string, state: "open" | "half_open" | "closed"): void {
  circuitTransitions.inc({ channel, provider, state });
}
export function recordCircuitSkip(channel: string, provider: string): void {
  circuitSkips.inc({ channel, provider });
}

// ---- data lifecycle (store/replica.ts, domain/lifecycle/) ---------------------------------------------
const replicaReads = new Counter({
  name: "nms_pg_replica_reads_total",
  help:
    "Reads that may use the replica (DATABASE_READ_URL), by where they went (replica, primary) and why: replica, replica lag, " +
    "replica not streaming, own write not replayed, own writes unknown; none counted without a replica",
  labelNames: ["target", "reason"] as const,
  registers,
});
export function recordReplicaRead(target: "replica" | "primary", reason: string): void {
  replicaReads.inc({ target, reason });
}
const retentionRemoved = new Counter({
  name: "nms_retention_rows_removed_total",
  help: "Rows the retention job removed, by kind (notifications, events, workflow_runs, inbox_items, webhook_deliveries); kind partitions: day partitions the partition job dropped",
  labelNames: ["kind"] as const,
  registers,
});
export function recordRetentionRemoved(kind: string, n: number): void {
  if (n > 0) retentionRemoved.inc({ kind }, n);
}

// ---- notifications --------------------------------------------------------------------------------
const notificationStatuses = new Counter({
  name: "nms_notification_status_total",
  help:
    "Notifications reaching a status, by channel and status: pending when accepted (the API process), sent, delivered, failed, " +
    "bounced, suppressed as they move (the sender, the provider callbacks); each process counts what it did, sum across processes",
  labelNames: ["channel", "status"] as const,
  registers,
});
export function recordNotificationStatus(channel: string, status: string, n = 1): void {
  notificationStatuses.inc({ channel, status }, n);
}

// ---- webhooks -------------------------------------------------------------------------------------

/**
 * delivered: the endpoint answered 2xx; retrying: it failed and another attempt is scheduled;
 * exhausted: it failed and no attempt is left; dropped: not attempted (endpoint disabled or gone).
 */
export type WebhookAttemptOutcome = "delivered" | "retrying" | "exhausted" | "dropped";

const webhooks = countedAndTimed(
  ["outcome"],
  { name: "nms_webhook_deliveries_total", help: "Webhook delivery attempts by outcome (delivered, retrying, exhausted, dropped)" },
  { name: "nms_webhook_delivery_duration_seconds", help: "Webhook delivery attempt latency (the endpoint's answer or timeout), by outcome" },
);

/** For the webhook dispatcher: one call per attempt (durationMs when a request was made); the metric keeps its published name. */
export function recordWebhookAttempt(outcome: WebhookAttemptOutcome, durationMs?: number): void {
  webhooks.count.inc({ outcome });
  if (durationMs !== undefined) webhooks.seconds.observe({ outcome }, durationMs / 1000);
}

// ---- gauges filled on scrape (store/metrics.ts) ---------------------------------------------------

const partitionLabels = ["actor", "partition"] as const;
export const scrapeGauges = {
  streamLength: new Gauge({ name: "nms_actor_stream_length", help: "Entries in a partition stream this process owns (XLEN; acked entries stay until trimmed)", labelNames: partitionLabels, registers }),
  pending: new Gauge({ name: "nms_actor_pending_messages", help: "Entries read but not acked in an owned partition (XPENDING count)", labelNames: partitionLabels, registers }),
  oldestPendingAge: new Gauge({
    name: "nms_actor_oldest_pending_age_seconds",
    help: "Age of the oldest read-but-unacked entry of an owned partition (Redis clock minus its entry id time); 0 when none",
    labelNames: partitionLabels,
    registers,
  }),
  lag: new Gauge({ name: "nms_actor_consumer_lag", help: "Entries of an owned partition not yet read by the consumer group (XINFO GROUPS lag)", labelNames: partitionLabels, registers }),
  timersPending: new Gauge({ name: "nms_actor_timers_pending", help: "Timers scheduled in an owned partition (ZCARD of its timers set)", labelNames: partitionLabels, registers }),
  partitionsOwned: new Gauge({ name: "nms_actor_partitions_owned", help: "Partitions of an actor this process reads now", labelNames: ["actor"] as const, registers }),
  deadLetters: new Gauge({ name: "nms_actor_dead_letters", help: "Entries in an actor's dead-letter stream (XLEN), for actors this process runs", labelNames: ["actor"] as const, registers }),
  hostInFlight: new Gauge({ name: "nms_actor_host_in_flight", help: "Messages read and not finished in this process's runtime host", registers }),
  hostRunning: new Gauge({ name: "nms_actor_host_running", help: "Handlers running now in this process's runtime host", registers }),
  hostWaiting: new Gauge({ name: "nms_actor_host_waiting", help: "Messages waiting in memory for a handler slot in this process's runtime host", registers }),
  readerRestarts: new Counter({ name: "nms_actor_reader_restarts_total", help: "Partition readers the watchdog restarted (stalled XREADGROUP)", registers }),
  loopFailures: new Counter({ name: "nms_actor_loop_failures_total", help: "Background loop runs (lease renewal, timer promotion, trimming, watchdog) that failed or overran", registers }),
  pgPoolMax: new Gauge({ name: "nms_pg_pool_max_connections", help: "Connections this process's PostgreSQL pool may open (DATABASE_POOL_SIZE)", registers }),
  pgPoolConnections: new Gauge({
    name: "nms_pg_pool_connections",
    help: "This process's PostgreSQL pool connections by server-side state (pg_stat_activity: active, idle, idle_in_transaction, other)",
    labelNames: ["state"] as const,
    registers,
  }),
  scrapeErrors: new Counter({ name: "nms_metrics_scrape_errors_total", help: "On-scrape collectors that failed or timed out (their gauges keep the last values)", labelNames: ["collector"] as const, registers }),
};
