// Generated from schemas/blocked-domains.ts by scripts/generate-client-types.ts: do not edit. The types
// Static<typeof Schema> gives for each TypeBox schema the server validates with, so @nms/client needs neither.

export type BlockDomainBody = {
  /** A domain such as example.com; its subdomains are blocked too */
  domain: string;
};

export type BlockedCheck = {
  data: {
    email: string;
    blocked: boolean;
  };
};

export type BlockedCheckQuery = {
  /** The address to check */
  email?: string;
};

export type BlockedDomain = {
  domain: string;
  /** seed: from the disposable-email-domains package; manual: blocked by an admin */
  source: "seed" | "manual";
  created_at: string;
};

export type BlockedDomainList = {
  data: {
    domain: string;
    /** seed: from the disposable-email-domains package; manual: blocked by an admin */
    source: "seed" | "manual";
    created_at: string;
  }[];
  meta: {
    cursor: string | null;
    has_more: boolean;
  };
};

export type BlockedDomainListQuery = {
  /** Substring of the domain */
  search?: string;
  /** 1-500, default 50 */
  limit?: string;
  /** meta.cursor of the previous page */
  cursor?: string;
};

export type BlockedDomainParams = {
  domain: string;
};

export type BlockedDomainResponse = {
  data: {
    domain: string;
    /** seed: from the disposable-email-domains package; manual: blocked by an admin */
    source: "seed" | "manual";
    created_at: string;
  };
};
