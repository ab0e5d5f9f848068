// nms.templates: CRUD by id or slug, cursor-paged list, preview and validate (stored or inline)
// (SPEC "Templates"); TemplateStatus names the published status values.
import { cursorList, type Page } from "../pagination.js";
import { path, type RequestOptions, type Transport } from "../transport.js";
import { TemplateTranslations } from "./template-translations.js";
import type {
  CursorMeta,
  Template,
  TemplateCreateParams,
  TemplateListParams,
  TemplatePreview,
  TemplatePreviewInlineParams,
  TemplatePreviewParams,
  TemplateStatusValue,
  TemplateUpdateParams,
  TemplateValidateInlineParams,
  TemplateValidation,
} from "../types.js";

/** `active` templates may be sent in production; `draft` only in sandbox. */
export const TemplateStatus = { Draft: "draft", Active: "active" } as const satisfies Record<string, TemplateStatusValue>;

export class Templates {
  readonly translations: TemplateTranslations;

  constructor(private readonly transport: Transport) {
    this.translations = new TemplateTranslations(transport);
  }

  create(params: TemplateCreateParams, opts?: RequestOptions): Promise<Template> {
    return this.transport.data({ method: "POST", path: "/v1/templates", body: params, idempotent: true }, opts);
  }

  list(params: TemplateListParams = {}, opts?: RequestOptions) {
    return cursorList(
      (query) => this.transport.request<Page<Template, CursorMeta>>({ method: "GET", path: "/v1/templates", query }, opts),
      params,
    );
  }

  /** By id or slug. */
  retrieve(idOrSlug: string, opts?: RequestOptions): Promise<Template> {
    return this.transport.data({ method: "GET", path: path`/v1/templates/${idOrSlug}` }, opts);
  }

  /** Partial update: fields left out keep their value. */
  update(idOrSlug: string, params: TemplateUpdateParams, opts?: RequestOptions): Promise<Template> {
    return this.transport.data({ method: "PUT", path: path`/v1/templates/${idOrSlug}`, body: params }, opts);
  }

  del(idOrSlug: string, opts?: RequestOptions): Promise<void> {
    return this.transport.request({ method: "DELETE", path: path`/v1/templates/${idOrSlug}` }, opts);
  }

  /** Renders a stored template with `variables`. */
  preview(idOrSlug: string, params: TemplatePreviewParams = {}, opts?: RequestOptions): Promise<TemplatePreview> {
    return this.transport.data({ method: "POST", path: path`/v1/templates/${idOrSlug}/preview`, body: params, safe: true }, opts);
  }

  /** Renders content that is not stored. */
  previewInline(params: TemplatePreviewInlineParams, opts?: RequestOptions): Promise<TemplatePreview> {
    return this.transport.data({ method: "POST", path: "/v1/templates/preview", body: params, safe: true }, opts);
  }

  validate(idOrSlug: string, opts?: RequestOptions): Promise<TemplateValidation> {
    return this.transport.data({ method: "POST", path: path`/v1/templates/${idOrSlug}/validate`, safe: true }, opts);
  }

  validateInline(params: TemplateValidateInlineParams, opts?: RequestOptions): Promise<TemplateValidation> {
    return this.transport.data({ method: "POST", path: "/v1/templates/validate", body: params, safe: true }, opts);
  }
}
