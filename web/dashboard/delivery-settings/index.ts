// The delivery settings section (issue 22): the environment's time zone, quiet hours and frequency caps.
import type { Section } from "../app/section";
import { DeliverySettingsPage } from "./delivery-settings-page";

export const deliverySettings: Section = { nav: "Delivery settings", path: "/settings/delivery", pages: [{ pattern: "/settings/delivery", view: DeliverySettingsPage }] };
