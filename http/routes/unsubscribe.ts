// /unsubscribe/:token (DESIGN.md 6, RFC 8058): GET shows a small confirmation page whose form
// POSTs back; POST (also the mailbox provider's one-click) turns the preference off. Token = auth.
import { Elysia, t } from "elysia";
import { verifyUnsubscribeToken, type UnsubscribeClaims } from "../../domain/subscribers/unsubscribe-token";
import { sql } from "../../store/db";
import { upsertPreferences } from "../../store/preferences";
import { findSubscriber } from "../../store/subscribers";
import { AppError } from "../../basics/errors";
import { errors } from "../route-docs";
import { accessPlugin } from "../plugins/access";

const TokenParams = t.Object({ token: t.String({ description: "The signed token of the List-Unsubscribe link" }) });

/** RFC 8058: mailbox providers POST this form (urlencoded or multipart); the page's button too. */
const OneClickBody = t.Optional(
  t.Object(
    { "List-Unsubscribe": t.Optional(t.String({ description: "One-Click" })) },
    // open: whatever else a mailbox provider posts must never cost the recipient their unsubscribe
    { description: "Not read: the token is the whole request", additionalProperties: true, examples: [{ "List-Unsubscribe": "One-Click" }] },
  ),
);

const invalidToken = () => new AppError("invalid_token", "The unsubscribe link is invalid or has been tampered with");

function claimsOf(token: string): UnsubscribeClaims {
  const c = verifyUnsubscribeToken(token);
  if (!c) throw invalidToken();
  return c;
}

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);

function page(title: string, inner: string): Response {
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="robots" content="noindex"><title>${escapeHtml(title)}</title>
<style>body{font-family:system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem;color:#222}button{font-size:1rem;padding:.6rem 1.2rem;cursor:pointer}</style>
</head><body><h1>${escapeHtml(title)}</h1>${inner}</body></html>`;
  return new Response(html, {
    status: 200,
    headers: { "content-type": "text/html; charset=utf-8", "cache-control": "no-store", "referrer-policy": "no-referrer" },
  });
}

function what(c: UnsubscribeClaims): string {
  const channel = c.channel.replace("_", "-");
  return c.category ? `${escapeHtml(c.category)} ${escapeHtml(channel)} messages` : `all ${escapeHtml(channel)} messages`;
}

export const unsubscribeRoutes = new Elysia({ name: "routes.unsubscribe" }).use(accessPlugin)
  .get(
    "/unsubscribe/:token",
    ({ params }) => {
      const c = claimsOf(params.token);
      // GET never changes anything: link scanners and previews follow GET links.
      return page(
        "Unsubscribe",
        `<p>Stop receiving ${what(c)}?</p><form method="post" action="/unsubscribe/${encodeURIComponent(params.token)}">` +
          `<input type="hidden" name="List-Unsubscribe" value="One-Click"><button type="submit">Unsubscribe</button></form>`,
      );
    },
    {
      access: "public",
      params: TokenParams,
      response: {
        200: t.String({ contentMediaType: "text/html", description: "A page with one button that POSTs the form", examples: ["<!doctype html>..."] }),
        ...errors(400),
      },
      detail: { summary: "Unsubscribe confirmation page", description: "The page a recipient reaches from an email's unsubscribe link: it asks them to confirm, so that link scanners do not unsubscribe anyone.", tags: ["recipient-links"] },
    },
  )
  .post(
    "/unsubscribe/:token",
    // a page (a Response) for browsers, the JSON answer otherwise: Elysia's types take only one
    async ({ params, request }): Promise<any> => {
      const c = claimsOf(params.token);
      const scope = { tenantId: c.tenantId, environment: c.environment };
      await sql.begin(async (tx) => {
        const sub = await findSubscriber(scope, c.subscriberId, tx, { includeDeleted: true });
        // An erased subscriber receives nothing anyway; there is no row left to switch off.
        if (!sub || sub.deleted_at) return;
        await upsertPreferences(tx, scope, sub.id, [{ category: c.category ?? "all", channel: c.channel, enabled: false }], "unsubscribe");
      });
      if ((request.headers.get("accept") ?? "").includes("text/html")) {
        return page("Unsubscribed", `<p>You will no longer receive ${what(c)}.</p>`);
      }
      return { data: { unsubscribed: true, channel: c.channel, category: c.category ?? "all" } };
    },
    {
      access: "public",
      params: TokenParams,
      body: OneClickBody,
      parse: ["urlencoded", "formdata"],
      response: {
        200: t.Object(
          { data: t.Object({ unsubscribed: t.Boolean(), channel: t.String(), category: t.String() }) },
          {
            description: "Unsubscribed; a browser (Accept: text/html) gets a confirmation page instead",
            examples: [{ data: { unsubscribed: true, channel: "email", category: "all" } }],
          },
        ),
        ...errors(400, 413, 422),
      },
      detail: { summary: "One-click unsubscribe (RFC 8058)", description: "What mailbox providers POST for List-Unsubscribe-Post (and the confirmation page's form): suppresses the address for that tenant; an invalid or expired token is 400 invalid_token.", tags: ["recipient-links"] },
    },
  );
