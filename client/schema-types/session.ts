// Generated from schemas/session.ts by scripts/generate-client-types.ts: do not edit. The types
// Static<typeof Schema> gives for each TypeBox schema the server validates with, so @nms/client needs neither.

export type CallbackQuery = {
  code?: string;
  state?: string;
  error?: string;
};

export type MagicLinkBody = {
  /** Address to send the login link to */
  email: string;
};

export type MagicLinkSent = {
  data: {
    sent: boolean;
  };
};

export type Me = {
  id: string;
  email: string;
  name: string | null;
  tenant_id: string;
  /** The tenant's name (the dashboard shows it in its header) */
  tenant_name: string;
  role: "owner" | "admin" | "member";
};

export type MeResponse = {
  data: {
    id: string;
    email: string;
    name: string | null;
    tenant_id: string;
    /** The tenant's name (the dashboard shows it in its header) */
    tenant_name: string;
    role: "owner" | "admin" | "member";
  };
};

export type OAuthProviderList = {
  data: {
    name: "google" | "github";
    /** PUBLIC_URL/auth/<name>: open it in the browser to sign in */
    start_url: string;
  }[];
};

export type ProviderParams = {
  provider: string;
};

export type SessionResponse = {
  data: {
    id: string;
    email: string;
    name: string | null;
    tenant_id: string;
    /** The tenant's name (the dashboard shows it in its header) */
    tenant_name: string;
    role: "owner" | "admin" | "member";
  } | null;
};

export type VerifyQuery = {
  token?: string;
};
