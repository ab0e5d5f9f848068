// /v1/subscribers (secret keys): upsert on external_id, search list, get, PUT, DELETE (erasure)
// and the all-or-nothing bulk import. Preferences and the inbox live in http/routes/inbox.ts.
import { Elysia } from "elysia";
import { releaseBulkGarbage } from "../../basics/memory-ceiling";
import { sql, type Scope } from "../../store/db";
import {
  findSubscriber,
  listSubscribers,
  updateSubscriber,
  upsertSubscribers,
  type Consent,
  type SubscriberFields,
} from "../../store/subscribers";
import { serializeSubscriber } from "../responses/subscribers";
import { validateSubscriberInput } from "../../domain/subscribers/validation";
import { eraseSubscriber, identifierHash } from "../../domain/subscribers/erasure";
import { fieldErrors, AppError, validationFailed, type ErrorDetails } from "../../basics/errors";
import { accessPlugin } from "../plugins/access";
import { scopeOf, type AuthContext } from "../plugins/auth";
import { statusFor } from "../plugins/errors";
import { BODY_ERRORS, errors, KEY_ERRORS, NoContent } from "../route-docs";
import { assertWithinPlan } from "../../domain/billing/limits";
import {
  ImportBody,
  ImportErrorResponse,
  ImportResponse,
  ListQuery,
  SubscriberBody,
  SubscriberListResponse,
  SubscriberParams,
  SubscriberResponse,
} from "../../schemas/subscribers";

export const MAX_IMPORT = 1000;
const TAG = { tags: ["subscribers"] };

/** limit (default 20, 1..100) and offset (>= 0) of the offset-paged lists; 422 otherwise. */
export function offsetPage(query: { limit?: string; offset?: string }): { limit: number; offset: number } {
  const details = fieldErrors();
  const limit = query.limit === undefined || query.limit === "" ? 20 : Number(query.limit);
  const offset = query.offset === undefined || query.offset === "" ? 0 : Number(query.offset);
  if (!Number.isInteger(limit) || limit < 1 || limit > 100) details.limit = ["must be an integer from 1 to 100"];
  if (!Number.isInteger(offset) || offset < 0 || offset > 1_000_000) details.offset = ["must be an integer from 0 to 1000000"];
  if (Object.keys(details).length) throw validationFailed(details);
  return { limit, offset };
}

const consentOf = (auth: AuthContext): Consent => ({ given_at: new Date().toISOString(), ip: auth.ip, method: "api" });

/** External ids of erased subscribers (by hash) among the given ones. */
async function erasedExternalIds(scope: Scope, externalIds: string[]): Promise<Set<string>> {
  if (externalIds.length === 0) return new Set();
  const byHash = new Map(externalIds.map((e) => [identifierHash(scope.tenantId, scope.environment, e), e]));
  const rows = await sql<{ identifier_hash: string }[]>`
    select identifier_hash from subscriber_erasures
    where tenant_id = ${scope.tenantId} and environment = ${scope.environment} and kind = 'external_id'
      and identifier_hash = any(${[...byHash.keys()]}::text[])`;
  return new Set(rows.map((r) => byHash.get(r.identifier_hash)!));
}

const erasedConflict = () =>
  new AppError("subscriber_erased", "This external_id belonged to an erased subscriber; erasure is irreversible");

export const subscriberRoutes = new Elysia({ name: "routes.subscribers" })
  .use(accessPlugin)
  .post(
    "/v1/subscribers",
    async ({ auth, body, set }) => {
      const scope = scopeOf(auth);
      const { fields, errors } = await validateSubscriberInput(body, "upsert");
      if (Object.keys(errors).length) throw validationFailed(errors);
      if ((await erasedExternalIds(scope, [fields.external_id!])).size) throw erasedConflict();
      const [result] = await sql.begin(async (tx) => {
        const out = await upsertSubscribers(tx, scope, [fields], consentOf(auth));
        if (out[0]?.inserted) await assertWithinPlan(tx, scope, "subscribers");
        return out;
      });
      if (!result) throw erasedConflict(); // erased between the check and the write
      set.status = result.inserted ? 201 : 200;
      return { data: serializeSubscriber(result.row) };
    },
    {
      access: "secret-write",
      body: SubscriberBody,
      response: { 200: SubscriberResponse, 201: SubscriberResponse, ...errors(KEY_ERRORS, BODY_ERRORS, 409) },
      detail: {
        ...TAG,
        summary: "Create or update a subscriber (upsert on external_id)",
        description:
          "201 when created (consent recorded: given_at, caller IP, method api), 200 when updated. Absent or null fields keep their stored value. An external_id of an erased subscriber gives 409 subscriber_erased.",
      },
    },
  )
  .post(
    "/v1/subscribers/import",
    async ({ auth, body, set }) => {
      try {
        return await importSubscribers(auth, body.subscribers);
      } catch (err) {
        if (!(err instanceof ImportFailure)) throw err;
        // the standard error body plus error.index (DESIGN.md 4)
        set.status = statusFor(err.code);
        return { error: { code: err.code, message: err.message, details: err.details!, index: err.index } };
      }
    },
    {
      access: "secret-write",
      body: ImportBody,
      afterResponse: releaseBulkGarbage,
      response: { 200: ImportResponse, ...errors(KEY_ERRORS, BODY_ERRORS), 422: ImportErrorResponse },
      detail: {
        ...TAG,
        summary: "Import up to 1,000 subscribers in one transaction (all-or-nothing)",
        description:
          "On the first invalid entry: 422 validation_failed with details keyed subscribers[<i>].<field> and error.index = i; nothing is written. More than 1,000 entries: 413 payload_too_large.",
      },
    },
  )
  .get(
    "/v1/subscribers",
    async ({ auth, query }) => {
      const { limit, offset } = offsetPage(query);
      const { rows, total } = await listSubscribers(scopeOf(auth), { limit, offset, search: query.search });
      return { data: rows.map(serializeSubscriber), meta: { total, limit, offset } };
    },
    {
      access: "secret-read",
      query: ListQuery,
      response: { 200: SubscriberListResponse, ...errors(KEY_ERRORS, 422) },
      detail: { ...TAG, summary: "List subscribers, newest first; search matches email, name or external_id", description: "Offset paged (limit 1-100, default 20; offset). Erased subscribers are not listed." },
    },
  )
  .get(
    "/v1/subscribers/:id",
    async ({ auth, params }) => {
      const sub = await findSubscriber(scopeOf(auth), params.id);
      if (!sub) throw subscriberNotFound();
      return { data: serializeSubscriber(sub) };
    },
    {
      access: "secret-read",
      params: SubscriberParams,
      response: { 200: SubscriberResponse, ...errors(KEY_ERRORS, 404) },
      detail: { ...TAG, summary: "Get a subscriber by id or external_id", description: "The path takes either the subscriber's UUID or the external_id you gave it." },
    },
  )
  .put(
    "/v1/subscribers/:id",
    async ({ auth, params, body }) => {
      const scope = scopeOf(auth);
      const { fields, errors } = await validateSubscriberInput(body, "update");
      const row = await sql.begin(async (tx) => {
        const sub = await findSubscriber(scope, params.id, tx, { forUpdate: true });
        if (!sub) throw subscriberNotFound();
        if (fields.external_id !== undefined && fields.external_id !== sub.external_id) {
          (errors.external_id ??= []).push("can not be changed; it is the subscriber's upsert key");
        }
        if (Object.keys(errors).length) throw validationFailed(errors);
        delete fields.external_id;
        return updateSubscriber(tx, scope, sub.id, fields);
      });
      return { data: serializeSubscriber(row!) };
    },
    {
      access: "secret-write",
      params: SubscriberParams,
      body: SubscriberBody,
      response: { 200: SubscriberResponse, ...errors(KEY_ERRORS, BODY_ERRORS, 404) },
      detail: { ...TAG, summary: "Update a subscriber; given fields replace stored ones, null clears", description: "Only the fields in the body change; a field set to null is cleared." },
    },
  )
  .delete(
    "/v1/subscribers/:id",
    async ({ auth, params, set }) => {
      await eraseSubscriber(scopeOf(auth), params.id, {
        actorType: auth.actorType,
        actorId: auth.actorId,
        ip: auth.ip,
        userAgent: auth.userAgent,
      });
      set.status = 204;
    },
    {
      access: "secret-write",
      params: SubscriberParams,
      response: { 204: NoContent, ...errors(KEY_ERRORS, 404) },
      detail: {
        ...TAG,
        summary: "Erase a subscriber (LGPD): irreversible soft delete with PII nullification",
        description:
          "Nullifies email, phone, name and custom_properties; redacts the subscriber's notifications and inbox; later notifications to any of its former identifiers are suppressed. 204.",
      },
    },
  );

class ImportFailure extends AppError {
  constructor(readonly index: number, details: ErrorDetails) {
    super("validation_failed", `Subscriber at index ${index} is invalid; nothing was imported`, details);
  }
}
const importFailure = (index: number, details: ErrorDetails) => new ImportFailure(index, details);

/** The import itself; throws ImportFailure (nothing written) on the first invalid entry. */
async function importSubscribers(auth: AuthContext, list: unknown[]) {
  const scope = scopeOf(auth);
  if (list.length > MAX_IMPORT) {
    throw new AppError("payload_too_large", `At most ${MAX_IMPORT} subscribers per import (got ${list.length})`);
  }
  const entries: SubscriberFields[] = [];
  const seen = new Map<string, number>();
  for (let i = 0; i < list.length; i++) {
    const { fields, errors } = await validateSubscriberInput(list[i], "upsert", `subscribers[${i}].`);
    const ext = fields.external_id;
    if (ext !== undefined && seen.has(ext)) {
      (errors[`subscribers[${i}].external_id`] ??= []).push(`repeats the external_id of subscribers[${seen.get(ext)}]`);
    }
    if (Object.keys(errors).length) throw importFailure(i, errors);
    seen.set(ext!, i);
    entries.push(fields);
  }
  const erased = await erasedExternalIds(scope, [...seen.keys()]);
  if (erased.size) {
    const i = entries.findIndex((e) => erased.has(e.external_id!));
    throw importFailure(i, { [`subscribers[${i}].external_id`]: ["belongs to an erased subscriber"] });
  }
  const results = await sql.begin(async (tx) => {
    const out = await upsertSubscribers(tx, scope, entries, consentOf(auth));
    if (out.some((r) => r.inserted)) await assertWithinPlan(tx, scope, "subscribers");
    if (out.length !== entries.length) {
      const got = new Set(out.map((r) => r.row.external_id));
      const i = entries.findIndex((e) => !got.has(e.external_id!));
      throw importFailure(i, { [`subscribers[${i}].external_id`]: ["belongs to an erased subscriber"] });
    }
    return out;
  });
  return { data: { imported: results.length, subscribers: results.map((r) => serializeSubscriber(r.row)) } };
}

export function subscriberNotFound(): AppError {
  return new AppError("subscriber_not_found", "Subscriber not found");
}
