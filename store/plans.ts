// Plan repository (table plans): create, update (version + 1 on every change), find and list.
// Plans are operator data shared by every tenant; the billing rules read them through domain/billing/cache.ts.
import { sql, type Tx } from "./db";

export interface PlanRow {
  id: string;
  name: string;
  price_cents: number;
  currency: string;
  interval: "month" | "year";
  notifications_per_month: number | null;
  api_requests_per_minute: number | null;
  webhooks: number | null;
  domains: number | null;
  team_members: number | null;
  subscribers: number | null;
  /** The longest retention window (days) of the tenant's history settings; null = unlimited. */
  retention_days: number | null;
  gateway_price_id: string | null;
  version: number;
  created_at: Date;
  updated_at: Date;
}

export type PlanFields = Omit<PlanRow, "version" | "created_at" | "updated_at">;

/** bigint columns come back as strings: counts here stay far below 2^53. */
function row(r: any): PlanRow {
  const num = (v: unknown) => (v === null || v === undefined ? null : Number(v));
  return {
    ...r,
    price_cents: Number(r.price_cents),
    notifications_per_month: num(r.notifications_per_month),
    subscribers: num(r.subscribers),
  };
}

/** Inserts a plan; null when the id is taken. */
export async function insertPlan(tx: Tx, p: PlanFields): Promise<PlanRow | null> {
  const rows = await tx`
    insert into plans (id, name, price_cents, currency, interval, notifications_per_month, api_requests_per_minute,
                       webhooks, domains, team_members, subscribers, retention_days, gateway_price_id)
    values (${p.id}, ${p.name}, ${p.price_cents}, ${p.currency}, ${p.interval}, ${p.notifications_per_month},
            ${p.api_requests_per_minute}, ${p.webhooks}, ${p.domains}, ${p.team_members}, ${p.subscribers}, ${p.retention_days}, ${p.gateway_price_id})
    on conflict (id) do nothing
    returning *`;
  return rows[0] ? row(rows[0]) : null;
}

export async function updatePlan(tx: Tx, p: PlanFields): Promise<PlanRow | null> {
  const rows = await tx`
    update plans set name = ${p.name}, price_cents = ${p.price_cents}, currency = ${p.currency}, interval = ${p.interval},
      notifications_per_month = ${p.notifications_per_month}, api_requests_per_minute = ${p.api_requests_per_minute},
      webhooks = ${p.webhooks}, domains = ${p.domains}, team_members = ${p.team_members}, subscribers = ${p.subscribers}, retention_days = ${p.retention_days},
      gateway_price_id = ${p.gateway_price_id}, version = version + 1, updated_at = now()
    where id = ${p.id}
    returning *`;
  return rows[0] ? row(rows[0]) : null;
}

export async function findPlan(id: string, tx: Tx = sql, forUpdate = false): Promise<PlanRow | undefined> {
  const rows = await tx`select * from plans where id = ${id} ${forUpdate ? tx`for update` : tx``}`;
  return rows[0] ? row(rows[0]) : undefined;
}

/** Every plan, cheapest first (then by id). */
export async function listPlans(tx: Tx = sql): Promise<PlanRow[]> {
  const rows = await tx`select * from plans order by price_cents, id`;
  return rows.map(row);
}
