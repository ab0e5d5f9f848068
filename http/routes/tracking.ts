// Public open and click tracking of emails (channel settings track_opens / track_clicks): the 1x1 pixel
// and the redirect of a rewritten link, each named by a signed token (domain/receipts/tracking.ts). No API key.
import { Elysia, t } from "elysia";
import { recordClick, recordOpen } from "../../domain/receipts/tracking";
import { TrackingTokenParams } from "../../schemas/tracking";
import { requestFacts } from "../request-context";
import { errors, Redirect } from "../route-docs";
import { accessPlugin } from "../plugins/access";

// The smallest transparent GIF: 1x1, one transparent colour (GIF89a, 43 bytes).
const PIXEL = Buffer.from("R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7", "base64");
// Every open must reach us: no cache, no proxy copy (image proxies of mail providers still cache some).
const NO_CACHE = { "cache-control": "no-store, no-cache, must-revalidate, private, max-age=0", pragma: "no-cache", expires: "0" };

const visitor = (request: Request) => ({ ip: requestFacts(request).ip, userAgent: request.headers.get("user-agent") });

export const trackingRoutes = new Elysia({ name: "routes.tracking" }).use(accessPlugin)
  .get(
    "/track/open/:token",
    async ({ params, request }) => {
      await recordOpen(params.token, visitor(request));
      return new Response(PIXEL, { status: 200, headers: { "content-type": "image/gif", "content-length": String(PIXEL.length), ...NO_CACHE } });
    },
    {
      access: "public",
      params: TrackingTokenParams,
      response: {
        200: t.String({ contentMediaType: "image/gif", description: "a 1x1 transparent GIF, never cached", examples: ["GIF89a..."] }),
        ...errors(400),
      },
      detail: { summary: "Open-tracking pixel: records the first open of an email", description: "A 1x1 transparent GIF inserted into tracked emails, never cached; a malformed token is 400.", tags: ["recipient-links"] },
    },
  )
  .get(
    "/track/click/:token",
    async ({ params, request }) => {
      const url = await recordClick(params.token, visitor(request));
      return new Response(null, { status: 302, headers: { location: url, "referrer-policy": "no-referrer", ...NO_CACHE } });
    },
    {
      access: "public",
      params: TrackingTokenParams,
      response: {
        302: Redirect("To the link's original URL (Location), as it was in the message"),
        ...errors(400, 404),
      },
      detail: { summary: "Click tracking: records the click and redirects to the link's original URL", description: "Tracked links in emails point here; the redirect (302) goes to the URL the template had.", tags: ["recipient-links"] },
    },
  );
