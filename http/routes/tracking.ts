// Public open and click tracking of emails (channel settings track_opens / track_clicks): the 1x1 pixel
// and the redirect of a rewritten link, each named by a signed token (domain/tracking.ts). No API key.
import { Elysia, t } from "elysia";
import { recordClick, recordOpen } from "../../domain/tracking";
import { ErrorBody } from "../../schemas/errors";
import { TrackingTokenParams } from "../../schemas/tracking";
import { requestFacts } from "../request-context";

// The smallest transparent GIF: 1x1, one transparent colour (GIF89a, 43 bytes).
const PIXEL = Buffer.from("R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7", "base64");
// Every open must reach us: no cache, no proxy copy (image proxies of mail providers still cache some).
const NO_CACHE = { "cache-control": "no-store, no-cache, must-revalidate, private, max-age=0", pragma: "no-cache", expires: "0" };

const visitor = (request: Request) => ({ ip: requestFacts(request).ip, userAgent: request.headers.get("user-agent") });

export const trackingRoutes = new Elysia({ name: "routes.tracking" })
  .get(
    "/track/open/:token",
    async ({ params, request }) => {
      await recordOpen(params.token, visitor(request));
      return new Response(PIXEL, { status: 200, headers: { "content-type": "image/gif", "content-length": String(PIXEL.length), ...NO_CACHE } });
    },
    {
      params: TrackingTokenParams,
      response: { 200: t.String({ description: "a 1x1 transparent GIF (image/gif), never cached", format: "binary" }), 400: ErrorBody },
      detail: { summary: "Open-tracking pixel: records the first open of an email", tags: ["public"], security: [] },
    },
  )
  .get(
    "/track/click/:token",
    async ({ params, request }) => {
      const url = await recordClick(params.token, visitor(request));
      return new Response(null, { status: 302, headers: { location: url, "referrer-policy": "no-referrer", ...NO_CACHE } });
    },
    {
      params: TrackingTokenParams,
      response: {
        // (t.Null here makes the OpenAPI plugin write an invalid response object; the body is empty)
        302: t.Any({ description: "no body: redirect (Location) to the link's original URL, as it was in the message" }),
        400: ErrorBody,
        404: ErrorBody,
      },
      detail: { summary: "Click tracking: records the click and redirects to the link's original URL", tags: ["public"], security: [] },
    },
  );
