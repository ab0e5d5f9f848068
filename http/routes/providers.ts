// GET /v1/providers: every delivery provider of the registry with its channels and the fields of
// its credentials and settings, so a form (the dashboard's channels page) is built from one description.
import { Elysia } from "elysia";
import { getProviderDefinition, PROVIDER_NAMES } from "../../providers/registry";
import { builtInProvider } from "../../domain/delivery/target";
import { CHANNELS } from "../../schemas/channels";
import { ErrorBody } from "../../schemas/errors";
import { ProviderListResponse } from "../../schemas/providers";
import { accessPlugin } from "../plugins/access";

/** Where `name` is the built-in provider (domain/delivery/target.ts decides it for delivery too). */
function builtInFor(name: string) {
  const channels = CHANNELS.filter((c) => ENVIRONMENTS.some((e) => builtInProvider(e, c) === name));
  const environments = ENVIRONMENTS.filter((e) => CHANNELS.some((c) => builtInProvider(e, c) === name));
  return channels.length ? { channels: [...channels], environments: [...environments] } : null;
}

function describe(name: string) {
  const d = getProviderDefinition(name)!;
  return {
    name: d.name,
    channels: [...d.channels],
    default_rate_limit_per_second: d.defaultRateLimitPerSecond,
    credential_fields: d.credentialFields,
    setting_fields: d.settingFields,
    built_in: builtInFor(name),
  };
}

const ENVIRONMENTS = ["production", "sandbox"] as const;

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
        summary: "Delivery providers: channels, credential and setting fields (names, types, required, descriptions)", description: "What POST /v1/channels accepts for each provider; the dashboard builds its channel forms from it.",
        tags: ["channels"],
      },
    },
  );
