// API key management in both SPEC shapes over one table: /v1/api-keys (reference: key_type, label,
// environment, prefix, raw_key, rotate) and /api-keys (guide: name, key, permissions, allowed_ips).
import { Elysia } from "elysia";
import * as ipaddr from "ipaddr.js";
import {
  CreateGuideKeyBody,
  CreateKeyBody,
  GuideKeyCreated,
  GuideKeyList,
  GuideListQuery,
  KeyIdParams,
  ReferenceKeyCreated,
  ReferenceKeyList,
  RevokeQuery,
  RotateKeyBody,
  RotatedKeyResponse,
} from "../../schemas/api-keys";
import {
  bumpAuthEpoch,
  expireKeyAfter,
  findActiveKeyForUpdate,
  insertApiKey,
  listActiveKeys,
  revokeKey,
  type ApiKeyRow,
  type Environment,
  type KeyType,
} from "../../store/api-keys";
import { writeAudit } from "../../store/audit";
import { sql } from "../../store/db";
import { isUuid } from "../../store/ids";
import { iso } from "../../store/time";
import { fieldErrors, forbidden, notFound, validationFailed, type ErrorDetails } from "../../basics/errors";
import { parseLimit } from "../pagination";
import { accessPlugin } from "../plugins/access";
import type { AuthContext } from "../plugins/auth";
import { BODY_ERRORS, errors, KEY_ERRORS, NoContent } from "../route-docs";

const PERMISSIONS = ["read", "write"] as const;
const DEFAULT_GRACE_HOURS = 24;

export function referenceShape(k: ApiKeyRow) {
  return {
    id: k.id,
    key_type: k.key_type,
    label: k.label,
    environment: k.environment,
    prefix: k.prefix,
    permissions: k.permissions,
    allowed_ips: k.allowed_ips,
    created_at: iso(k.created_at)!,
    last_used_at: iso(k.last_used_at),
    expires_at: iso(k.expires_at),
  };
}

export function guideShape(k: ApiKeyRow) {
  return {
    id: k.id,
    name: k.name ?? k.label,
    permissions: k.permissions,
    allowed_ips: k.allowed_ips,
    created_at: iso(k.created_at)!,
    last_used_at: iso(k.last_used_at),
  };
}

function add(details: ErrorDetails, field: string, message: string) {
  (details[field] ??= []).push(message);
}

/** Default read+write; otherwise a non-empty list of `read` / `write` without repeats. */
export function checkPermissions(details: ErrorDetails, raw: string[] | undefined): string[] {
  if (raw === undefined) return ["read", "write"];
  if (raw.length === 0) add(details, "permissions", "must contain read, write or both");
  raw.forEach((p, i) => {
    if (!(PERMISSIONS as readonly string[]).includes(p)) add(details, `permissions[${i}]`, "must be read or write");
  });
  if (new Set(raw).size !== raw.length) add(details, "permissions", "must not repeat a value");
  return PERMISSIONS.filter((p) => raw.includes(p));
}

function isValidIpOrCidr(s: string): boolean {
  if (s.includes("/")) return ipaddr.IPv4.isValidCIDRFourPartDecimal(s) || (ipaddr.IPv6.isValidCIDR(s) && s.includes(":"));
  return ipaddr.IPv4.isValidFourPartDecimal(s) || (ipaddr.IPv6.isValid(s) && s.includes(":"));
}

/** Each entry an IPv4/IPv6 address or CIDR range (ipaddr.js); 422 names the failing index. Empty = no restriction. */
export function checkAllowedIps(details: ErrorDetails, raw: string[] | null | undefined): string[] | null {
  if (!raw || raw.length === 0) return null;
  const out: string[] = [];
  raw.forEach((entry, i) => {
    const s = typeof entry === "string" ? entry.trim() : "";
    if (!isValidIpOrCidr(s)) add(details, `allowed_ips[${i}]`, "must be an IPv4 or IPv6 address or CIDR range");
    else out.push(s);
  });
  if (raw.length > 100) add(details, "allowed_ips", "must have at most 100 entries");
  return out;
}

/**
 * The environments whose keys the caller manages: a production credential has full access and
 * issues sandbox keys too (SPEC Authentication 2), so it lists, revokes and rotates both; a sandbox
 * credential only sandbox keys.
 */
function manageable(auth: AuthContext): Environment[] {
  return auth.environment === "production" ? ["production", "sandbox"] : ["sandbox"];
}

function auditActor(auth: AuthContext) {
  return { tenantId: auth.tenantId, actorType: auth.actorType, actorId: auth.actorId, ip: auth.ip, userAgent: auth.userAgent };
}

async function createKey(
  auth: AuthContext,
  k: { environment: Environment; keyType: KeyType; label?: string | null; name?: string | null; permissions: string[]; allowedIps: string[] | null },
) {
  return sql.begin(async (tx) => {
    const created = await insertApiKey(tx, {
      tenantId: auth.tenantId,
      environment: k.environment,
      keyType: k.keyType,
      label: k.label ?? null,
      name: k.name ?? null,
      permissions: k.permissions,
      allowedIps: k.allowedIps,
      createdByUserId: auth.actorType === "user" ? auth.actorId : null,
    });
    await writeAudit(tx, {
      ...auditActor(auth),
      action: "api_key.created",
      resourceType: "api_key",
      resourceId: created.row.id,
      metadata: { environment: k.environment, key_type: k.keyType, scopes: k.permissions },
    });
    return created;
  });
}

async function revoke(auth: AuthContext, id: string, reason: string): Promise<void> {
  if (!isUuid(id)) throw notFound("not_found", "API key not found");
  const found = await sql.begin(async (tx) => {
    const key = await findActiveKeyForUpdate(tx, auth.tenantId, manageable(auth), id);
    if (!key) return false;
    await revokeKey(tx, id, reason);
    await writeAudit(tx, {
      ...auditActor(auth),
      action: "api_key.revoked",
      resourceType: "api_key",
      resourceId: id,
      metadata: { key_prefix: key.prefix, revoked_reason: reason },
    });
    return true;
  });
  if (!found) throw notFound("not_found", "API key not found");
  // after commit, before answering: every process's next request sees the revocation
  await bumpAuthEpoch();
}

function parseKeyType(details: ErrorDetails, raw: string | undefined): KeyType {
  if (raw === undefined || raw === "secret") return "secret";
  if (raw === "publishable" || raw === "public") return "publishable";
  add(details, "key_type", "must be secret or publishable (alias public)");
  return "secret";
}

export const apiKeyRoutes = new Elysia({ name: "routes.api-keys" })
  .use(accessPlugin)
  // ---- reference shape --------------------------------------------------------------------
  .get("/v1/api-keys", async ({ auth }) => {
    const { rows } = await listActiveKeys(sql, auth.tenantId, manageable(auth));
    return { data: rows.map(referenceShape) };
  }, {
    access: "secret-read",
    response: { 200: ReferenceKeyList, ...errors(KEY_ERRORS) },
    detail: {
      summary: "List the API keys the caller manages (no raw keys)",
      description: "A production key or session sees the tenant's production and sandbox keys, a sandbox key the sandbox ones; each entry names its environment.",
      tags: ["api-keys"],
    },
  })
  .post("/v1/api-keys", async ({ auth, body, set }) => {
    const details = fieldErrors();
    const keyType = parseKeyType(details, body.key_type);
    const environment = (body.environment ?? auth.environment) as Environment;
    if (environment !== "production" && environment !== "sandbox") add(details, "environment", "must be production or sandbox");
    const permissions = checkPermissions(details, body.permissions);
    const allowedIps = checkAllowedIps(details, body.allowed_ips);
    if (Object.keys(details).length) throw validationFailed(details);
    // A production key has full access (SPEC Authentication 2) and may issue sandbox keys; a sandbox key never issues live keys.
    if (auth.environment === "sandbox" && environment === "production") {
      throw forbidden("insufficient_permissions", "A sandbox credential cannot create production keys");
    }
    const { row, raw } = await createKey(auth, { environment, keyType, label: body.label ?? null, permissions, allowedIps });
    set.status = 201;
    return { data: { ...referenceShape(row), raw_key: raw } };
  }, {
    access: "secret-write",
    body: CreateKeyBody,
    response: { 201: ReferenceKeyCreated, ...errors(KEY_ERRORS, BODY_ERRORS) },
    detail: { summary: "Create an API key; raw_key is shown once", description: "Store raw_key now: only its hash is kept. A production key may create sandbox keys; a sandbox key only sandbox keys. Default permissions are read and write; allowed_ips limits where the key may be used from.", tags: ["api-keys"] },
  })
  .delete("/v1/api-keys/:id", async ({ auth, params, query, set }) => {
    await revoke(auth, params.id, query.reason ?? "revoked");
    set.status = 204;
  }, {
    access: "secret-write",
    params: KeyIdParams,
    query: RevokeQuery,
    response: { 204: NoContent, ...errors(KEY_ERRORS, 404, 422) },
    detail: { summary: "Revoke an API key (effective on the next request)", description: "Every process stops accepting the key from its next request (the key cache is invalidated); other keys keep working.", tags: ["api-keys"] },
  })
  .post("/v1/api-keys/:id/rotate", async ({ auth, params, body, set }) => {
    if (!isUuid(params.id)) throw notFound("not_found", "API key not found");
    const grace = body?.grace_period_hours ?? DEFAULT_GRACE_HOURS;
    const result = await sql.begin(async (tx) => {
      const old = await findActiveKeyForUpdate(tx, auth.tenantId, manageable(auth), params.id);
      if (!old) return null;
      const created = await insertApiKey(tx, {
        tenantId: old.tenant_id,
        environment: old.environment,
        keyType: old.key_type,
        label: old.label,
        name: old.name,
        permissions: old.permissions,
        allowedIps: old.allowed_ips,
        createdByUserId: auth.actorType === "user" ? auth.actorId : null,
      });
      const expired = await expireKeyAfter(tx, old.id, grace);
      await writeAudit(tx, {
        ...auditActor(auth),
        action: "api_key.rotated",
        resourceType: "api_key",
        resourceId: old.id,
        metadata: { old_key_prefix: old.prefix, new_key_prefix: created.row.prefix, grace_period_hours: grace, new_key_id: created.row.id },
      });
      return { created, expired };
    });
    if (!result) throw notFound("not_found", "API key not found");
    await bumpAuthEpoch();
    set.status = 201;
    return {
      data: {
        ...referenceShape(result.created.row),
        raw_key: result.created.raw,
        rotated_from: { id: result.expired.id, prefix: result.expired.prefix, expires_at: iso(result.expired.expires_at)! },
      },
    };
  }, {
    access: "secret-write",
    params: KeyIdParams,
    body: RotateKeyBody,
    response: { 201: RotatedKeyResponse, ...errors(KEY_ERRORS, BODY_ERRORS, 404) },
    detail: { summary: "Rotate a key: a new key now, the old one valid for grace_period_hours (default 24)", description: "Answers the new key (raw_key shown once) and when the old one expires, so deployments can switch without downtime. A body that is not an object is refused and rotates nothing.", tags: ["api-keys"] },
  })
  // ---- guide shape ------------------------------------------------------------------------
  .get("/api-keys", async ({ auth, query }) => {
    const page = parseLimit(query.page, 1, 1_000_000, "page");
    const perPage = parseLimit(query.per_page, 20, 100, "per_page");
    const { rows, total } = await listActiveKeys(sql, auth.tenantId, [auth.environment], { limit: perPage, offset: (page - 1) * perPage });
    return { data: rows.map(guideShape), meta: { total, page, per_page: perPage } };
  }, {
    access: "secret-read",
    query: GuideListQuery,
    response: { 200: GuideKeyList, ...errors(KEY_ERRORS, 422) },
    detail: { summary: "List API keys (guide shape, no key values)", description: "The same keys as GET /v1/api-keys in the guide's shape (name, permissions, allowed_ips), page-numbered.", tags: ["api-keys"] },
  })
  .post("/api-keys", async ({ auth, body, set }) => {
    const details = fieldErrors();
    if (body.name.trim() === "") add(details, "name", "must not be blank");
    const permissions = checkPermissions(details, body.permissions);
    const allowedIps = checkAllowedIps(details, body.allowed_ips);
    if (Object.keys(details).length) throw validationFailed(details);
    const { row, raw } = await createKey(auth, {
      environment: auth.environment,
      keyType: "secret",
      name: body.name.trim(),
      permissions,
      allowedIps,
    });
    set.status = 201;
    return { data: { ...guideShape(row), key: raw } };
  }, {
    access: "secret-write",
    body: CreateGuideKeyBody,
    response: { 201: GuideKeyCreated, ...errors(KEY_ERRORS, BODY_ERRORS) },
    detail: { summary: "Create an API key (guide shape); the key is shown once", description: "The guide's shape of POST /v1/api-keys: name, permissions (read, write) and allowed_ips; the key value is in this answer only.", tags: ["api-keys"] },
  })
  .delete("/api-keys/:id", async ({ auth, params, query, set }) => {
    await revoke(auth, params.id, query.reason ?? "revoked");
    set.status = 204;
  }, {
    access: "secret-write",
    params: KeyIdParams,
    query: RevokeQuery,
    response: { 204: NoContent, ...errors(KEY_ERRORS, 404, 422) },
    detail: { summary: "Revoke an API key; every request using it then fails", description: "Same as DELETE /v1/api-keys/{id}, for keys listed in the guide's shape.", tags: ["api-keys"] },
  });
