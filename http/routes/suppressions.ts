// /v1/suppressions: the tenant environment's suppression list (hard bounces, complaints, unregistered
// push recipients) read page by page, and lifting one address (audited). Secret keys only.
import { Elysia } from "elysia";
import { liftSuppression, normalizeSuppressionAddress } from "../../domain/delivery/suppression";
import { SuppressionAddressParams, SuppressionList, SuppressionListQuery } from "../../schemas/suppressions";
import { decodeCursor, pageOf } from "../../store/cursor";
import { listSuppressions } from "../../store/suppressions";
import { toSuppression } from "../responses/suppressions";
import { parseLimit } from "../pagination";
import { accessPlugin } from "../plugins/access";
import { scopeOf } from "../plugins/auth";
import { errors, KEY_ERRORS, NoContent } from "../route-docs";

export const suppressionRoutes = new Elysia({ name: "routes.suppressions" })
  .use(accessPlugin)
  .get(
    "/v1/suppressions",
    async ({ auth, query }) => {
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
      access: "secret-read",
      query: SuppressionListQuery,
      response: { 200: SuppressionList, ...errors(KEY_ERRORS, 422) },
      detail: { summary: "The suppression list, newest first (cursor paged; filters address, reason, channel)", description: "Addresses nothing is sent to any more (bounced, complained, unsubscribed), with why and when.", tags: ["suppressions"] },
    },
  )
  .delete(
    "/v1/suppressions/:address",
    async ({ auth, params }) => {
      await liftSuppression(scopeOf(auth), params.address, auth);
      return new Response(null, { status: 204 });
    },
    {
      access: "secret-write",
      params: SuppressionAddressParams,
      response: { 204: NoContent, ...errors(KEY_ERRORS, 404, 422) },
      detail: { summary: "Lift one address from the suppression list (audited: suppression.removed); sends to it go out again", description: "Use it when the recipient asked to be contacted again; a provider may still refuse an address that bounced.", tags: ["suppressions"] },
    },
  );
