// /v1/templates: CRUD, preview and validate (SPEC Endpoints "Templates"; status rules DESIGN.md 6).
// Drafts may hold Liquid syntax errors while being edited; an `active` template must parse.
import { Elysia, t } from "elysia";
import { extractVariables, renderTemplate, validateTemplate, type TemplateVariants } from "../../domain/templates/render";
import {
  LANGUAGE_RE,
  PreviewByIdBody,
  PreviewInlineBody,
  PreviewResponse,
  SLUG_MESSAGE,
  SLUG_RE,
  TEMPLATE_STATUS_VALUES,
  TemplateCreateBody,
  TemplateListQuery,
  TemplateListResponse,
  TemplateParams,
  TemplateResponse,
  TemplateUpdateBody,
  ValidateByIdBody,
  ValidateInlineBody,
  ValidationResponse,
} from "../../schemas/templates";
import { CHANNELS } from "../../schemas/channels";
import { chooseLocale, LOCALE_MESSAGE, normalizeLocale } from "../../domain/templates/locale";
import { validateStored } from "../../domain/templates/translations";
import { translationsOf } from "../../store/template-translations";
import { previewPreferencesUrl } from "../../domain/preferences/link-token";
import { writeAudit } from "../../store/audit";
import { sql } from "../../store/db";
import {
  DEFAULT_LANGUAGE,
  findTemplate,
  insertTemplate,
  listTemplates,
  SlugTakenError,
  softDeleteTemplate,
  updateTemplate,
  type TemplateFields,
  type TemplateRow,
  type TemplateStatus,
} from "../../store/templates";
import { serializeTemplate } from "../responses/templates";
import { fieldErrors, AppError, notFound, validationFailed, type ErrorDetails } from "../../basics/errors";
import { parseLimit } from "../pagination";
import { accessPlugin } from "../plugins/access";
import { scopeOf, type AuthContext } from "../plugins/auth";
import { BODY_ERRORS, errors, KEY_ERRORS, NoContent } from "../route-docs";

const VARIANT_KEY_RE = /^[a-z][a-z0-9_]{0,49}$/;
const LIST_LIMIT_DEFAULT = 100;
const LIST_LIMIT_MAX = 100;

function add(details: ErrorDetails, field: string, message: string) {
  (details[field] ??= []).push(message);
}

function checkEnum(details: ErrorDetails, field: string, value: unknown, allowed: readonly string[]) {
  if (value !== undefined && !allowed.includes(value as string)) add(details, field, `must be one of ${allowed.join(", ")}`);
}

/** Field-named messages for what the schema leaves to us (enums, slug, blank strings, variant names). */
interface CheckedFields {
  channel?: string;
  status?: string;
  slug?: string;
  name?: string;
  content?: string;
  language?: string;
  variants?: object;
}

function checkFields(details: ErrorDetails, b: CheckedFields) {
  checkEnum(details, "channel", b.channel, CHANNELS);
  checkEnum(details, "status", b.status, TEMPLATE_STATUS_VALUES);
  if (b.slug !== undefined && !SLUG_RE.test(b.slug)) add(details, "slug", SLUG_MESSAGE);
  if (b.name !== undefined && b.name.trim() === "") add(details, "name", "must not be blank");
  if (b.content !== undefined && b.content.trim() === "") add(details, "content", "must not be blank");
  if (b.language !== undefined && !LANGUAGE_RE.test(b.language)) add(details, "language", "must be a locale such as pt_BR or en-US");
  for (const k of Object.keys(b.variants ?? {})) {
    if (!VARIANT_KEY_RE.test(k)) add(details, `variants.${k}`, "variant names are lowercase letters, digits and underscores");
  }
}

/** "content: msg" / "subject: msg" from the renderer -> details keyed content / variants.subject */
function syntaxDetails(details: ErrorDetails, errors: string[]) {
  for (const e of errors) {
    const at = e.indexOf(": ");
    const part = e.slice(0, at);
    add(details, part === "content" ? "content" : `variants.${part}`, e.slice(at + 2));
  }
}

function auditOf(auth: AuthContext, action: string, row: TemplateRow) {
  return {
    tenantId: auth.tenantId,
    actorType: auth.actorType,
    actorId: auth.actorId,
    action,
    resourceType: "template",
    resourceId: row.id,
    metadata: { environment: auth.environment, slug: row.slug, channel: row.channel, status: row.status },
    ip: auth.ip,
    userAgent: auth.userAgent,
  };
}

// 409 like every other uniqueness conflict (DESIGN.md 4 `conflict`), with the field named
const slugTaken = () => new AppError("conflict", "A template with this slug already exists", { slug: ["is already taken"] });

/** an optional `locale` of a body in its stored spelling, or 422 */
function localeOf(raw: string | undefined): string | null {
  if (raw === undefined) return null;
  const locale = normalizeLocale(raw);
  if (!locale) throw validationFailed({ locale: [LOCALE_MESSAGE] });
  return locale;
}

async function loadOr404(auth: AuthContext, idOrSlug: string): Promise<TemplateRow> {
  const row = await findTemplate(sql, scopeOf(auth), idOrSlug);
  if (!row) throw notFound("template_not_found", "Template not found");
  return row;
}

function previewOf(
  t: { content: string; channel: string; variants?: TemplateVariants | null; declared?: string[] },
  variables: Record<string, unknown>,
) {
  // a send fills {{ preferences_url }} with the subscriber's signed link: the preview shows one of its shape
  const uses = [t.content, ...Object.values(t.variants ?? {})].some((v) => typeof v === "string" && v.includes("preferences_url"));
  const scope = uses && variables.preferences_url === undefined ? { ...variables, preferences_url: previewPreferencesUrl() } : variables;
  const render = renderTemplate({ content: t.content, channel: t.channel, variants: t.variants }, scope);
  const check = validateTemplate({ content: t.content, channel: t.channel, variants: t.variants, variables: t.declared });
  const errors = [...new Set([...check.errors, ...render.errors])];
  return {
    data: {
      rendered: render.rendered as Record<string, string>,
      variables: check.variables,
      validation: { valid: errors.length === 0, errors, warnings: [...check.warnings, ...render.warnings] },
    },
  };
}

export const templateRoutes = new Elysia({ name: "routes.templates" })
  .use(accessPlugin)
  // static paths first: /v1/templates/preview and /validate are not template ids
  .post(
    "/v1/templates/preview",
    ({ auth, body }) => {
      const details = fieldErrors();
      checkFields(details, { channel: body.channel, variants: body.variants });
      if (Object.keys(details).length) throw validationFailed(details);
      const locale = localeOf(body.locale);
      const out = previewOf(body, body.variables ?? {});
      return locale ? { data: { ...out.data, locale } } : out;
    },
    {
      access: "secret-write",
      body: PreviewInlineBody,
      response: { 200: PreviewResponse, ...errors(KEY_ERRORS, BODY_ERRORS) },
      detail: { summary: "Preview a template given inline", description: "Renders content and variants with the given variables without storing anything, and answers the validation report beside the render.", tags: ["templates"] },
    },
  )
  .post(
    "/v1/templates/validate",
    ({ auth, body }) => {
      const details = fieldErrors();
      checkFields(details, { channel: body.channel, variants: body.variants });
      if (Object.keys(details).length) throw validationFailed(details);
      const locale = localeOf(body.locale);
      const report = validateTemplate(body);
      return { data: locale ? { ...report, locale } : report };
    },
    {
      access: "secret-write",
      body: ValidateInlineBody,
      response: { 200: ValidationResponse, ...errors(KEY_ERRORS, BODY_ERRORS) },
      detail: { summary: "Validate a template given inline", description: "Checks Liquid syntax and the channel's required variants without storing anything: errors block activation, warnings do not.", tags: ["templates"] },
    },
  )
  .post(
    "/v1/templates",
    async ({ auth, body, set }) => {
      const details = fieldErrors();
      checkFields(details, body);
      const variants = body.variants ?? {};
      const status = (body.status ?? "draft") as TemplateStatus;
      if (status === "active" && !details.content && !details.channel) {
        syntaxDetails(details, validateTemplate({ content: body.content, channel: body.channel, variants }).errors);
      }
      if (Object.keys(details).length) throw validationFailed(details);
      const fields: TemplateFields = {
        slug: body.slug,
        name: body.name.trim(),
        channel: body.channel,
        content: body.content,
        variables: body.variables ?? extractVariables(body.content, variants),
        variants,
        language: body.language ?? DEFAULT_LANGUAGE,
        status,
        metadata: body.metadata ?? {},
        provider_template_id: body.provider_template_id ?? null,
      };
      try {
        const row = await sql.begin(async (tx) => {
          const row = await insertTemplate(tx, scopeOf(auth), fields);
          await writeAudit(tx, auditOf(auth, "template.created", row));
          return row;
        });
        set.status = 201;
        return { data: serializeTemplate(row) };
      } catch (err) {
        if (err instanceof SlugTakenError) throw slugTaken();
        throw err;
      }
    },
    {
      access: "secret-write",
      body: TemplateCreateBody,
      response: { 201: TemplateResponse, ...errors(KEY_ERRORS, BODY_ERRORS, 409) },
      detail: { summary: "Create a template", description: "A draft unless status is active; an active template is validated first (422 on syntax errors). The slug is unique among the environment's templates.", tags: ["templates"] },
    },
  )
  .get(
    "/v1/templates",
    async ({ auth, query }) => {
      const details = fieldErrors();
      checkEnum(details, "channel", query.channel, CHANNELS);
      checkEnum(details, "status", query.status, TEMPLATE_STATUS_VALUES);
      if (Object.keys(details).length) throw validationFailed(details);
      const limit = parseLimit(query.limit, LIST_LIMIT_DEFAULT, LIST_LIMIT_MAX);
      const { page, meta } = await listTemplates(scopeOf(auth), {
        channel: query.channel,
        status: query.status,
        limit,
        cursor: query.cursor,
      });
      return { data: page.map(serializeTemplate), meta };
    },
    {
      access: "secret-read",
      query: TemplateListQuery,
      response: { 200: TemplateListResponse, ...errors(KEY_ERRORS, 422) },
      detail: { summary: "List templates (filters: channel, status)", description: "Cursor paged, newest first.", tags: ["templates"] },
    },
  )
  .get(
    "/v1/templates/:id",
    async ({ auth, params }) => {
      return { data: serializeTemplate(await loadOr404(auth, params.id)) };
    },
    {
      access: "secret-read",
      params: TemplateParams,
      response: { 200: TemplateResponse, ...errors(KEY_ERRORS, 404) },
      detail: { summary: "Get a template by id or slug", description: "The path takes the template's UUID or its slug.", tags: ["templates"] },
    },
  )
  .put(
    "/v1/templates/:id",
    async ({ auth, params, body }) => {
      const details = fieldErrors();
      checkFields(details, body);
      if (Object.keys(details).length) throw validationFailed(details);
      try {
        const row = await sql.begin(async (tx) => {
          const cur = await findTemplate(tx, scopeOf(auth), params.id, true);
          if (!cur) throw notFound("template_not_found", "Template not found");
          const content = body.content ?? cur.content;
          const variants = body.variants ?? cur.variants ?? {};
          const sourceChanged = body.content !== undefined || body.variants !== undefined;
          const next: TemplateFields = {
            slug: body.slug ?? cur.slug,
            name: body.name !== undefined ? body.name.trim() : cur.name,
            channel: body.channel ?? cur.channel,
            content,
            variables: body.variables ?? (sourceChanged ? extractVariables(content, variants) : cur.variables),
            variants,
            language: body.language ?? cur.language,
            status: (body.status ?? cur.status) as TemplateStatus,
            metadata: body.metadata ?? cur.metadata ?? {},
            provider_template_id: body.provider_template_id !== undefined ? body.provider_template_id : cur.provider_template_id,
          };
          if (next.status === "active") {
            const errs = fieldErrors();
            syntaxDetails(errs, validateTemplate({ content, channel: next.channel, variants }).errors);
            if (Object.keys(errs).length) throw validationFailed(errs);
          }
          const row = await updateTemplate(tx, scopeOf(auth), cur.id, next);
          await writeAudit(tx, auditOf(auth, "template.updated", row));
          return row;
        });
        return { data: serializeTemplate(row) };
      } catch (err) {
        if (err instanceof SlugTakenError) throw slugTaken();
        throw err;
      }
    },
    {
      access: "secret-write",
      params: TemplateParams,
      body: TemplateUpdateBody,
      response: { 200: TemplateResponse, ...errors(KEY_ERRORS, BODY_ERRORS, 404, 409) },
      detail: { summary: "Update a template (fields not given keep their value)", description: "Setting status to active validates the result first (422 on syntax errors).", tags: ["templates"] },
    },
  )
  .delete(
    "/v1/templates/:id",
    async ({ auth, params, set }) => {
      await sql.begin(async (tx) => {
        const cur = await findTemplate(tx, scopeOf(auth), params.id, true);
        if (!cur || !(await softDeleteTemplate(tx, scopeOf(auth), cur.id))) {
          throw notFound("template_not_found", "Template not found");
        }
        await writeAudit(tx, auditOf(auth, "template.deleted", cur));
      });
      set.status = 204;
    },
    {
      access: "secret-write",
      params: TemplateParams,
      response: { 204: NoContent, ...errors(KEY_ERRORS, 404) },
      detail: { summary: "Delete a template (its slug becomes free)", description: "Sends and workflow steps that name it are refused from then on, until a template takes the slug again.", tags: ["templates"] },
    },
  )
  .post(
    "/v1/templates/:id/preview",
    async ({ auth, params, body }) => {
      const locale = localeOf(body?.locale);
      const t = await loadOr404(auth, params.id);
      if (!locale) return previewOf({ ...t, declared: t.variables }, body?.variables ?? {});
      // the text a recipient of this locale gets: its translation or the fallback (docs/localization.md)
      const text = chooseLocale(t, await translationsOf(t.id), [locale]);
      const out = previewOf({ ...t, ...text, declared: t.variables }, body?.variables ?? {});
      return { data: { ...out.data, locale: text.locale } };
    },
    {
      access: "secret-write",
      params: TemplateParams,
      body: t.Optional(PreviewByIdBody),
      response: { 200: PreviewResponse, ...errors(KEY_ERRORS, BODY_ERRORS, 404) },
      detail: { summary: "Preview a stored template with variables", description: "Renders the stored template with the given variables; nothing is stored or sent.", tags: ["templates"] },
    },
  )
  .post(
    "/v1/templates/:id/validate",
    async ({ auth, params, body }) => {
      const locale = localeOf(body?.locale);
      const t = await loadOr404(auth, params.id);
      const translations = await translationsOf(t.id);
      if (!locale && Object.keys(translations).length === 0) {
        return { data: validateTemplate({ content: t.content, channel: t.channel, variants: t.variants, variables: t.variables }) };
      }
      return { data: validateStored(t, translations, locale) };
    },
    {
      access: "secret-write",
      params: TemplateParams,
      body: t.Optional(ValidateByIdBody),
      response: { 200: ValidationResponse, ...errors(KEY_ERRORS, BODY_ERRORS, 404) },
      detail: {
        summary: "Validate a stored template",
        description: "Checks the stored template's syntax and variants (its translations too): the same report activation would give. `locale` checks the text that locale's recipients get.",
        tags: ["templates"],
      },
    },
  );
