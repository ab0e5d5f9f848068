// /v1/settings/delivery (issue 22): the delivery policy of the scope (time zone, quiet hours,
// frequency caps). Validation in domain/delivery-policy/settings.ts; the send path applies it.
import { Elysia } from "elysia";
import { replaceDeliverySettings } from "../../domain/delivery-policy/settings";
import { DeliverySettingsBody, DeliverySettingsResponse } from "../../schemas/delivery-settings";
import { getDeliverySettings, type DeliverySettings } from "../../store/delivery-settings";
import { iso } from "../../store/time";
import { accessPlugin } from "../plugins/access";
import { scopeOf } from "../plugins/auth";
import { BODY_ERRORS, errors, KEY_ERRORS } from "../route-docs";

const serialize = (s: DeliverySettings) => ({
  timezone: s.timezone,
  quiet_hours: s.quiet_hours ?? null,
  frequency_caps: s.frequency_caps ?? [],
  updated_at: iso(s.updated_at ?? null),
});

export const deliverySettingsRoutes = new Elysia({ name: "routes.delivery-settings" })
  .use(accessPlugin)
  .get("/v1/settings/delivery", async ({ auth }) => ({ data: serialize(await getDeliverySettings(scopeOf(auth))) }), {
    access: "secret-read",
    response: { 200: DeliverySettingsResponse, ...errors(KEY_ERRORS) },
    detail: { summary: "The delivery policy: time zone, quiet hours, frequency caps (defaults: UTC, none, none)", description: "What is applied before each send of the environment: its time zone, quiet hours and frequency caps per recipient.", tags: ["settings"] },
  })
  .put(
    "/v1/settings/delivery",
    async ({ auth, body }) => ({ data: serialize(await replaceDeliverySettings(scopeOf(auth), body as Record<string, unknown>)) }),
    {
      access: "secret-write",
      body: DeliverySettingsBody,
      response: { 200: DeliverySettingsResponse, ...errors(KEY_ERRORS, BODY_ERRORS) },
      detail: { summary: "Replace the delivery policy; it applies to sends not yet made (within 5 s in every process)", description: "The whole policy is replaced: send every field you want to keep.", tags: ["settings"] },
    },
  );
