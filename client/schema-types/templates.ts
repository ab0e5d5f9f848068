// Generated from schemas/templates.ts by scripts/generate-client-types.ts: do not edit. The types
// Static<typeof Schema> gives for each TypeBox schema the server validates with, so @nms/client needs neither.

export type PreviewByIdBody = {
  variables?: { [key: string]: unknown };
  /** Render or check the text a recipient of this locale gets (its translation, or the fallback: pt_BR -> pt -> the template's language) */
  locale?: string;
};

export type PreviewInlineBody = {
  /** Liquid text with {{variable}} placeholders */
  content: string;
  /** email, whatsapp, sms, in_app or push */
  channel: string;
  variables?: { [key: string]: unknown };
  /** Per-channel parts such as subject, html_body (email) or title (push, in_app) */
  variants?: { [key: string]: string };
  /** The locale this text is for: checked like a translation's (422 otherwise) and answered in its stored spelling (pt-BR -> pt_BR) */
  locale?: string;
};

export type PreviewResponse = {
  data: {
    /** body, and subject/html_body/... for each variant */
    rendered: { [key: string]: string };
    variables: string[];
    validation: {
      valid: boolean;
      errors: string[];
      warnings: string[];
    };
    /** The locale of the text checked or rendered: a stored template's translation or language; inline, the request's locale */
    locale?: string;
  };
};

export type PreviewResult = {
  /** body, and subject/html_body/... for each variant */
  rendered: { [key: string]: string };
  variables: string[];
  validation: {
    valid: boolean;
    errors: string[];
    warnings: string[];
  };
  /** The locale of the text checked or rendered: a stored template's translation or language; inline, the request's locale */
  locale?: string;
};

export type Template = {
  id: string;
  slug: string;
  name: string;
  channel: string;
  content: string;
  variables: string[];
  variants: { [key: string]: string };
  language: string;
  status: string;
  metadata: { [key: string]: unknown };
  provider_template_id: string | null;
  created_at: string;
  updated_at: string;
};

export const TEMPLATE_STATUS_VALUES = ["draft","active"] as const;

export type TemplateCreateBody = {
  /** 1-100 characters: lowercase letters, digits, hyphens, underscores */
  slug: string;
  name: string;
  /** email, whatsapp, sms, in_app or push */
  channel: string;
  /** Liquid text with {{variable}} placeholders */
  content: string;
  variables?: string[];
  /** Per-channel parts such as subject, html_body (email) or title (push, in_app) */
  variants?: { [key: string]: string };
  /** Default pt_BR */
  language?: string;
  /** draft (default) or active */
  status?: string;
  metadata?: { [key: string]: unknown };
  provider_template_id?: string | null;
};

export type TemplateListQuery = {
  channel?: string;
  status?: string;
  limit?: string;
  cursor?: string;
};

export type TemplateListResponse = {
  data: {
    id: string;
    slug: string;
    name: string;
    channel: string;
    content: string;
    variables: string[];
    variants: { [key: string]: string };
    language: string;
    status: string;
    metadata: { [key: string]: unknown };
    provider_template_id: string | null;
    created_at: string;
    updated_at: string;
  }[];
  meta: {
    cursor: string | null;
    has_more: boolean;
  };
};

export type TemplateParams = {
  /** Template id or slug */
  id: string;
};

export type TemplateResponse = {
  data: {
    id: string;
    slug: string;
    name: string;
    channel: string;
    content: string;
    variables: string[];
    variants: { [key: string]: string };
    language: string;
    status: string;
    metadata: { [key: string]: unknown };
    provider_template_id: string | null;
    created_at: string;
    updated_at: string;
  };
};

export type TemplateUpdateBody = {
  /** 1-100 characters: lowercase letters, digits, hyphens, underscores */
  slug?: string;
  name?: string;
  /** email, whatsapp, sms, in_app or push */
  channel?: string;
  /** Liquid text with {{variable}} placeholders */
  content?: string;
  variables?: string[];
  /** Per-channel parts such as subject, html_body (email) or title (push, in_app) */
  variants?: { [key: string]: string };
  /** Default pt_BR */
  language?: string;
  /** draft (default) or active */
  status?: string;
  metadata?: { [key: string]: unknown };
  provider_template_id?: string | null;
};

export type Translation = {
  template_id: string;
  /** Stored spelling: language lower case, region upper case, joined by _ (en_US) */
  locale: string;
  content: string;
  variants: { [key: string]: string };
  variables: string[];
  warnings: string[];
  created_at: string;
  updated_at: string;
};

export type TranslationBody = {
  /** Liquid text in this locale */
  content: string;
  /** This locale's subject, html_body, title...; a variant left out is the base template's */
  variants?: { [key: string]: string };
};

export type TranslationListResponse = {
  data: {
    template_id: string;
    /** Stored spelling: language lower case, region upper case, joined by _ (en_US) */
    locale: string;
    content: string;
    variants: { [key: string]: string };
    variables: string[];
    warnings: string[];
    created_at: string;
    updated_at: string;
  }[];
};

export type TranslationParams = {
  /** Template id or slug */
  id: string;
  /** pt_BR, pt, en, en-US... (pt-BR and pt_BR are the same locale; stored as pt_BR) */
  locale: string;
};

export type TranslationResponse = {
  data: {
    template_id: string;
    /** Stored spelling: language lower case, region upper case, joined by _ (en_US) */
    locale: string;
    content: string;
    variants: { [key: string]: string };
    variables: string[];
    warnings: string[];
    created_at: string;
    updated_at: string;
  };
};

export type ValidateByIdBody = {
  /** Render or check the text a recipient of this locale gets (its translation, or the fallback: pt_BR -> pt -> the template's language) */
  locale?: string;
};

export type ValidateInlineBody = {
  /** Liquid text with {{variable}} placeholders */
  content: string;
  /** email, whatsapp, sms, in_app or push */
  channel: string;
  /** Per-channel parts such as subject, html_body (email) or title (push, in_app) */
  variants?: { [key: string]: string };
  /** Declared variables; used ones missing here are warned about */
  variables?: string[];
  /** The locale this text is for: checked like a translation's (422 otherwise) and answered in its stored spelling (pt-BR -> pt_BR) */
  locale?: string;
};

export type ValidationResponse = {
  data: {
    valid: boolean;
    errors: string[];
    warnings: string[];
    variables: string[];
    /** The locale of the text checked or rendered: a stored template's translation or language; inline, the request's locale */
    locale?: string;
  };
};

export type ValidationResult = {
  valid: boolean;
  errors: string[];
  warnings: string[];
  variables: string[];
  /** The locale of the text checked or rendered: a stored template's translation or language; inline, the request's locale */
  locale?: string;
};
