// The suppressions section: the addresses no longer sent to, and lifting one.
import type { Section } from "../app/section";
import { SuppressionsPage } from "./suppressions-page";

// /suppressions is not an API path (the API's is /v1/suppressions)
export const suppressions: Section = { nav: "Suppressions", path: "/suppressions", pages: [{ pattern: "/suppressions", view: SuppressionsPage }] };
