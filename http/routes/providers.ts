// GET /v1/providers: every delivery provider of the registry with its channels and the fields of
// its credentials and settings, so a form (the dashboard's channels page) is built from one description.
import { Elysia } from "elysia";
import { getProviderDefinition, PROVIDER_NAMES } from "../../providers/registry";
import { ErrorBody } from "../../schemas/errors";
import { ProviderListResponse } from "../../schemas/providers";
import { accessPlugin } from "../plugins/access";

function describe(name: string) {
  const d = getProviderDefinition(name)!;
  return {
    name: d.name,
    channels: [...d.channels],
    default_rate_limit_per_second: d.defaultRateLimitPerSecond,
    credential_fields: d.credentialFields,
    setting_fields: d.settingFields,
  };
}

export const providerRoutes = new Elysia({ name: "routes.providers" })
  .use(accessPlugin)
  .get(
    "/v1/providers",
    ({ auth }) => {
      return { data: PROVIDER_NAMES.map(describe) };
    },
    {
      access: "secret-read",
      response: { 200: ProviderListResponse, 401: ErrorBody, 403: ErrorBody },
      detail: {
        summary: "Delivery providers: channels, credential and setting fields (names, types, required, descriptions)",
        tags: ["channels"],
      },
    },
  );
