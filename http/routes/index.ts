// Every route plugin of the API, in one list that http/app.ts mounts.
// Each resource adds one line here.
import { healthRoutes } from "./health";
import { internalTenantRoutes } from "./internal-tenants";

export const routePlugins = [
  healthRoutes,
  internalTenantRoutes,
] as const;
