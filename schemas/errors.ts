// The standard error body of every failure (DESIGN.md 4) as a TypeBox schema, so routes can
// declare it per status in their `response` and the OpenAPI document shows it.
import { t } from "elysia";

export const ErrorBody = t.Object(
  {
    error: t.Object({
      code: t.String({ description: "Stable machine-readable code, e.g. validation_failed, domain_not_found, rate_limited" }),
      message: t.String(),
      details: t.Optional(t.Record(t.String(), t.Array(t.String()), { description: "Field path -> messages (validation)" })),
    }),
  },
  { examples: [{ error: { code: "validation_failed", message: "Validation failed", details: { domain: ["must not be an IP address"] } } }] },
);
