// TypeBox schemas of GET /v1/providers: each delivery provider's channels and the fields of its
// credentials and settings, the one description the registry keeps and the dashboard's forms read.
import { t, type Static } from "elysia";

export const ProviderField = t.Object({
  name: t.String({ description: "Key in credentials or settings, e.g. from_email" }),
  required: t.Boolean(),
  description: t.String(),
  type: t.Union(
    [t.Literal("string"), t.Literal("number"), t.Literal("integer"), t.Literal("boolean"), t.Literal("object")],
    { description: "JSON type of the value: string, number, integer, boolean or object (a JSON object such as an FCM service account)" },
  ),
});
/** One credential or setting of a provider (providers/types.ts ProviderDefinition lists them). */
export type ProviderFieldSpec = Static<typeof ProviderField>;

export const ProviderDescription = t.Object({
  name: t.String(),
  channels: t.Array(t.String(), { description: "Channels this provider can deliver on" }),
  default_rate_limit_per_second: t.Number(),
  credential_fields: t.Array(ProviderField, { description: "Secrets: write-only, never returned (a channel lists their names as credential_keys)" }),
  setting_fields: t.Array(ProviderField),
  built_in: t.Union(
    [
      t.Object({
        channels: t.Array(t.String()),
        environments: t.Array(t.String()),
      }),
      t.Null(),
    ],
    {
      description:
        "Channels this provider delivers without any configuration, and in which environments: `inbox` takes in_app everywhere, " +
        "`sandbox` every other channel in sandbox. A channel with neither a configuration nor a built-in provider refuses " +
        "sends with 422 channel_not_configured.",
    },
  ),
});

export const ProviderListResponse = t.Object(
  { data: t.Array(ProviderDescription) },
  {
    examples: [
      {
        data: [
          {
            name: "sendgrid",
            channels: ["email"],
            default_rate_limit_per_second: 100,
            credential_fields: [{ name: "api_key", required: true, description: "SendGrid API key with Mail Send permission", type: "string" }],
            setting_fields: [
              { name: "from_email", required: true, description: "verified sender address", type: "string" },
              { name: "rate_limit_per_second", required: false, description: "sends per second (default 100)", type: "number" },
            ],
            built_in: null,
          },
          {
            name: "inbox",
            channels: ["in_app"],
            default_rate_limit_per_second: 1000,
            credential_fields: [],
            setting_fields: [{ name: "rate_limit_per_second", required: false, description: "sends per second (default 1000)", type: "number" }],
            built_in: { channels: ["in_app"], environments: ["production", "sandbox"] },
          },
        ],
      },
    ],
  },
);
