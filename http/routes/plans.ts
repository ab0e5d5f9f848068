// Plans: the operator's catalogue behind the admin token (POST/GET/PUT /v1/admin/plans), and the
// same list for tenants choosing one (GET /v1/plans, any key or dashboard session).
import { Elysia } from "elysia";
import { changePlan, createPlan, getPlan, listPlans } from "../../domain/billing/plans";
import { CreatePlanBody, PlanList, PlanParams, PlanResponse, UpdatePlanBody } from "../../schemas/billing";
import { accessPlugin } from "../plugins/access";
import { serializePlan } from "../responses/plans";
import { BODY_ERRORS, errors, KEY_ERRORS } from "../route-docs";

const ADMIN = { tags: ["admin"] };

export const planAdminRoutes = new Elysia({ name: "routes.plans-admin" })
  .use(accessPlugin)
  .get("/v1/admin/plans", async () => ({ data: (await listPlans()).map((p) => serializePlan(p)) }), {
    access: "admin",
    response: { 200: PlanList, ...errors(401) },
    detail: { ...ADMIN, summary: "List plans, cheapest first", description: "Every plan with its price and limits." },
  })
  .post(
    "/v1/admin/plans",
    async ({ body, set }) => {
      const { id, ...input } = body;
      set.status = 201;
      return { data: serializePlan(await createPlan(id, input)) };
    },
    {
      access: "admin",
      body: CreatePlanBody,
      response: { 201: PlanResponse, ...errors(401, BODY_ERRORS, 409) },
      detail: {
        ...ADMIN,
        summary: "Create a plan",
        description:
          "Limits left out are unlimited (null); api_requests_per_minute null means the service default RATE_LIMIT_PER_MINUTE. A paid plan sold through Stripe needs gateway_price_id (a Stripe price of the same amount and interval).",
      },
    },
  )
  .get("/v1/admin/plans/:id", async ({ params }) => ({ data: serializePlan(await getPlan(params.id)) }), {
    access: "admin",
    params: PlanParams,
    response: { 200: PlanResponse, ...errors(401, 404) },
    detail: { ...ADMIN, summary: "One plan", description: "Its price and limits." },
  })
  .put("/v1/admin/plans/:id", async ({ params, body }) => ({ data: serializePlan(await changePlan(params.id, body)) }), {
    access: "admin",
    params: PlanParams,
    body: UpdatePlanBody,
    response: { 200: PlanResponse, ...errors(401, 404, BODY_ERRORS) },
    detail: {
      ...ADMIN,
      summary: "Change a plan",
      description:
        "Given fields replace the stored ones; limits merge key by key (null = unlimited). Every tenant on the plan has the new limits within BILLING_CACHE_MS. Changing the price here does not change the gateway's price: set gateway_price_id to a new Stripe price for new subscriptions.",
    },
  });

export const planRoutes = new Elysia({ name: "routes.plans" })
  .use(accessPlugin)
  .get("/v1/plans", async () => ({ data: (await listPlans()).map((p) => serializePlan(p)) }), {
    access: "secret-read",
    response: { 200: PlanList, ...errors(KEY_ERRORS) },
    detail: { tags: ["billing"], summary: "The plans a tenant can subscribe to, cheapest first", description: "Each plan's price and limits (notifications per period, resources, requests per minute)." },
  });
