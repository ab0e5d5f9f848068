// TypeBox schemas of the dashboard session routes (/auth/* and /v1/me).
import { t } from "elysia";

export const MagicLinkBody = t.Object({
  email: t.String({ maxLength: 320, description: "Address to send the login link to" }),
});

export const MagicLinkSent = t.Object({ data: t.Object({ sent: t.Boolean() }) });

export const VerifyQuery = t.Object({ token: t.Optional(t.String()) });

export const ProviderParams = t.Object({ provider: t.String() });

export const CallbackQuery = t.Object({
  code: t.Optional(t.String()),
  state: t.Optional(t.String()),
  error: t.Optional(t.String()),
});

export const Me = t.Object({
  id: t.String(),
  email: t.String(),
  name: t.Union([t.String(), t.Null()]),
  tenant_id: t.String(),
  role: t.Union([t.Literal("owner"), t.Literal("admin"), t.Literal("member")]),
});

/** GET /auth/providers: the OAuth providers this server has credentials for (a sign-in page shows only these). */
export const OAuthProviderList = t.Object({
  data: t.Array(
    t.Object({
      name: t.Union([t.Literal("google"), t.Literal("github")]),
      start_url: t.String({ description: "PUBLIC_URL/auth/<name>: open it in the browser to sign in" }),
    }),
  ),
});
