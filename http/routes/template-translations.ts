// /v1/templates/:id/translations (issue 28, docs/localization.md): put, get, list and delete the
// text of one locale of a template. Which locale a send renders is domain/templates/locale.ts.
import { Elysia } from "elysia";
import { LOCALE_MESSAGE, normalizeLocale } from "../../domain/templates/locale";
import { extractVariables, validateTemplate } from "../../domain/templates/render";
import { translationWarnings } from "../../domain/templates/translations";
import { TemplateParams, TranslationBody, TranslationListResponse, TranslationParams, TranslationResponse } from "../../schemas/templates";
import { writeAudit } from "../../store/audit";
import { sql, type Tx } from "../../store/db";
import { findTemplate, type TemplateRow } from "../../store/templates";
import {
  deleteTranslation,
  findTranslation,
  listTranslations,
  upsertTranslation,
  type TranslationRow,
} from "../../store/template-translations";
import { iso } from "../../store/time";
import { fieldErrors, notFound, validationFailed, type ErrorDetails } from "../../basics/errors";
import { accessPlugin } from "../plugins/access";
import { scopeOf, type AuthContext } from "../plugins/auth";
import { BODY_ERRORS, errors, KEY_ERRORS, NoContent } from "../route-docs";

const VARIANT_KEY_RE = /^[a-z][a-z0-9_]{0,49}$/;

function serializeTranslation(t: TemplateRow, r: TranslationRow) {
  const variants = r.variants ?? {};
  return {
    template_id: r.template_id,
    locale: r.locale,
    content: r.content,
    variants,
    variables: extractVariables(r.content, variants),
    warnings: translationWarnings(t, r.locale, { content: r.content, variants }),
    created_at: iso(r.created_at)!,
    updated_at: iso(r.updated_at)!,
  };
}

function localeOr422(raw: string): string {
  const locale = normalizeLocale(decodeURIComponent(raw));
  if (!locale) throw validationFailed({ locale: [LOCALE_MESSAGE] });
  return locale;
}

const translationNotFound = () => notFound("translation_not_found", "This template has no translation for this locale");

async function templateOr404(auth: AuthContext, idOrSlug: string, forUpdate = false, tx: Tx = sql): Promise<TemplateRow> {
  const row = await findTemplate(tx, scopeOf(auth), idOrSlug, forUpdate);
  if (!row) throw notFound("template_not_found", "Template not found");
  return row;
}

function auditOf(auth: AuthContext, action: string, t: TemplateRow, locale: string) {
  return {
    tenantId: auth.tenantId,
    actorType: auth.actorType,
    actorId: auth.actorId,
    action,
    resourceType: "template",
    resourceId: t.id,
    metadata: { environment: auth.environment, slug: t.slug, locale },
    ip: auth.ip,
    userAgent: auth.userAgent,
  };
}

export const templateTranslationRoutes = new Elysia({ name: "routes.template-translations" })
  .use(accessPlugin)
  .put(
    "/v1/templates/:id/translations/:locale",
    async ({ auth, params, body, set }) => {
      const details: ErrorDetails = fieldErrors();
      const locale = normalizeLocale(decodeURIComponent(params.locale));
      if (!locale) (details.locale ??= []).push(LOCALE_MESSAGE);
      if (body.content.trim() === "") (details.content ??= []).push("must not be blank");
      const variants = body.variants ?? {};
      for (const k of Object.keys(variants)) {
        if (!VARIANT_KEY_RE.test(k)) (details[`variants.${k}`] ??= []).push("variant names are lowercase letters, digits and underscores");
      }
      if (Object.keys(details).length) throw validationFailed(details);
      const { row, created, template } = await sql.begin(async (tx) => {
        const template = await templateOr404(auth, params.id, true, tx);
        // an active template must parse in every locale it can be sent in (drafts may be work in progress)
        if (template.status === "active") {
          const errs: ErrorDetails = fieldErrors();
          for (const e of validateTemplate({ content: body.content, variants, channel: template.channel }).errors) {
            const at = e.indexOf(": ");
            const part = e.slice(0, at);
            (errs[part === "content" ? "content" : `variants.${part}`] ??= []).push(e.slice(at + 2));
          }
          if (Object.keys(errs).length) throw validationFailed(errs);
        }
        const out = await upsertTranslation(tx, scopeOf(auth), template.id, locale!, { content: body.content, variants });
        await writeAudit(tx, auditOf(auth, "template.translation_updated", template, locale!));
        return { ...out, template };
      });
      set.status = created ? 201 : 200;
      return { data: serializeTranslation(template, row) };
    },
    {
      access: "secret-write",
      params: TranslationParams,
      body: TranslationBody,
      response: { 200: TranslationResponse, 201: TranslationResponse, ...errors(KEY_ERRORS, BODY_ERRORS, 404) },
      detail: {
        summary: "Create or replace a template's translation (201 new, 200 replaced)",
        description:
          "The locale is pt_BR, pt, en, en-US and the like (pt-BR and pt_BR are one locale, stored as pt_BR). " +
          "An active template's translation must parse. `warnings` names variables the base template does not use.",
        tags: ["templates"],
      },
    },
  )
  .get(
    "/v1/templates/:id/translations",
    async ({ auth, params }) => {
      const template = await templateOr404(auth, params.id);
      const rows = await listTranslations(sql, scopeOf(auth), template.id);
      return { data: rows.map((r) => serializeTranslation(template, r)) };
    },
    {
      access: "secret-read",
      params: TemplateParams,
      response: { 200: TranslationListResponse, ...errors(KEY_ERRORS, 404) },
      detail: { summary: "List a template's translations, by locale", description: "Every translation of the template, with its content and variants.", tags: ["templates"] },
    },
  )
  .get(
    "/v1/templates/:id/translations/:locale",
    async ({ auth, params }) => {
      const locale = localeOr422(params.locale);
      const template = await templateOr404(auth, params.id);
      const row = await findTranslation(sql, scopeOf(auth), template.id, locale);
      if (!row) throw translationNotFound();
      return { data: serializeTranslation(template, row) };
    },
    {
      access: "secret-read",
      params: TranslationParams,
      response: { 200: TranslationResponse, ...errors(KEY_ERRORS, 404, 422) },
      detail: { summary: "Get a template's translation for one locale", description: "The path takes the template's id or slug and a locale such as pt-BR.", tags: ["templates"] },
    },
  )
  .delete(
    "/v1/templates/:id/translations/:locale",
    async ({ auth, params, set }) => {
      const locale = localeOr422(params.locale);
      await sql.begin(async (tx) => {
        const template = await templateOr404(auth, params.id, true, tx);
        if (!(await deleteTranslation(tx, scopeOf(auth), template.id, locale))) throw translationNotFound();
        await writeAudit(tx, auditOf(auth, "template.translation_deleted", template, locale));
      });
      set.status = 204;
    },
    {
      access: "secret-write",
      params: TranslationParams,
      response: { 204: NoContent, ...errors(KEY_ERRORS, 404, 422) },
      detail: { summary: "Delete a template's translation (its recipients get the fallback)", description: "Recipients of that locale then get the fallback: pt_BR falls back to pt, then to the template's own language.", tags: ["templates"] },
    },
  );
