// The hosted preference center (issue 28, docs/preferences.md): the signed link a tenant asks for,
// the page it opens (server-rendered, no JavaScript: a plain form POST saves), and its branding.
import { Elysia, t } from "elysia";
import { AppError, notFound, validationFailed } from "../../basics/errors";
import { centerView, fieldName, saveFromCenter, type CenterLanguage, type CenterView } from "../../domain/preferences/center";
import { DEFAULT_LINK_TTL_S, MAX_LINK_TTL_S, preferenceLink, verifyPreferenceToken } from "../../domain/preferences/link-token";
import { writeAudit } from "../../store/audit";
import { sql } from "../../store/db";
import { brandColorOf, setBrandColor } from "../../store/preference-center";
import { findSubscriber } from "../../store/subscribers";
import { accessPlugin } from "../plugins/access";
import { scopeOf } from "../plugins/auth";
import { BODY_ERRORS, errors, KEY_ERRORS } from "../route-docs";

const COLOR_RE = /^#[0-9a-fA-F]{6}$/;

const TEXT: Record<CenterLanguage, Record<string, string>> = {
  en: {
    title: "Notification preferences",
    heading: "Preferences",
    intro: "Choose how {tenant} may reach you.",
    save: "Save preferences",
    saved: "Your preferences were saved.",
    required: "Required: always sent",
    invalid: "This link is invalid.",
    expired: "This link has expired. Ask for a new one.",
    gone: "There is nothing to show for this link.",
    email: "Email",
    whatsapp: "WhatsApp",
    sms: "SMS",
    in_app: "In the app",
    push: "Push",
    other: "Other",
  },
  pt_BR: {
    title: "Preferências de notificação",
    heading: "Preferências",
    intro: "Escolha como {tenant} pode falar com você.",
    save: "Salvar preferências",
    saved: "Suas preferências foram salvas.",
    required: "Obrigatória: sempre enviada",
    invalid: "Este link é inválido.",
    expired: "Este link expirou. Peça um novo.",
    gone: "Não há nada para mostrar neste link.",
    email: "E-mail",
    whatsapp: "WhatsApp",
    sms: "SMS",
    in_app: "No aplicativo",
    push: "Notificação push",
    other: "Outras",
  },
};

const esc = (s: string) => s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);

const HEADERS = {
  "content-type": "text/html; charset=utf-8",
  "cache-control": "no-store",
  "referrer-policy": "no-referrer",
  "x-robots-tag": "noindex",
  // no script at all; the form posts to this page's own origin
  "content-security-policy": "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
};

function html(status: number, lang: CenterLanguage, title: string, color: string, inner: string): Response {
  const body = `<!doctype html><html lang="${lang === "pt_BR" ? "pt-BR" : "en"}"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1"><title>${esc(title)}</title>
<style>
body{font-family:system-ui,sans-serif;max-width:40rem;margin:2rem auto;padding:0 1rem;color:#1f2937}
header{border-bottom:4px solid ${color};margin-bottom:1.5rem}
h1{font-size:1.5rem}
fieldset{border:1px solid #d1d5db;border-radius:.5rem;margin:0 0 1rem;padding:.75rem 1rem}
legend{font-weight:600;padding:0 .25rem}
.desc{color:#4b5563;margin:.25rem 0 .5rem}
label{display:inline-flex;gap:.35rem;align-items:center;margin:.25rem 1rem .25rem 0}
.locked{color:#6b7280;font-size:.9rem}
button{background:${color};color:#fff;border:0;border-radius:.375rem;font-size:1rem;padding:.6rem 1.2rem;cursor:pointer}
button:focus-visible,input:focus-visible{outline:3px solid #111827;outline-offset:2px}
.notice{background:#ecfdf5;border:1px solid #10b981;padding:.5rem .75rem;border-radius:.375rem}
</style></head><body>${inner}</body></html>`;
  return new Response(body, { status, headers: HEADERS });
}

/**
 * A refused link: whoever opened the link (a browser, curl, no Accept header) gets a page (400
 * tampered, 410 expired, 404 the subscriber is gone); a client asking for JSON (Accept names
 * application/json and not text/html) the standard error body (400 invalid_token, 404).
 */
function wantsJson(request: Request): boolean {
  const accept = (request.headers.get("accept") ?? "").toLowerCase();
  return accept.includes("application/json") && !accept.includes("text/html");
}

/**
 * The language of a page for a link that names no subscriber we can trust: the browser's first
 * Accept-Language entry we have (Portuguese, any region, reads pt_BR), else English.
 */
function refusedPageLanguage(acceptLanguage: string | null): CenterLanguage {
  const tags = (acceptLanguage ?? "")
    .split(",")
    .map((part, i) => {
      const [tag, ...params] = part.trim().toLowerCase().split(";");
      const q = Number(params.find((x) => x.trim().startsWith("q="))?.trim().slice(2) ?? 1);
      return { tag: tag!, q: Number.isFinite(q) ? q : 0, i };
    })
    .filter((t) => t.tag && t.q > 0)
    .sort((a, b) => b.q - a.q || a.i - b.i);
  for (const { tag } of tags) {
    if (tag === "pt" || tag.startsWith("pt-")) return "pt_BR";
    if (tag === "en" || tag.startsWith("en-")) return "en";
  }
  return "en";
}

function refuse(request: Request, kind: "invalid" | "expired" | "gone"): Response {
  if (!wantsJson(request)) {
    const status = kind === "invalid" ? 400 : kind === "expired" ? 410 : 404;
    const lang = refusedPageLanguage(request.headers.get("accept-language"));
    const tx = TEXT[lang];
    return html(status, lang, tx.heading!, "#6b7280", `<main><h1>${esc(tx.heading!)}</h1><p>${esc(tx[kind]!)}</p></main>`);
  }
  if (kind === "gone") throw notFound("subscriber_not_found", "The subscriber of this link no longer exists");
  throw new AppError("invalid_token", kind === "expired" ? "The preference link has expired" : "The preference link is invalid or has been tampered with");
}

function centerPage(token: string, v: CenterView, saved: boolean): Response {
  const tx = TEXT[v.language];
  const sections = v.categories
    .map((c, k) => {
      const name = c.key === "other" ? tx.other! : c.name;
      const desc = c.description ? `<p class="desc" id="d${k}">${esc(c.description)}</p>` : "";
      const lockedId = `l${k}`;
      const boxes = c.channels
        .map((ch) => {
          const label = tx[ch.channel] ?? ch.channel;
          if (ch.locked || c.key === "other") {
            return `<label><input type="checkbox" ${ch.enabled ? "checked" : ""} disabled aria-describedby="${lockedId}"> ${esc(label)}</label>`;
          }
          return `<label><input type="checkbox" name="${esc(fieldName(c.key, ch.channel))}" ${ch.enabled ? "checked" : ""}> ${esc(label)}</label>`;
        })
        .join("");
      const locked = c.required ? `<p class="locked" id="${lockedId}">${esc(tx.required!)}</p>` : "";
      return `<fieldset${c.description ? ` aria-describedby="d${k}"` : ""}><legend>${esc(name)}</legend>${desc}${boxes}${locked}</fieldset>`;
    })
    .join("");
  const notice = saved ? `<p class="notice" role="status">${esc(tx.saved!)}</p>` : "";
  const inner =
    `<header><p><strong>${esc(v.tenantName)}</strong></p><h1>${esc(tx.title!)}</h1></header><main>${notice}` +
    `<p>${esc(tx.intro!.replace("{tenant}", v.tenantName))}</p>` +
    `<form method="post" action="/preferences/${esc(encodeURIComponent(token))}">${sections}` +
    `<input type="hidden" name="_" value="1"><button type="submit">${esc(tx.save!)}</button></form></main>`;
  return html(200, v.language, `${tx.title} · ${v.tenantName}`, v.color, inner);
}

const TokenParams = t.Object({ token: t.String({ description: "The signed token of the preference link" }) });
const HtmlPage = (description: string) => t.String({ contentMediaType: "text/html", description, examples: ["<!doctype html>..."] });

const LinkBody = t.Optional(
  t.Object(
    { expires_in: t.Optional(t.Integer({ description: `Seconds the link stays valid: 60 to ${MAX_LINK_TTL_S}; default ${DEFAULT_LINK_TTL_S} (7 days)` })) },
    { examples: [{ expires_in: 86400 }] },
  ),
);
const LinkResponse = t.Object(
  { data: t.Object({ url: t.String(), expires_at: t.String() }) },
  { examples: [{ data: { url: "https://nms.example.com/preferences/eyJ2Ijoi...", expires_at: "2025-08-08T12:00:00.000Z" } }] },
);
const SettingsBody = t.Object(
  { brand_color: t.String({ description: "#rrggbb: the page's accent color beside the tenant's name" }) },
  { examples: [{ brand_color: "#0f766e" }] },
);
const SettingsResponse = t.Object({ data: t.Object({ brand_color: t.String() }) }, { examples: [{ data: { brand_color: "#0f766e" } }] });
const SubscriberParams = t.Object({ id: t.String({ description: "Subscriber id or external_id" }) });
const FormBody = t.Optional(
  t.Record(t.String(), t.String(), {
    description: "urlencoded: one `p:<category>:<channel>=on` per checked switch (unchecked ones are absent)",
    examples: [{ "p:marketing:email": "on", _: "1" }],
  }),
);

export const preferenceCenterRoutes = new Elysia({ name: "routes.preference-center" })
  .use(accessPlugin)
  .post(
    "/v1/subscribers/:id/preference-link",
    async ({ auth, params, body, set }) => {
      const ttl = body?.expires_in ?? DEFAULT_LINK_TTL_S;
      if (ttl < 60 || ttl > MAX_LINK_TTL_S) throw validationFailed({ expires_in: [`must be between 60 and ${MAX_LINK_TTL_S} seconds`] });
      const sub = await findSubscriber(scopeOf(auth), params.id);
      if (!sub) throw notFound("subscriber_not_found", "Subscriber not found");
      const link = preferenceLink({ tenantId: auth.tenantId, environment: auth.environment, subscriberId: sub.id }, ttl);
      set.status = 201;
      return { data: { url: link.url, expires_at: link.expires_at } };
    },
    {
      access: "secret-write",
      params: SubscriberParams,
      body: LinkBody,
      response: { 201: LinkResponse, ...errors(KEY_ERRORS, BODY_ERRORS, 404) },
      detail: {
        summary: "A signed, expiring link to the subscriber's hosted preference center",
        description: "Anyone holding the URL can change this subscriber's preferences until expires_at; send it to the subscriber only.",
        tags: ["preferences"],
      },
    },
  )
  .get(
    "/v1/preference-center/settings",
    async ({ auth }) => ({ data: { brand_color: await brandColorOf(scopeOf(auth)) } }),
    {
      access: "secret-read",
      response: { 200: SettingsResponse, ...errors(KEY_ERRORS) },
      detail: { summary: "The preference center's branding", description: "What the hosted preference center page shows besides the subscriber's choices.", tags: ["preferences"] },
    },
  )
  .put(
    "/v1/preference-center/settings",
    async ({ auth, body }) => {
      if (!COLOR_RE.test(body.brand_color)) throw validationFailed({ brand_color: ["must be a color such as #2563eb"] });
      const color = body.brand_color.toLowerCase();
      await sql.begin(async (tx) => {
        await setBrandColor(tx, scopeOf(auth), color);
        await writeAudit(tx, {
          tenantId: auth.tenantId,
          actorType: auth.actorType,
          actorId: auth.actorId,
          action: "preference_center.updated",
          resourceType: "preference_center",
          resourceId: null,
          metadata: { environment: auth.environment, brand_color: color },
          ip: auth.ip,
          userAgent: auth.userAgent,
        });
      });
      return { data: { brand_color: color } };
    },
    {
      access: "secret-write",
      body: SettingsBody,
      response: { 200: SettingsResponse, ...errors(KEY_ERRORS, BODY_ERRORS) },
      detail: { summary: "Set the preference center's branding (the tenant's name is shown with it)", description: "Applies to pages opened from then on.", tags: ["preferences"] },
    },
  )
  .get(
    "/preferences/:token",
    async ({ params, request }) => {
      const check = verifyPreferenceToken(params.token);
      if (!check.ok) return refuse(request, check.reason);
      const view = await centerView(check.claims);
      if (!view) return refuse(request, "gone");
      return centerPage(params.token, view, new URL(request.url).searchParams.get("saved") === "1");
    },
    {
      access: "public",
      params: TokenParams,
      response: { 200: HtmlPage("The subscriber's categories and channels, a form that POSTs back"), ...errors(400, 404) },
      detail: {
        summary: "Hosted preference center page",
        description:
          "`?saved=1` adds the saved notice. A refused link gets a page with 400 (tampered), 410 (expired) " +
          "or 404 (subscriber gone); a client asking for JSON only (Accept: application/json) the error body (400 invalid_token, 404 subscriber_not_found).",
        tags: ["recipient-links"],
      },
    },
  )
  .post(
    "/preferences/:token",
    async ({ params, body, request, server }) => {
      const check = verifyPreferenceToken(params.token);
      if (!check.ok) return refuse(request, check.reason);
      const ip = server?.requestIP(request)?.address ?? null;
      const saved = await saveFromCenter(check.claims, (body ?? {}) as Record<string, unknown>, { ip, userAgent: request.headers.get("user-agent") });
      if (saved === null) return refuse(request, "gone");
      // post/redirect/get: a reload does not post again
      return new Response(null, { status: 303, headers: { location: `/preferences/${encodeURIComponent(params.token)}?saved=1`, "cache-control": "no-store" } });
    },
    {
      access: "public",
      params: TokenParams,
      body: FormBody,
      parse: ["urlencoded", "formdata"],
      response: { 303: t.Void({ description: "Saved: back to the page with ?saved=1" }), ...errors(400, 404, 413, 415, 422) },
      detail: {
        summary: "Save the hosted preference center's form",
        description: "A refused link changes nothing and answers as the page does (HTML 400/410/404; the error body for Accept: application/json).",
        tags: ["recipient-links"],
      },
    },
  );
