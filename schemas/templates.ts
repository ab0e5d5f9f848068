// TypeBox schemas of the templates API (SPEC "Template", Endpoints "Templates"). Enumerations
// and the slug rule are checked by http/routes/templates.ts too, for field-named 422 messages.
import { t } from "elysia";
import { CHANNELS, CHANNELS_TEXT } from "./channels";

export const TEMPLATE_STATUS_VALUES = ["draft", "active"] as const;

export const SLUG_RE = /^[a-z0-9_-]{1,100}$/;
export const SLUG_MESSAGE = "must be 1-100 characters: lowercase letters, digits, hyphens or underscores";
// pt_BR, en, en-US, zh_Hant_TW
export const LANGUAGE_RE = /^[a-z]{2,3}(?:[_-][A-Za-z0-9]{2,8}){0,3}$/;

export const MAX_CONTENT = 100_000;

const Channel = t.String({ enum: [...CHANNELS], description: CHANNELS_TEXT });
const Status = t.String({ enum: [...TEMPLATE_STATUS_VALUES], description: "draft (default) or active" });
const Variables = t.Array(t.String({ minLength: 1, maxLength: 200 }), { maxItems: 500 });
const Variants = t.Record(t.String(), t.String({ maxLength: MAX_CONTENT }), {
  description: "Per-channel parts such as subject, html_body (email) or title (push, in_app)",
});
const Metadata = t.Record(t.String(), t.Unknown());

const fields = {
  slug: t.String({ description: "1-100 characters: lowercase letters, digits, hyphens, underscores" }),
  name: t.String({ maxLength: 255 }),
  channel: Channel,
  content: t.String({ maxLength: MAX_CONTENT, description: "Liquid text with {{variable}} placeholders" }),
  variables: Variables,
  variants: Variants,
  language: t.String({ description: "Default pt_BR" }),
  status: Status,
  metadata: Metadata,
  provider_template_id: t.Nullable(t.String({ maxLength: 255 })),
};

const CREATE_EXAMPLE = {
  slug: "welcome",
  name: "Welcome email",
  channel: "email",
  content: "Hi {{name}}, welcome to {{company}}!",
  variants: { subject: "Welcome, {{name}}", html_body: "<p>Hi {{name}}, welcome to {{company}}!</p>" },
  language: "en",
  status: "active",
};

export const TemplateCreateBody = t.Object(
  {
    slug: fields.slug,
    name: fields.name,
    channel: fields.channel,
    content: fields.content,
    variables: t.Optional(fields.variables),
    variants: t.Optional(fields.variants),
    language: t.Optional(fields.language),
    status: t.Optional(fields.status),
    metadata: t.Optional(fields.metadata),
    provider_template_id: t.Optional(fields.provider_template_id),
  },
  { additionalProperties: false, examples: [CREATE_EXAMPLE] },
);

/** PUT is a partial update: every field optional, absent fields keep their value. */
export const TemplateUpdateBody = t.Partial(TemplateCreateBody, {
  additionalProperties: false,
  examples: [{ content: "Hello {{name}}, welcome aboard!", status: "active" }],
});

export const TemplateListQuery = t.Object({
  channel: t.Optional(t.String()),
  status: t.Optional(t.String()),
  limit: t.Optional(t.String()),
  cursor: t.Optional(t.String()),
});

export const TemplateParams = t.Object({ id: t.String({ description: "Template id or slug" }) });

const LocaleField = t.String({
  maxLength: 35,
  description: "Render or check the text a recipient of this locale gets (its translation, or the fallback: pt_BR -> pt -> the template's language)",
});

const InlineLocaleField = t.String({
  maxLength: 35,
  description: "The locale this text is for: checked like a translation's (422 otherwise) and answered in its stored spelling (pt-BR -> pt_BR)",
});

export const PreviewByIdBody = t.Object(
  { variables: t.Optional(Metadata), locale: t.Optional(LocaleField) },
  { additionalProperties: false, examples: [{ variables: { name: "Ana", company: "Acme" } }, { variables: { name: "Ana" }, locale: "en" }] },
);

export const ValidateByIdBody = t.Object({ locale: t.Optional(LocaleField) }, { examples: [{ locale: "pt_BR" }] });

export const PreviewInlineBody = t.Object(
  {
    content: fields.content,
    channel: fields.channel,
    variables: t.Optional(Metadata),
    variants: t.Optional(fields.variants),
    locale: t.Optional(InlineLocaleField),
  },
  { additionalProperties: false, examples: [{ content: CREATE_EXAMPLE.content, channel: "email", variables: { name: "Ana", company: "Acme" }, variants: { subject: "Welcome, {{name}}" } }] },
);

export const ValidateInlineBody = t.Object(
  {
    content: fields.content,
    channel: fields.channel,
    variants: t.Optional(fields.variants),
    variables: t.Optional(t.Array(t.String(), { description: "Declared variables; used ones missing here are warned about" })),
    locale: t.Optional(InlineLocaleField),
  },
  { additionalProperties: false, examples: [{ content: "Hi {{name}}, your code is {{code}}", channel: "sms", variables: ["name"] }] },
);

export const Template = t.Object({
  id: t.String(),
  slug: t.String(),
  name: t.String(),
  channel: t.String(),
  content: t.String(),
  variables: t.Array(t.String()),
  variants: t.Record(t.String(), t.String()),
  language: t.String(),
  status: t.String(),
  metadata: t.Record(t.String(), t.Unknown()),
  provider_template_id: t.Nullable(t.String()),
  created_at: t.String(),
  updated_at: t.String(),
});

const UsedLocale = t.String({ description: "The locale of the text checked or rendered: a stored template's translation or language; inline, the request's locale" });

export const ValidationResult = t.Object({
  valid: t.Boolean(),
  errors: t.Array(t.String()),
  warnings: t.Array(t.String()),
  variables: t.Array(t.String()),
  locale: t.Optional(UsedLocale),
});

export const PreviewResult = t.Object({
  rendered: t.Record(t.String(), t.String(), { description: "body, and subject/html_body/... for each variant" }),
  variables: t.Array(t.String()),
  validation: t.Object({ valid: t.Boolean(), errors: t.Array(t.String()), warnings: t.Array(t.String()) }),
  locale: t.Optional(UsedLocale),
});

// ---------------------------------------------------------------------------------------------
// Translations (docs/localization.md): one text per locale of a template.

export const TranslationParams = t.Object({
  id: t.String({ description: "Template id or slug" }),
  locale: t.String({ description: "pt_BR, pt, en, en-US... (pt-BR and pt_BR are the same locale; stored as pt_BR)" }),
});

export const TranslationBody = t.Object(
  {
    content: t.String({ maxLength: MAX_CONTENT, description: "Liquid text in this locale" }),
    variants: t.Optional(
      t.Record(t.String(), t.String({ maxLength: MAX_CONTENT }), {
        description: "This locale's subject, html_body, title...; a variant left out is the base template's",
      }),
    ),
  },
  { examples: [{ content: "Hi {{name}}, your code is {{code}}", variants: { subject: "Your code" } }] },
);

export const Translation = t.Object({
  template_id: t.String(),
  locale: t.String({ description: "Stored spelling: language lower case, region upper case, joined by _ (en_US)" }),
  content: t.String(),
  variants: t.Record(t.String(), t.String()),
  variables: t.Array(t.String({ description: "Variables this translation uses" })),
  warnings: t.Array(t.String({ description: "e.g. a variable the base template does not use" })),
  created_at: t.String(),
  updated_at: t.String(),
});

const TRANSLATION_EXAMPLE = {
  template_id: "0198c3c1-aaaa-7bbb-8ccc-ddddeeeeffff",
  locale: "en",
  content: "Hi {{name}}, your code is {{code}}",
  variants: { subject: "Your code" },
  variables: ["name", "code"],
  warnings: [],
  created_at: "2025-08-01T12:00:00.000Z",
  updated_at: "2025-08-01T12:00:00.000Z",
};

export const TranslationResponse = t.Object({ data: Translation }, { examples: [{ data: TRANSLATION_EXAMPLE }] });
export const TranslationListResponse = t.Object({ data: t.Array(Translation) }, { examples: [{ data: [TRANSLATION_EXAMPLE] }] });

const TEMPLATE_EXAMPLE = {
  id: "0198c3c1-aaaa-7bbb-8ccc-ddddeeeeffff",
  ...CREATE_EXAMPLE,
  variables: ["name", "company"],
  metadata: {},
  provider_template_id: null,
  created_at: "2025-08-01T12:00:00.000Z",
  updated_at: "2025-08-01T12:00:00.000Z",
};

export const TemplateResponse = t.Object({ data: Template }, { examples: [{ data: TEMPLATE_EXAMPLE }] });
export const TemplateListResponse = t.Object(
  {
    data: t.Array(Template),
    meta: t.Object({ cursor: t.Nullable(t.String()), has_more: t.Boolean() }),
  },
  { examples: [{ data: [TEMPLATE_EXAMPLE], meta: { cursor: null, has_more: false } }] },
);
export const ValidationResponse = t.Object(
  { data: ValidationResult },
  { examples: [{ data: { valid: true, errors: [], warnings: ["Variable used but not declared: code"], variables: ["name", "code"] } }] },
);
export const PreviewResponse = t.Object(
  { data: PreviewResult },
  {
    examples: [
      {
        data: {
          rendered: { body: "Hi Ana, welcome to Acme!", subject: "Welcome, Ana" },
          variables: ["name", "company"],
          validation: { valid: true, errors: [], warnings: [] },
        },
      },
    ],
  },
);
