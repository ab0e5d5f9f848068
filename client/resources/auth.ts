// nms.auth: dashboard sign-in outside /v1: the configured OAuth providers, a magic link by email,
// and sign-out (GET /auth/providers, POST /auth/magic-link, DELETE /auth/logout); no credentials needed.
import type { RequestOptions, Transport } from "../transport";
import type { MagicLinkParams, MagicLinkResult, OAuthProvider } from "../types";

export class Auth {
  constructor(private readonly transport: Transport) {}

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
