// /v1/inbox-embed: developer mode and the allowed origins publishable keys are checked against
// (SPEC "Inbox embed" validation rules); secret keys and sessions only.
import { Elysia } from "elysia";
import {
  AllowedOriginList,
  AllowedOriginResponse,
  CreateAllowedOriginBody,
  EmbedSettingsResponse,
  OriginIdParams,
  UpdateEmbedSettingsBody,
} from "../../schemas/inbox-embed";
import {
  addOrigin,
  countOrigins,
  deleteOrigin,
  getEmbedSettings,
  listOrigins,
  MAX_ORIGINS_PER_TENANT,
  setDeveloperMode,
  type AllowedOriginRow,
} from "../../store/allowed-origins";
import { sql } from "../../store/db";
import { isUuid } from "../../store/ids";
import { iso } from "../../store/time";
import { conflict, notFound, validationFailed } from "../../basics/errors";
import { accessPlugin } from "../plugins/access";
import type { AuthContext } from "../plugins/auth";
import { BODY_ERRORS, errors, KEY_ERRORS, NoContent } from "../route-docs";

function originShape(o: AllowedOriginRow) {
  return { id: o.id, origin: o.origin, created_at: iso(o.created_at)! };
}

/** SPEC: scheme http:// or https://, no trailing slash, no path, no wildcard `*`. Returns the origin or the messages. */
export function checkOrigin(raw: string): { origin: string } | { errors: string[] } {
  const s = raw.trim();
  const errors: string[] = [];
  if (s.includes("*")) errors.push("must not contain a wildcard (*)");
  const m = /^(https?):\/\/([^/?#]+)(.*)$/i.exec(s);
  if (!m) {
    errors.push("must start with http:// or https://");
    return { errors };
  }
  const rest = m[3]!;
  if (rest === "/") errors.push("must not end with a trailing slash");
  else if (rest !== "") errors.push("must not contain a path, query or fragment");
  if (errors.length) return { errors };
  let u: URL;
  try {
    u = new URL(s);
  } catch {
    return { errors: ["must be a valid origin (scheme://host[:port])"] };
  }
  if (u.username || u.password) return { errors: ["must not contain credentials"] };
  // Browsers send the serialised origin (lower-case host, default port dropped): store the same
  return { origin: u.origin };
}

function readOnlyFieldSent(request: Request): boolean {
  try {
    const parsed = JSON.parse((request as any).__rawBody ?? "{}");
    return parsed !== null && typeof parsed === "object" && "allowed_origins_count" in parsed;
  } catch {
    return false;
  }
}

async function settingsOf(auth: AuthContext) {
  const s = await getEmbedSettings(auth.tenantId, auth.environment);
  if (!s) throw notFound();
  return {
    developer_mode: s.developer_mode,
    allowed_origins_count: await countOrigins(sql, auth.tenantId, auth.environment),
    inbox_secret: s.inbox_secret,
  };
}

export const inboxEmbedRoutes = new Elysia({ name: "routes.inbox-embed" })
  .use(accessPlugin)
  .get("/v1/inbox-embed/settings", async ({ auth }) => ({ data: await settingsOf(auth) }), {
    access: "secret-read",
    response: { 200: EmbedSettingsResponse, ...errors(KEY_ERRORS, 404) },
    detail: { summary: "Inbox embed settings", description: "Whether developer mode is on for this environment.", tags: ["inbox-embed"] },
  })
  .put("/v1/inbox-embed/settings", async ({ auth, body, request }) => {
    // Elysia strips unknown properties before validation; a read-only field sent anyway is an error
    if (readOnlyFieldSent(request)) throw validationFailed({ allowed_origins_count: ["is read only"] });
    await setDeveloperMode(auth.tenantId, body.developer_mode);
    return { data: await settingsOf(auth) };
  }, {
    access: "secret-write",
    body: UpdateEmbedSettingsBody,
    response: { 200: EmbedSettingsResponse, ...errors(KEY_ERRORS, BODY_ERRORS, 404) },
    detail: { summary: "Turn developer mode on or off (localhost origins allowed while on)", description: "While on, a publishable key is accepted from http(s)://localhost and 127.0.0.1 on any port, for local development; leave it off in production.", tags: ["inbox-embed"] },
  })
  .get("/v1/inbox-embed/allowed-origins", async ({ auth }) => {
    const rows = await listOrigins(sql, auth.tenantId, auth.environment);
    return { data: rows.map(originShape) };
  }, {
    access: "secret-read",
    response: { 200: AllowedOriginList, ...errors(KEY_ERRORS) },
    detail: { summary: "List allowed origins", description: "Origins (scheme, host and port) from which a publishable key may call the inbox routes.", tags: ["inbox-embed"] },
  })
  .post("/v1/inbox-embed/allowed-origins", async ({ auth, body, set }) => {
    const checked = checkOrigin(body.origin);
    if ("errors" in checked) throw validationFailed({ origin: checked.errors });
    const r = await addOrigin(auth.tenantId, auth.environment, checked.origin);
    if (!r.ok && r.reason === "limit") {
      throw validationFailed({ origin: [`at most ${MAX_ORIGINS_PER_TENANT} allowed origins per tenant`] });
    }
    if (!r.ok) throw conflict("origin_already_allowed", "This origin is already allowed");
    set.status = 201;
    return { data: originShape(r.row) };
  }, {
    access: "secret-write",
    body: CreateAllowedOriginBody,
    response: { 201: AllowedOriginResponse, ...errors(KEY_ERRORS, BODY_ERRORS, 409) },
    detail: { summary: "Allow an origin for publishable keys", description: "An origin is scheme://host[:port] with no path, e.g. https://app.example.com. Requests from any other origin with a publishable key get 403 origin_not_allowed.", tags: ["inbox-embed"] },
  })
  .delete("/v1/inbox-embed/allowed-origins/:id", async ({ auth, params, set }) => {
    if (!isUuid(params.id) || !(await deleteOrigin(auth.tenantId, auth.environment, params.id))) {
      throw notFound("not_found", "Allowed origin not found");
    }
    set.status = 204;
  }, {
    access: "secret-write",
    params: OriginIdParams,
    response: { 204: NoContent, ...errors(KEY_ERRORS, 404) },
    detail: { summary: "Remove an allowed origin", description: "Publishable-key requests from that origin are refused from the next request on.", tags: ["inbox-embed"] },
  });
