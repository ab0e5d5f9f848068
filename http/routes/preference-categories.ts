// /v1/preference-categories (issue 28, docs/preferences.md): create, list, get, update and delete
// the categories a notification's `category` names, with their defaults and the required flag.
import { Elysia } from "elysia";
import { AppError, notFound } from "../../basics/errors";
import { categoryFields } from "../../domain/preferences/categories";
import {
  PreferenceCategoryCreateBody,
  PreferenceCategoryListResponse,
  PreferenceCategoryParams,
  PreferenceCategoryResponse,
  PreferenceCategoryUpdateBody,
} from "../../schemas/preference-categories";
import { writeAudit } from "../../store/audit";
import { sql } from "../../store/db";
import {
  CategoryKeyTakenError,
  deleteCategory,
  findCategory,
  insertCategory,
  listCategories,
  updateCategory,
  type PreferenceCategoryRow,
} from "../../store/preference-categories";
import { serializeCategory } from "../responses/preference-categories";
import { accessPlugin } from "../plugins/access";
import { scopeOf, type AuthContext } from "../plugins/auth";
import { BODY_ERRORS, errors, KEY_ERRORS, NoContent } from "../route-docs";

const categoryNotFound = () => notFound("preference_category_not_found", "Preference category not found");

function auditOf(auth: AuthContext, action: string, row: PreferenceCategoryRow) {
  return {
    tenantId: auth.tenantId,
    actorType: auth.actorType,
    actorId: auth.actorId,
    action,
    resourceType: "preference_category",
    resourceId: row.id,
    metadata: { environment: auth.environment, key: row.key, required: row.required, default_enabled_channels: row.default_enabled_channels },
    ip: auth.ip,
    userAgent: auth.userAgent,
  };
}

const TAG = { tags: ["preferences"] };

export const preferenceCategoryRoutes = new Elysia({ name: "routes.preference-categories" })
  .use(accessPlugin)
  .post(
    "/v1/preference-categories",
    async ({ auth, body, set }) => {
      const fields = categoryFields(body);
      try {
        const row = await sql.begin(async (tx) => {
          const row = await insertCategory(tx, scopeOf(auth), fields);
          await writeAudit(tx, auditOf(auth, "preference_category.created", row));
          return row;
        });
        set.status = 201;
        return { data: serializeCategory(row) };
      } catch (err) {
        if (err instanceof CategoryKeyTakenError) {
          throw new AppError("conflict", "A preference category with this key already exists", { key: ["is already taken"] });
        }
        throw err;
      }
    },
    {
      access: "secret-write",
      body: PreferenceCategoryCreateBody,
      response: { 201: PreferenceCategoryResponse, ...errors(KEY_ERRORS, BODY_ERRORS, 409) },
      detail: { ...TAG, summary: "Create a preference category", description: "A category (e.g. marketing, security) groups notifications so subscribers can opt out of one kind on a channel; notifications and templates name it by key." },
    },
  )
  .get(
    "/v1/preference-categories",
    async ({ auth }) => ({ data: (await listCategories(scopeOf(auth))).map(serializeCategory) }),
    {
      access: "secret-read",
      response: { 200: PreferenceCategoryListResponse, ...errors(KEY_ERRORS) },
      detail: { ...TAG, summary: "List the preference categories, by key", description: "Every category of the environment." },
    },
  )
  .get(
    "/v1/preference-categories/:key",
    async ({ auth, params }) => {
      const row = await findCategory(sql, scopeOf(auth), params.key);
      if (!row) throw categoryNotFound();
      return { data: serializeCategory(row) };
    },
    {
      access: "secret-read",
      params: PreferenceCategoryParams,
      response: { 200: PreferenceCategoryResponse, ...errors(KEY_ERRORS, 404) },
      detail: { ...TAG, summary: "Get a preference category by key or id", description: "The path takes the category's key or its id." },
    },
  )
  .put(
    "/v1/preference-categories/:key",
    async ({ auth, params, body }) => {
      const row = await sql.begin(async (tx) => {
        const cur = await findCategory(tx, scopeOf(auth), params.key, true);
        if (!cur) throw categoryNotFound();
        const row = await updateCategory(tx, scopeOf(auth), cur.key, categoryFields(body, cur));
        await writeAudit(tx, auditOf(auth, "preference_category.updated", row));
        return row;
      });
      return { data: serializeCategory(row) };
    },
    {
      access: "secret-write",
      params: PreferenceCategoryParams,
      body: PreferenceCategoryUpdateBody,
      response: { 200: PreferenceCategoryResponse, ...errors(KEY_ERRORS, BODY_ERRORS, 404) },
      detail: { ...TAG, summary: "Update a preference category (fields not given keep their value; the key cannot change)", description: "Subscribers' stored choices for the category stay as they are." },
    },
  )
  .delete(
    "/v1/preference-categories/:key",
    async ({ auth, params, set }) => {
      await sql.begin(async (tx) => {
        const cur = await findCategory(tx, scopeOf(auth), params.key, true);
        const row = cur && (await deleteCategory(tx, scopeOf(auth), cur.key));
        if (!row) throw categoryNotFound();
        await writeAudit(tx, auditOf(auth, "preference_category.deleted", row));
      });
      set.status = 204;
    },
    {
      access: "secret-write",
      params: PreferenceCategoryParams,
      response: { 204: NoContent, ...errors(KEY_ERRORS, 404) },
      detail: { ...TAG, summary: "Delete a preference category (notifications naming it become \"other\"; stored choices stay)", description: "Subscribers' choices for it are kept in case it comes back." },
    },
  );
