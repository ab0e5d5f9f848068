// POST /api/internal/tenants (admin token): creates a tenant with one production secret key and,
// given owner_email, its owner with a sign-in link (scripts/create-tenant.ts offers the same from a shell);
// DELETE offboards a tenant in batches (domain/lifecycle/offboarding.ts), GET .../offboarding reports progress.
import { Elysia } from "elysia";
import { bootstrapTenant } from "../../domain/tenants/bootstrap";
import { getOffboarding, requestOffboarding, runOffboardingInBackground } from "../../domain/lifecycle/offboarding";
import { notFound } from "../../basics/errors";
import { isUuid } from "../../store/ids";
import { tenantTables } from "../../store/offboardings";
import { offboardingShape, tenantCreated } from "../responses/tenants";
import { accessPlugin } from "../plugins/access";
import { BODY_ERRORS, errors } from "../route-docs";
import { CreateTenantBody, OffboardingResponse, TenantIdParams, TenantWithKeyResponse } from "../../schemas/tenants";

export const internalTenantRoutes = new Elysia({ name: "routes.internal-tenants" })
  .use(accessPlugin)
  .post(
    "/api/internal/tenants",
    async ({ body, set }) => {
      const created = await bootstrapTenant({ name: body.name, ownerEmail: body.owner_email ?? null, mail: true });
      set.status = 201;
      return { data: tenantCreated(created) };
    },
    {
      access: "admin",
      body: CreateTenantBody,
      response: { 201: TenantWithKeyResponse, ...errors(401, BODY_ERRORS, 409) },
      detail: {
        summary: "Create a tenant (admin), optionally with its owner",
        description:
          "Creates the tenant with one production secret key (`api_key.raw_key`, shown in this response only). With `owner_email` the " +
          "address becomes the tenant's owner in the dashboard: `owner.sign_in_url` signs them in once within 15 minutes (it is also " +
          "mailed through SMTP_URL, or logged without it), and afterwards they sign in with that address. An address that already " +
          "belongs to a dashboard user is 409 `email_taken` and nothing is created.",
        tags: ["admin"],
      },
    },
  )
  .delete(
    "/api/internal/tenants/:id",
    async ({ params, set }) => {
      if (!isUuid(params.id)) throw notFound("tenant_not_found", "No tenant with this id");
      const { row, started } = await requestOffboarding(params.id);
      // a run whose process died is resumed by the retention job, not by a repeated DELETE
      if (started) runOffboardingInBackground(params.id);
      set.status = row.status === "completed" ? 200 : 202;
      return { data: offboardingShape(row, (await tenantTables()).length) };
    },
    {
      access: "admin",
      params: TenantIdParams,
      response: { 200: OffboardingResponse, 202: OffboardingResponse, ...errors(401, 404) },
      detail: {
        summary: "Offboard a tenant (admin): remove every record of it, in batches",
        description:
          "Answers 202 with the offboarding's progress and removes the tenant's records in the background, table by table, " +
          "RETENTION_BATCH_ROWS rows per transaction: keys and sessions first (the tenant's callers stop at once), history next, " +
          "the tenant row last. The audit log is kept (SPEC: retained indefinitely), with tenant.offboarding_started and " +
          "tenant.offboarded entries. Repeating the DELETE answers the same offboarding (200 once completed). A process killed " +
          "half-way loses nothing: the retention job resumes a running offboarding whose updated_at stopped moving for " +
          "OFFBOARDING_STALE_AFTER. Redis keys of the tenant (rate limits, idempotency records, caches) expire on their own.",
        tags: ["admin"],
      },
    },
  )
  .get(
    "/api/internal/tenants/:id/offboarding",
    async ({ params }) => {
      if (!isUuid(params.id)) throw notFound("offboarding_not_found", "This tenant has no offboarding");
      return { data: offboardingShape(await getOffboarding(params.id), (await tenantTables()).length) };
    },
    {
      access: "admin",
      params: TenantIdParams,
      response: { 200: OffboardingResponse, ...errors(401, 404) },
      detail: { summary: "A tenant offboarding's progress (admin)", description: "Where the removal of the tenant's records stands.", tags: ["admin"] },
    },
  );
