// POST /api/internal/tenants (admin token): creates a tenant with one production secret key.
// The raw key is in this response only; scripts/create-tenant.ts offers the same from a shell.
import { Elysia } from "elysia";
import { createTenant } from "../../store/tenants";
import { iso } from "../../store/time";
import { accessPlugin } from "../plugins/access";
import { BODY_ERRORS, errors } from "../route-docs";
import { CreateTenantBody, TenantWithKeyResponse } from "../../schemas/tenants";

export const internalTenantRoutes = new Elysia({ name: "routes.internal-tenants" })
  .use(accessPlugin)
  .post(
    "/api/internal/tenants",
    async ({ body, set }) => {
      const { tenant, apiKey } = await createTenant(body.name.trim());
      set.status = 201;
      return {
        data: {
          id: tenant.id,
          name: tenant.name,
          created_at: iso(tenant.created_at)!,
          api_key: {
            id: apiKey.row.id,
            key_type: apiKey.row.key_type,
            environment: apiKey.row.environment,
            prefix: apiKey.row.prefix,
            raw_key: apiKey.raw,
          },
        },
      };
    },
    {
      access: "admin",
      body: CreateTenantBody,
      response: { 201: TenantWithKeyResponse, ...errors(401, BODY_ERRORS) },
      detail: { summary: "Create a tenant (admin)", tags: ["admin"] },
    },
  );
