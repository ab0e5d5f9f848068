// TypeBox schemas of /v1/preference-categories (issue 28, docs/preferences.md): a category's
// create/update body and record.
import { t } from "elysia";
import { CHANNELS_TEXT } from "./channels";

const Channels = t.Array(t.String(), {
  maxItems: 10,
  description: `Channels on for a subscriber who chose nothing (${CHANNELS_TEXT}); default every channel`,
});

export const PreferenceCategoryCreateBody = t.Object(
  {
    key: t.String({ maxLength: 100, description: "What a notification's or workflow step's `category` names: lowercase letters, digits, - and _" }),
    name: t.String({ maxLength: 200, description: "Shown to subscribers (preference center)" }),
    description: t.Optional(t.Nullable(t.String({ maxLength: 1000 }))),
    default_enabled_channels: t.Optional(Channels),
    required: t.Optional(t.Boolean({ description: "Cannot be turned off (security, billing): always sent, shown locked" })),
  },
  {
    examples: [
      { key: "security", name: "Security alerts", description: "Sign-ins and password changes", required: true },
      { key: "marketing", name: "News and offers", default_enabled_channels: ["email", "in_app"] },
    ],
  },
);

export const PreferenceCategoryUpdateBody = t.Partial(PreferenceCategoryCreateBody, {
  examples: [{ name: "Product news", default_enabled_channels: ["in_app"] }],
});

export const PreferenceCategoryParams = t.Object({ key: t.String({ description: "The category's key, or its id" }) });

export const PreferenceCategory = t.Object({
  id: t.String(),
  key: t.String(),
  name: t.String(),
  description: t.Nullable(t.String()),
  default_enabled_channels: t.Array(t.String()),
  required: t.Boolean(),
  created_at: t.String(),
  updated_at: t.String(),
});

const EXAMPLE = {
  id: "0198c3c1-aaaa-7bbb-8ccc-ddddeeeeffff",
  key: "marketing",
  name: "News and offers",
  description: null,
  default_enabled_channels: ["email", "in_app"],
  required: false,
  created_at: "2025-08-01T12:00:00.000Z",
  updated_at: "2025-08-01T12:00:00.000Z",
};

export const PreferenceCategoryResponse = t.Object({ data: PreferenceCategory }, { examples: [{ data: EXAMPLE }] });
export const PreferenceCategoryListResponse = t.Object({ data: t.Array(PreferenceCategory) }, { examples: [{ data: [EXAMPLE] }] });
