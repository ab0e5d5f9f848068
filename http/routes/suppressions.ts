// /v1/suppressions: the tenant environment's suppression list (hard bounces, complaints, unregistered
// push recipients) read page by page, and lifting one address (audited). Secret keys only.
import { Elysia } from "elysia";
import { liftSuppression, normalizeSuppressionAddress } from "../../domain/delivery/suppression";
import { SuppressionAddressParams, SuppressionList, SuppressionListQuery } from "../../schemas/suppressions";
import { decodeCursor, pageOf } from "../../store/cursor";
import { listSuppressions } from "../../store/suppressions";
import { toSuppression } from "../responses/suppressions";
import { parseLimit } from "../pagination";
import { authPlugin, requireSecret, requireWrite, scopeOf } from "../plugins/auth";
import { errors, KEY_ERRORS, NoContent } from "../route-docs";

export const suppressionRoutes = new Elysia({ name: "routes.suppressions" })
  .use(authPlugin)
  .get(
    "/v1/suppressions",
    async ({ auth, query }) => {
      requireSecret(auth);
      const limit = parseLimit(query.limit);
      const cursor = decodeCursor(query.cursor);
      const rows = await listSuppressions(scopeOf(auth), {
        limit,
        afterId: cursor?.id ?? null,
        address: query.address !== undefined ? normalizeSuppressionAddress(query.address) : undefined,
        reason: query.reason,
        channel: query.channel,
      });
      const { page, meta } = pageOf(rows, limit, (r) => ({ t: r.created_at.toISOString(), id: r.id }));
      return { data: page.map(toSuppression), meta };
    },
    {
      query: SuppressionListQuery,
      response: { 200: SuppressionList, ...errors(KEY_ERRORS, 422) },
      detail: { summary: "The suppression list, newest first (cursor paged; filters address, reason, channel)", tags: ["suppressions"] },
    },
  )
  .delete(
    "/v1/suppressions/:address",
    async ({ auth, params }) => {
      requireSecret(auth);
      requireWrite(auth);
      await liftSuppression(scopeOf(auth), params.address, auth);
      return new Response(null, { status: 204 });
    },
    {
      params: SuppressionAddressParams,
      response: { 204: NoContent, ...errors(KEY_ERRORS, 404, 422) },
      detail: { summary: "Lift one address from the suppression list (audited: suppression.removed); sends to it go out again", tags: ["suppressions"] },
    },
  );
