// TypeBox schemas of the dashboard session routes (/auth/* and /v1/me).
import { t } from "elysia";

export const MagicLinkBody = t.Object(
  { email: t.String({ maxLength: 320, description: "Address to send the login link to" }) },
  { examples: [{ email: "ana@acme.example" }] },
);

export const MagicLinkSent = t.Object({ data: t.Object({ sent: t.Boolean() }) }, { examples: [{ data: { sent: true } }] });

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
  tenant_name: t.String({ description: "The tenant's name (the dashboard shows it in its header)" }),
  role: t.Union([t.Literal("owner"), t.Literal("admin"), t.Literal("member")]),
});

export const MeResponse = t.Object(
  { data: Me },
  {
    examples: [
      { data: { id: "0198c3a1-2222-7333-8444-555566667777", email: "ana@acme.example", name: "Ana Souza", tenant_id: "0198c3a0-1111-7222-8333-444455556666", tenant_name: "Acme Store", role: "owner" } },
    ],
  },
);

/** GET /auth/providers: the OAuth providers this server has credentials for (a sign-in page shows only these). */
export const OAuthProviderList = t.Object(
  {
    data: t.Array(
      t.Object({
        name: t.Union([t.Literal("google"), t.Literal("github")]),
        start_url: t.String({ description: "PUBLIC_URL/auth/<name>: open it in the browser to sign in" }),
      }),
    ),
  },
  { examples: [{ data: [{ name: "github", start_url: "https://nms.example.com/auth/github" }] }] },
);

/** GET /auth/session: the signed-in user, or null without a valid session cookie. */
export const SessionResponse = t.Object(
  { data: t.Union([Me, t.Null()]) },
  { examples: [{ data: null }] },
);
