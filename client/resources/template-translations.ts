// nms.templates.translations: one text per locale of a template (docs/localization.md): put,
// retrieve, list, del; `pt-BR` and `pt_BR` name the same locale.
import { path, type RequestOptions, type Transport } from "../transport.js";
import type { TemplateTranslation, TemplateTranslationParams } from "../types.js";

export class TemplateTranslations {
  constructor(private readonly transport: Transport) {}

  /** Creates or replaces the locale's text (PUT: safe to repeat). */
  upsert(idOrSlug: string, locale: string, params: TemplateTranslationParams, opts?: RequestOptions): Promise<TemplateTranslation> {
    return this.transport.data({ method: "PUT", path: path`/v1/templates/${idOrSlug}/translations/${locale}`, body: params }, opts);
  }

  retrieve(idOrSlug: string, locale: string, opts?: RequestOptions): Promise<TemplateTranslation> {
    return this.transport.data({ method: "GET", path: path`/v1/templates/${idOrSlug}/translations/${locale}` }, opts);
  }

  list(idOrSlug: string, opts?: RequestOptions): Promise<TemplateTranslation[]> {
    return this.transport.data({ method: "GET", path: path`/v1/templates/${idOrSlug}/translations` }, opts);
  }

  del(idOrSlug: string, locale: string, opts?: RequestOptions): Promise<void> {
    return this.transport.request({ method: "DELETE", path: path`/v1/templates/${idOrSlug}/translations/${locale}` }, opts);
  }
}
