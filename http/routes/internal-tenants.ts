// POST /api/internal/tenants (admin token): creates a tenant with one production secret key and,
// given owner_email, its owner with a sign-in link. scripts/create-tenant.ts offers the same from a shell.
import { Elysia } from "elysia";
import { bootstrapTenant } from "../../domain/tenants/bootstrap";
import { tenantCreated } from "../responses/tenants";
import { accessPlugin } from "../plugins/access";
import { BODY_ERRORS, errors } from "../route-docs";
import { CreateTenantBody, TenantWithKeyResponse } from "../../schemas/tenants";

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
  );
