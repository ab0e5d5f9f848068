// GET /metrics on the API (app.handle): a valid Prometheus exposition whose HTTP counters move by
// route pattern and status (never the raw path), the pool gauges, and the METRICS_TOKEN rule.
import { afterEach, describe, expect, test } from "bun:test";
import { config } from "../../config";
import { recordWebhookAttempt } from "../../basics/metrics";
import { sql } from "../../store/db";
import { call, createTenant } from "../support/fixtures";
import { parseExposition } from "../support/prom-text";

async function scrape(token?: string) {
  const r = await call("GET", "/metrics", token ? { key: token } : {});
  expect(r.status).toBe(200);
  expect(r.headers.get("content-type")).toContain("text/plain");
  return parseExposition(r.text);
}

const savedToken = config.metricsToken;
afterEach(() => {
  config.metricsToken = savedToken;
});

describe("GET /metrics on the API", () => {
  test("parses as the exposition format and declares the families docs/operations.md lists", async () => {
    await sql`select 1`; // the pool opens its connections lazily
    const m = await scrape();
    for (const [family, type] of [
      ["nms_http_requests_total", "counter"],
      ["nms_http_request_duration_seconds", "histogram"],
      ["nms_actor_handler_outcomes_total", "counter"],
      ["nms_actor_handler_duration_seconds", "histogram"],
      ["nms_actor_timer_lateness_seconds", "histogram"],
      ["nms_actor_stream_length", "gauge"],
      ["nms_actor_pending_messages", "gauge"],
      ["nms_actor_oldest_pending_age_seconds", "gauge"],
      ["nms_actor_consumer_lag", "gauge"],
      ["nms_actor_timers_pending", "gauge"],
      ["nms_actor_dead_letters", "gauge"],
      ["nms_provider_calls_total", "counter"],
      ["nms_provider_call_duration_seconds", "histogram"],
      ["nms_webhook_deliveries_total", "counter"],
      ["nms_pg_pool_connections", "gauge"],
      ["nms_pg_pool_max_connections", "gauge"],
      ["nms_process_resident_memory_bytes", "gauge"],
    ] as const) {
      expect([family, m.types.get(family)]).toEqual([family, type]);
    }
    expect(m.value("nms_pg_pool_max_connections")).toBe(config.databasePoolSize);
    // this process has run queries: its pool has at least one connection open, seen by the server
    expect(m.value("nms_pg_pool_connections")).toBeGreaterThanOrEqual(1);
  });

  test("requests are counted by route pattern and status; the raw path never becomes a label", async () => {
    const t = await createTenant();
    const id = "0190f5c2-7a1b-7c3d-8e4f-00000000abcd";
    const route = { method: "GET", route: "/v1/notifications/:id", status: "404" };
    const before = await scrape();
    for (let i = 0; i < 3; i++) expect((await call("GET", `/v1/notifications/${id}`, { key: t.secretKey })).status).toBe(404);
    expect((await call("GET", "/v1/no-such-route-metrics-test")).status).toBe(404);
    const r = await call("GET", "/metrics");
    const after = parseExposition(r.text);
    expect(after.value("nms_http_requests_total", route) - before.value("nms_http_requests_total", route)).toBe(3);
    expect(after.value("nms_http_request_duration_seconds_count", route) - before.value("nms_http_request_duration_seconds_count", route)).toBe(3);
    expect(after.value("nms_http_requests_total", { route: "unmatched", status: "404" })).toBeGreaterThan(before.value("nms_http_requests_total", { route: "unmatched", status: "404" }));
    expect(r.text).not.toContain(id);
    expect(r.text).not.toContain("no-such-route-metrics-test");
    // every label value of the request metrics is a declared pattern (or 'unmatched'), never a concrete path
    for (const s of after.find("nms_http_requests_total")) expect(s.labels.route).toMatch(/^(unmatched|\/[^?]*)$/);
  });

  test("the webhook dispatcher's recording function moves nms_webhook_deliveries_total", async () => {
    const before = await scrape();
    recordWebhookAttempt("delivered", 12);
    recordWebhookAttempt("retrying", 30_000);
    const after = await scrape();
    expect(after.value("nms_webhook_deliveries_total", { outcome: "delivered" }) - before.value("nms_webhook_deliveries_total", { outcome: "delivered" })).toBe(1);
    expect(after.value("nms_webhook_deliveries_total", { outcome: "retrying" }) - before.value("nms_webhook_deliveries_total", { outcome: "retrying" })).toBe(1);
    expect(after.value("nms_webhook_delivery_duration_seconds_count") - before.value("nms_webhook_delivery_duration_seconds_count")).toBe(2);
  });

  test("with METRICS_TOKEN set, a missing or wrong bearer token is a 401 error body", async () => {
    config.metricsToken = "metrics-secret-1";
    for (const headers of [{}, { authorization: "Bearer nope" }, { authorization: "Basic bWV0cmljcy1zZWNyZXQtMQ==" }] as Record<string, string>[]) {
      const r = await call("GET", "/metrics", { headers });
      expect(r.status).toBe(401);
      expect(r.body).toEqual({ error: { code: "invalid_metrics_token", message: expect.any(String) } });
    }
    const m = await scrape("metrics-secret-1");
    expect(m.types.get("nms_http_requests_total")).toBe("counter");
  });
});
