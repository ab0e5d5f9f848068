// A local Stripe for the billing tests: the customers and subscriptions endpoints the gateway adapter
// calls (form-encoded bodies, Bearer secret key, Idempotency-Key replays, Stripe's error shape), and
// events signed as Stripe signs them (Stripe-Signature: t=<unix>,v1=<hex HMAC-SHA256 of "t.body">).
import { createHmac, randomBytes } from "node:crypto";

export interface FakeStripeRequest {
  method: string;
  path: string;
  params: Record<string, any>;
  idempotencyKey: string | null;
  stripeVersion: string | null;
}

export interface FakeStripe {
  readonly url: string;
  readonly secretKey: string;
  readonly webhookSecret: string;
  readonly requests: FakeStripeRequest[];
  readonly subscriptions: Map<string, any>;
  /** The status the next created subscription gets (Stripe's: active, incomplete, trialing). */
  nextStatus: string;
  /** Answers the next API call with a card error (402), as Stripe does for a declined payment. */
  declineNext: boolean;
  /** A signed event as Stripe would POST it: the exact body and its Stripe-Signature header. */
  signedEvent(type: string, object: unknown, opts?: { id?: string; timestamp?: number; secret?: string }): { id: string; body: string; signature: string };
  /** A subscription object as Stripe sends it in customer.subscription.* events. */
  subscriptionObject(id: string, change?: Record<string, unknown>): any;
  /** An invoice object of the subscription, as Stripe sends it in invoice.* events. */
  invoiceObject(subscriptionId: string, opts: { id?: string; number?: string; amount: number; paid: boolean; failure?: string }): any;
  stop(): Promise<void>;
}

/** `items[0][price]=p&metadata[tenant_id]=t` -> { items: [{ price: "p" }], metadata: { tenant_id: "t" } } */
export function parseStripeForm(body: string): Record<string, any> {
  const out: Record<string, any> = {};
  for (const [rawKey, value] of new URLSearchParams(body)) {
    const parts = rawKey.replace(/\]/g, "").split("[");
    let node: any = out;
    for (let i = 0; i < parts.length; i++) {
      const k = parts[i]!;
      const last = i === parts.length - 1;
      const nextIsIndex = !last && /^\d+$/.test(parts[i + 1]!);
      if (last) node[k] = value;
      else node = node[k] ??= nextIsIndex ? [] : {};
    }
  }
  return out;
}

const now = () => Math.floor(Date.now() / 1000);
const DAY = 86_400;

export function stripeSignature(body: string, secret: string, timestamp: number): string {
  return `t=${timestamp},v1=${createHmac("sha256", secret).update(`${timestamp}.${body}`).digest("hex")}`;
}

export async function startFakeStripe(): Promise<FakeStripe> {
  const secretKey = `sk_test_${randomBytes(12).toString("hex")}`;
  const webhookSecret = `whsec_${randomBytes(24).toString("base64")}`;
  const requests: FakeStripeRequest[] = [];
  const subscriptions = new Map<string, any>();
  const customers = new Map<string, any>();
  const replays = new Map<string, { status: number; body: unknown }>();
  let seq = 0;
  const id = (prefix: string) => `${prefix}_${(++seq).toString().padStart(6, "0")}${randomBytes(4).toString("hex")}`;

  const error = (status: number, type: string, message: string, code?: string) => ({ status, body: { error: { type, message, ...(code ? { code } : {}) } } });

  function invoiceFor(sub: any, paid: boolean) {
    return {
      id: id("in"),
      object: "invoice",
      status: paid ? "paid" : "open",
      number: `FAKE-${seq}`,
      amount_due: Number(sub.items.data[0].price.unit_amount ?? 0),
      hosted_invoice_url: paid ? null : `https://invoice.stripe.test/${sub.id}`,
      parent: { type: "subscription_details", subscription_details: { subscription: sub.id } },
    };
  }

  function handle(method: string, path: string, params: Record<string, any>): { status: number; body: unknown } {
    if (path === "/v1/customers" && method === "POST") {
      const c = { id: id("cus"), object: "customer", name: params.name ?? null, email: params.email ?? null, metadata: params.metadata ?? {} };
      customers.set(c.id, c);
      return { status: 200, body: c };
    }
    if (path === "/v1/subscriptions" && method === "POST") {
      if (!customers.has(params.customer)) return error(404, "invalid_request_error", `No such customer: '${params.customer}'`, "resource_missing");
      const price = params.items?.[0]?.price;
      if (!price) return error(400, "invalid_request_error", "Missing required param: items[0][price].", "parameter_missing");
      const start = now();
      const sub: any = {
        id: id("sub"),
        object: "subscription",
        customer: params.customer,
        status: fake.nextStatus,
        cancel_at_period_end: false,
        metadata: params.metadata ?? {},
        items: { object: "list", data: [{ id: id("si"), object: "subscription_item", price: { id: price, object: "price" }, current_period_start: start, current_period_end: start + 30 * DAY }] },
      };
      sub.latest_invoice = invoiceFor(sub, sub.status === "active" || sub.status === "trialing");
      subscriptions.set(sub.id, sub);
      return { status: 200, body: sub };
    }
    const m = /^\/v1\/subscriptions\/([^/]+)$/.exec(path);
    if (m) {
      const sub = subscriptions.get(m[1]!);
      if (!sub) return error(404, "invalid_request_error", `No such subscription: '${m[1]}'`, "resource_missing");
      if (method === "GET") return { status: 200, body: sub };
      if (method === "DELETE") {
        sub.status = "canceled";
        sub.canceled_at = now();
        return { status: 200, body: sub };
      }
      if (method === "POST") {
        const item = params.items?.[0];
        if (item) {
          if (item.id !== sub.items.data[0].id) return error(400, "invalid_request_error", `No such subscription item: '${item.id}'`, "resource_missing");
          sub.items.data[0].price = { id: item.price, object: "price" };
          sub.last_proration_behavior = params.proration_behavior ?? "create_prorations";
        }
        if (params.cancel_at_period_end !== undefined) sub.cancel_at_period_end = params.cancel_at_period_end === "true";
        return { status: 200, body: sub };
      }
    }
    return error(404, "invalid_request_error", `Unrecognized request URL (${method}: ${path}).`);
  }

  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req) {
      const url = new URL(req.url);
      const body = await req.text();
      const params = parseStripeForm(req.method === "GET" ? url.search.slice(1) : body);
      const idempotencyKey = req.headers.get("idempotency-key");
      requests.push({ method: req.method, path: url.pathname, params, idempotencyKey, stripeVersion: req.headers.get("stripe-version") });
      if (req.headers.get("authorization") !== `Bearer ${secretKey}`) {
        return Response.json(error(401, "invalid_request_error", "Invalid API Key provided").body, { status: 401 });
      }
      if (fake.declineNext) {
        fake.declineNext = false;
        return Response.json(error(402, "card_error", "Your card was declined.", "card_declined").body, { status: 402 });
      }
      // Stripe replays the first answer to a repeated Idempotency-Key (the SDK sends one on every POST)
      const replayKey = idempotencyKey && req.method === "POST" ? `${idempotencyKey}:${url.pathname}` : null;
      const replay = replayKey ? replays.get(replayKey) : undefined;
      const out = replay ?? handle(req.method, url.pathname, params);
      if (replayKey && !replay && out.status < 500) replays.set(replayKey, JSON.parse(JSON.stringify(out)));
      return Response.json(out.body, { status: out.status, headers: { "request-id": id("req") } });
    },
  });

  const fake: FakeStripe = {
    url: `http://127.0.0.1:${server.port}`,
    secretKey,
    webhookSecret,
    requests,
    subscriptions,
    nextStatus: "active",
    declineNext: false,
    signedEvent(type, object, opts = {}) {
      const eventId = opts.id ?? id("evt");
      const timestamp = opts.timestamp ?? now();
      const body = JSON.stringify({ id: eventId, object: "event", api_version: "2026-10-28.endive", created: timestamp, type, livemode: false, data: { object } });
      return { id: eventId, body, signature: stripeSignature(body, opts.secret ?? webhookSecret, timestamp) };
    },
    subscriptionObject(subId, change = {}) {
      const sub = subscriptions.get(subId);
      if (!sub) throw new Error(`fake stripe: no subscription ${subId}`);
      // in events Stripe sends latest_invoice as an id (it expands only on request)
      return JSON.parse(JSON.stringify({ ...sub, latest_invoice: sub.latest_invoice?.id ?? null, ...change }));
    },
    invoiceObject(subscriptionId, opts) {
      return {
        id: opts.id ?? id("in"),
        object: "invoice",
        number: opts.number ?? `FAKE-${seq}`,
        status: opts.paid ? "paid" : "open",
        amount_due: opts.amount,
        amount_paid: opts.paid ? opts.amount : 0,
        attempt_count: opts.paid ? 0 : 1,
        last_finalization_error: opts.failure ? { type: "card_error", code: "card_declined", message: opts.failure } : null,
        parent: { type: "subscription_details", subscription_details: { subscription: subscriptionId } },
      };
    },
    async stop() {
      await server.stop(true);
    },
  };
  return fake;
}
