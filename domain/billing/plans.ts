// Plans as operator data (POST/GET/PUT /v1/admin/plans): validation, create and update (which
// changes the limits of every tenant on the plan within BILLING_CACHE_MS).
import { conflict, notFound, validationFailed } from "../../basics/errors";
import { logger } from "../../basics/log";
import type { PlanInterval, PlanLimitsValue } from "../../schemas/billing";
import { sql } from "../../store/db";
import { findPlan, insertPlan, listPlans, updatePlan, type PlanFields, type PlanRow } from "../../store/plans";
import { forgetBilling } from "./cache";

const LIMIT_KEYS = ["notifications_per_month", "api_requests_per_minute", "webhooks", "domains", "team_members", "subscribers", "retention_days"] as const;

export interface PlanInput {
  name?: string;
  price_cents?: number;
  currency?: string;
  interval?: PlanInterval;
  limits?: Partial<PlanLimitsValue>;
  gateway_price_id?: string | null;
}

export const planNotFound = (id: string) => notFound("plan_not_found", `No plan ${JSON.stringify(id)}`);

export function limitsOf(p: PlanRow): PlanLimitsValue {
  return Object.fromEntries(LIMIT_KEYS.map((k) => [k, p[k]])) as PlanLimitsValue;
}

function fieldsFrom(id: string, base: PlanFields | null, input: PlanInput): PlanFields {
  const limits = Object.fromEntries(LIMIT_KEYS.map((k) => [k, input.limits && k in input.limits ? (input.limits[k] ?? null) : (base?.[k] ?? null)]));
  return {
    id,
    name: input.name ?? base?.name ?? id,
    price_cents: input.price_cents ?? base?.price_cents ?? 0,
    currency: (input.currency ?? base?.currency ?? "usd").toLowerCase(),
    interval: input.interval ?? base?.interval ?? "month",
    gateway_price_id: input.gateway_price_id !== undefined ? input.gateway_price_id : (base?.gateway_price_id ?? null),
    ...(limits as Pick<PlanFields, (typeof LIMIT_KEYS)[number]>),
  };
}

export async function createPlan(id: string, input: PlanInput): Promise<PlanRow> {
  const row = await insertPlan(sql, fieldsFrom(id, null, input));
  if (!row) throw conflict("plan_already_exists", `A plan ${JSON.stringify(id)} exists; change it with PUT /v1/admin/plans/${id}`);
  forgetBilling();
  logger.info({ plan_id: id, price_cents: row.price_cents, limits: limitsOf(row) }, "plan created");
  return row;
}

/** Changes the given fields (limits merge by key); every tenant on the plan has the new limits at once. */
export async function changePlan(id: string, input: PlanInput): Promise<PlanRow> {
  const row = await sql.begin(async (tx) => {
    const cur = await findPlan(id, tx, true);
    if (!cur) throw planNotFound(id);
    return (await updatePlan(tx, fieldsFrom(id, cur, input)))!;
  });
  forgetBilling();
  logger.info({ plan_id: id, version: row.version, limits: limitsOf(row) }, "plan changed");
  return row;
}

export async function getPlan(id: string): Promise<PlanRow> {
  const row = await findPlan(id);
  if (!row) throw planNotFound(id);
  return row;
}

export { listPlans };

/** A plan a tenant may subscribe to (the slug of an existing plan). */
export async function subscribablePlan(id: string): Promise<PlanRow> {
  const row = await findPlan(id);
  if (!row) throw validationFailed({ plan_id: ["is not a plan: GET /v1/plans lists them"] });
  return row;
}
