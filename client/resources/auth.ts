// nms.auth: dashboard sign-in outside /v1: who is signed in (or null), the configured OAuth providers,
// a magic link by email, sign-out (GET /auth/session, GET /auth/providers, POST /auth/magic-link, DELETE /auth/logout).
import type { RequestOptions, Transport } from "../transport.js";
import type { MagicLinkParams, MagicLinkResult, Me, OAuthProvider } from "../types.js";

export class Auth {
  constructor(private readonly transport: Transport) {}

  /** The user behind the session cookie, or null when there is none (never a 401, unlike me.retrieve()). */
  session(opts?: RequestOptions): Promise<Me | null> {
    return this.transport.data({ method: "GET", path: "/auth/session" }, opts);
  }

  /** The OAuth providers this server is configured for; open a provider's `start_url` to sign in with it. */
  providers(opts?: RequestOptions): Promise<OAuthProvider[]> {
    return this.transport.data({ method: "GET", path: "/auth/providers" }, opts);
  }

  /** Mails a sign-in link (without SMTP_URL the server logs it). The answer is the same for known and unknown addresses. */
  requestMagicLink(params: MagicLinkParams, opts?: RequestOptions): Promise<MagicLinkResult> {
    return this.transport.data({ method: "POST", path: "/auth/magic-link", body: params }, opts);
  }

  /** Ends the session behind the cookie (session mode); resolves also when there was none. */
  logout(opts?: RequestOptions): Promise<void> {
    return this.transport.request({ method: "DELETE", path: "/auth/logout" }, opts);
  }
}
