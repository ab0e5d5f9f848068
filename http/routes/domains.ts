// /v1/domains: sending domains (SPEC Endpoints "Domains", DESIGN.md 6): add, list, get, change,
// verify, remove, health, forced check, and the alerts the health checks raise. Secret keys and sessions.
import { Elysia } from "elysia";
import { validationFailed } from "../../basics/errors";
import { forceHealthCheck, healthOf } from "../../domain/sending-domains/health";
import { addDomain, alertView, domainView, getDomain, healthView, removeDomain, updateDomain, verifyDomain, type AuditActor } from "../../domain/sending-domains/domains";
import {
  CreateDomainBody,
  DomainAlertListQuery,
  DomainAlertListResponse,
  DomainHealthResponse,
  DomainIdParams,
  DomainListQuery,
  DomainListResponse,
  DomainResponse,
  UpdateDomainBody,
} from "../../schemas/domains";
import { decodeCursor, pageOf } from "../../store/cursor";
import { isUuid } from "../../store/ids";
import { decodeAlertCursor, encodeAlertCursor, listAlerts, listDomains } from "../../store/sending-domains";
import { parseLimit } from "../pagination";
import { accessPlugin } from "../plugins/access";
import { scopeOf, type AuthContext } from "../plugins/auth";
import { BODY_ERRORS, errors, KEY_ERRORS, NoContent } from "../route-docs";

const actorOf = (auth: AuthContext): AuditActor => ({
  tenantId: auth.tenantId,
  actorType: auth.actorType,
  actorId: auth.actorId,
  ip: auth.ip,
  userAgent: auth.userAgent,
});

const tags = ["domains"];

export const domainRoutes = new Elysia({ name: "routes.domains" })
  .use(accessPlugin)
  // before /v1/domains/:id, so "alerts" is never read as an id
  .get(
    "/v1/domains/alerts",
    async ({ auth, query }) => {
      const limit = parseLimit(query.limit);
      const cursor = decodeAlertCursor(query.cursor);
      if (query.domain_id !== undefined && !isUuid(query.domain_id)) throw validationFailed({ domain_id: ["must be a domain id (UUID)"] });
      const rows = await listAlerts(scopeOf(auth), { limit, cursor, domainId: query.domain_id });
      const hasMore = rows.length > limit;
      const page = hasMore ? rows.slice(0, limit) : rows;
      const last = page[page.length - 1];
      return {
        data: page.map(alertView),
        meta: { cursor: hasMore && last ? encodeAlertCursor({ open: last.resolved_at === null, id: last.id }) : null, has_more: hasMore },
      };
    },
    {
      access: "secret-read",
      query: DomainAlertListQuery,
      response: { 200: DomainAlertListResponse, ...errors(KEY_ERRORS, 422) },
      detail: { summary: "Alerts raised when a domain's SPF, DKIM or DMARC check stopped passing: open first, newest first", description: "Each alert names the domain and the check that stopped passing.", tags },
    },
  )
  .post(
    "/v1/domains",
    async ({ auth, body, set }) => {
      const row = await addDomain(scopeOf(auth), body.domain, actorOf(auth));
      set.status = 201;
      return { data: domainView(row) };
    },
    {
      access: "secret-write",
      body: CreateDomainBody,
      response: { 201: DomainResponse, ...errors(KEY_ERRORS, BODY_ERRORS, 409) },
      detail: {
        summary: "Add a sending domain: status pending, with the TXT records to publish (verification, SPF, DKIM, DMARC). Accepts Idempotency-Key", description: "Publish the records at your DNS host, then call verify. Email from a verified domain is DKIM-signed with its key.",
        tags,
      },
    },
  )
  .get(
    "/v1/domains",
    async ({ auth, query }) => {
      const limit = parseLimit(query.limit);
      const cursor = decodeCursor(query.cursor);
      const rows = await listDomains(scopeOf(auth), { limit, afterId: cursor?.id ?? null });
      const { page, meta } = pageOf(rows, limit, (r) => ({ t: r.created_at.toISOString(), id: r.id }));
      return { data: page.map(domainView), meta };
    },
    {
      access: "secret-read",
      query: DomainListQuery,
      response: { 200: DomainListResponse, ...errors(KEY_ERRORS, 422) },
      detail: { summary: "List sending domains, newest first", description: "Each with its status (pending, verified) and latest health.", tags },
    },
  )
  .get("/v1/domains/:id", async ({ auth, params }) => ({ data: domainView(await getDomain(scopeOf(auth), params.id)) }), {
    access: "secret-read",
    params: DomainIdParams,
    response: { 200: DomainResponse, ...errors(KEY_ERRORS, 404) },
    detail: { summary: "A sending domain with its DNS records and latest health", description: "The records to publish, as the verification found them.", tags },
  })
  .patch(
    "/v1/domains/:id",
    async ({ auth, params, body }) => ({ data: domainView(await updateDomain(scopeOf(auth), params.id, body)) }),
    {
      access: "secret-write",
      params: DomainIdParams,
      body: UpdateDomainBody,
      response: { 200: DomainResponse, ...errors(KEY_ERRORS, BODY_ERRORS, 404) },
      detail: { summary: "Change a domain's settings: block_on_failure holds its email while DKIM or SPF fails", description: "Other settings keep their value when not given.", tags },
    },
  )
  .delete(
    "/v1/domains/:id",
    async ({ auth, params, set }) => {
      await removeDomain(scopeOf(auth), params.id, actorOf(auth));
      set.status = 204;
    },
    {
      access: "secret-write",
      params: DomainIdParams,
      response: { 204: NoContent, ...errors(KEY_ERRORS, 404) },
      detail: { summary: "Remove a sending domain (with its health history and alerts)", description: "Email from its addresses is no longer DKIM-signed.", tags },
    },
  )
  .post(
    "/v1/domains/:id/verify",
    async ({ auth, params }) => ({ data: domainView(await verifyDomain(scopeOf(auth), params.id, actorOf(auth))) }),
    {
      access: "secret-write",
      params: DomainIdParams,
      response: { 200: DomainResponse, ...errors(KEY_ERRORS, 404) },
      detail: {
        summary: "Look up the verification TXT record: verified when it matches, else still pending with verification_error saying what was found", description: "DNS changes can take minutes to hours to be visible; call it again later. DNS servers that do not answer give 503 dns_unavailable.",
        tags,
      },
    },
  )
  .get("/v1/domains/:id/health", async ({ auth, params }) => ({ data: healthView(await healthOf(scopeOf(auth), params.id)) }), {
    access: "secret-read",
    params: DomainIdParams,
    response: { 200: DomainHealthResponse, ...errors(KEY_ERRORS, 404, 503) },
    detail: { summary: "The latest SPF, DKIM and DMARC check (a domain never checked is checked now)", description: "Each record's result and what was found; the service checks every verified domain on a schedule (DOMAIN_HEALTH_CRON).", tags },
  })
  .post(
    "/v1/domains/:id/health/check",
    async ({ auth, params }) => ({ data: healthView(await forceHealthCheck(scopeOf(auth), params.id)) }),
    {
      access: "secret-write",
      params: DomainIdParams,
      response: { 200: DomainHealthResponse, ...errors(KEY_ERRORS, 404, 503) },
      detail: { summary: "Check SPF, DKIM and DMARC now; once per minute per domain (429 rate_limited with Retry-After)", description: "Answers the fresh result; a check that stops passing raises an alert.", tags },
    },
  );
