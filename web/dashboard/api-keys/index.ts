// The API keys section: keys (created, shown once, rotated, revoked) and the inbox embed's
// allowed origins, developer mode and inbox secret.
import type { Section } from "../app/section";
import { ApiKeysPage } from "./api-keys-page";

// /keys, not /api-keys: that path belongs to the API (its guide-shape key routes)
export const apiKeys: Section = { nav: "API keys", path: "/keys", pages: [{ pattern: "/keys", view: ApiKeysPage }] };
