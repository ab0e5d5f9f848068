// Generated from schemas/domains.ts by scripts/generate-client-types.ts: do not edit. The types
// Static<typeof Schema> gives for each TypeBox schema the server validates with, so @nms/client needs neither.

export const CHECK_NAMES = ["spf","dkim","dmarc"] as const;

export const CHECK_STATUS_VALUES = ["pass","fail","missing"] as const;

export type CreateDomainBody = {
  /** Domain name, e.g. mail.example.com (no scheme, no trailing dot needed) */
  domain: string;
};

export type DnsRecords = {
  /** Ownership: `_nms-verify.<domain>` = `nms-verification=<token>` */
  txt: {
    /** Fully qualified name of the record */
    name: string;
    type: "TXT";
    /** Text to publish (the DNS provider may split a long value into 255-character strings) */
    value: string;
  };
  /** SPF at the domain itself, including SPF_INCLUDE when the service sets one */
  spf: {
    /** Fully qualified name of the record */
    name: string;
    type: "TXT";
    /** Text to publish (the DNS provider may split a long value into 255-character strings) */
    value: string;
  };
  /** The domain's DKIM public key at `<selector>._domainkey.<domain>` */
  dkim: {
    /** Fully qualified name of the record */
    name: string;
    type: "TXT";
    /** Text to publish (the DNS provider may split a long value into 255-character strings) */
    value: string;
  };
  /** A DMARC policy at `_dmarc.<domain>` */
  dmarc: {
    /** Fully qualified name of the record */
    name: string;
    type: "TXT";
    /** Text to publish (the DNS provider may split a long value into 255-character strings) */
    value: string;
  };
};

export type Domain = {
  id: string;
  /** Lower-case ASCII (punycode) domain name */
  domain: string;
  /** pending at creation; verified after a successful DNS check */
  status: "pending" | "verified";
  dns_records: {
    /** Ownership: `_nms-verify.<domain>` = `nms-verification=<token>` */
    txt: {
      /** Fully qualified name of the record */
      name: string;
      type: "TXT";
      /** Text to publish (the DNS provider may split a long value into 255-character strings) */
      value: string;
    };
    /** SPF at the domain itself, including SPF_INCLUDE when the service sets one */
    spf: {
      /** Fully qualified name of the record */
      name: string;
      type: "TXT";
      /** Text to publish (the DNS provider may split a long value into 255-character strings) */
      value: string;
    };
    /** The domain's DKIM public key at `<selector>._domainkey.<domain>` */
    dkim: {
      /** Fully qualified name of the record */
      name: string;
      type: "TXT";
      /** Text to publish (the DNS provider may split a long value into 255-character strings) */
      value: string;
    };
    /** A DMARC policy at `_dmarc.<domain>` */
    dmarc: {
      /** Fully qualified name of the record */
      name: string;
      type: "TXT";
      /** Text to publish (the DNS provider may split a long value into 255-character strings) */
      value: string;
    };
  };
  verification_error: string | null;
  verified_at: string | null;
  /** Hold email from this domain as failed (domain_unhealthy) while its DKIM or SPF check fails */
  block_on_failure: boolean;
  health: {
    checked_at: string;
    spf: {
      /** pass, fail or missing */
      status: "pass" | "fail" | "missing";
      record: string | null;
      /** Why the check has this status */
      message: string;
    };
    dkim: {
      /** pass, fail or missing */
      status: "pass" | "fail" | "missing";
      record: string | null;
      /** Why the check has this status */
      message: string;
    };
    dmarc: {
      /** pass, fail or missing */
      status: "pass" | "fail" | "missing";
      record: string | null;
      /** Why the check has this status */
      message: string;
    };
  } | null;
  created_at: string;
  updated_at: string;
};

export type DomainAlert = {
  id: string;
  domain_id: string;
  domain: string;
  /** spf, dkim or dmarc */
  check: "spf" | "dkim" | "dmarc";
  /** The check's status when it stopped passing */
  status: "fail" | "missing";
  message: string;
  created_at: string;
  resolved_at: string | null;
};

export type DomainAlertListQuery = {
  /** 1-100, default 20 */
  limit?: string;
  cursor?: string;
  /** Only this domain's alerts */
  domain_id?: string;
};

export type DomainAlertListResponse = {
  data: {
    id: string;
    domain_id: string;
    domain: string;
    /** spf, dkim or dmarc */
    check: "spf" | "dkim" | "dmarc";
    /** The check's status when it stopped passing */
    status: "fail" | "missing";
    message: string;
    created_at: string;
    resolved_at: string | null;
  }[];
  meta: {
    cursor: string | null;
    has_more: boolean;
  };
};

export type DomainHealth = {
  checked_at: string;
  spf: {
    /** pass, fail or missing */
    status: "pass" | "fail" | "missing";
    record: string | null;
    /** Why the check has this status */
    message: string;
  };
  dkim: {
    /** pass, fail or missing */
    status: "pass" | "fail" | "missing";
    record: string | null;
    /** Why the check has this status */
    message: string;
  };
  dmarc: {
    /** pass, fail or missing */
    status: "pass" | "fail" | "missing";
    record: string | null;
    /** Why the check has this status */
    message: string;
  };
};

export type DomainHealthResponse = {
  data: {
    checked_at: string;
    spf: {
      /** pass, fail or missing */
      status: "pass" | "fail" | "missing";
      record: string | null;
      /** Why the check has this status */
      message: string;
    };
    dkim: {
      /** pass, fail or missing */
      status: "pass" | "fail" | "missing";
      record: string | null;
      /** Why the check has this status */
      message: string;
    };
    dmarc: {
      /** pass, fail or missing */
      status: "pass" | "fail" | "missing";
      record: string | null;
      /** Why the check has this status */
      message: string;
    };
  };
};

export type DomainIdParams = {
  id: string;
};

export type DomainListQuery = {
  /** 1-100, default 20 */
  limit?: string;
  cursor?: string;
};

export type DomainListResponse = {
  data: {
    id: string;
    /** Lower-case ASCII (punycode) domain name */
    domain: string;
    /** pending at creation; verified after a successful DNS check */
    status: "pending" | "verified";
    dns_records: {
      /** Ownership: `_nms-verify.<domain>` = `nms-verification=<token>` */
      txt: {
        /** Fully qualified name of the record */
        name: string;
        type: "TXT";
        /** Text to publish (the DNS provider may split a long value into 255-character strings) */
        value: string;
      };
      /** SPF at the domain itself, including SPF_INCLUDE when the service sets one */
      spf: {
        /** Fully qualified name of the record */
        name: string;
        type: "TXT";
        /** Text to publish (the DNS provider may split a long value into 255-character strings) */
        value: string;
      };
      /** The domain's DKIM public key at `<selector>._domainkey.<domain>` */
      dkim: {
        /** Fully qualified name of the record */
        name: string;
        type: "TXT";
        /** Text to publish (the DNS provider may split a long value into 255-character strings) */
        value: string;
      };
      /** A DMARC policy at `_dmarc.<domain>` */
      dmarc: {
        /** Fully qualified name of the record */
        name: string;
        type: "TXT";
        /** Text to publish (the DNS provider may split a long value into 255-character strings) */
        value: string;
      };
    };
    verification_error: string | null;
    verified_at: string | null;
    /** Hold email from this domain as failed (domain_unhealthy) while its DKIM or SPF check fails */
    block_on_failure: boolean;
    health: {
      checked_at: string;
      spf: {
        /** pass, fail or missing */
        status: "pass" | "fail" | "missing";
        record: string | null;
        /** Why the check has this status */
        message: string;
      };
      dkim: {
        /** pass, fail or missing */
        status: "pass" | "fail" | "missing";
        record: string | null;
        /** Why the check has this status */
        message: string;
      };
      dmarc: {
        /** pass, fail or missing */
        status: "pass" | "fail" | "missing";
        record: string | null;
        /** Why the check has this status */
        message: string;
      };
    } | null;
    created_at: string;
    updated_at: string;
  }[];
  meta: {
    cursor: string | null;
    has_more: boolean;
  };
};

export type DomainResponse = {
  data: {
    id: string;
    /** Lower-case ASCII (punycode) domain name */
    domain: string;
    /** pending at creation; verified after a successful DNS check */
    status: "pending" | "verified";
    dns_records: {
      /** Ownership: `_nms-verify.<domain>` = `nms-verification=<token>` */
      txt: {
        /** Fully qualified name of the record */
        name: string;
        type: "TXT";
        /** Text to publish (the DNS provider may split a long value into 255-character strings) */
        value: string;
      };
      /** SPF at the domain itself, including SPF_INCLUDE when the service sets one */
      spf: {
        /** Fully qualified name of the record */
        name: string;
        type: "TXT";
        /** Text to publish (the DNS provider may split a long value into 255-character strings) */
        value: string;
      };
      /** The domain's DKIM public key at `<selector>._domainkey.<domain>` */
      dkim: {
        /** Fully qualified name of the record */
        name: string;
        type: "TXT";
        /** Text to publish (the DNS provider may split a long value into 255-character strings) */
        value: string;
      };
      /** A DMARC policy at `_dmarc.<domain>` */
      dmarc: {
        /** Fully qualified name of the record */
        name: string;
        type: "TXT";
        /** Text to publish (the DNS provider may split a long value into 255-character strings) */
        value: string;
      };
    };
    verification_error: string | null;
    verified_at: string | null;
    /** Hold email from this domain as failed (domain_unhealthy) while its DKIM or SPF check fails */
    block_on_failure: boolean;
    health: {
      checked_at: string;
      spf: {
        /** pass, fail or missing */
        status: "pass" | "fail" | "missing";
        record: string | null;
        /** Why the check has this status */
        message: string;
      };
      dkim: {
        /** pass, fail or missing */
        status: "pass" | "fail" | "missing";
        record: string | null;
        /** Why the check has this status */
        message: string;
      };
      dmarc: {
        /** pass, fail or missing */
        status: "pass" | "fail" | "missing";
        record: string | null;
        /** Why the check has this status */
        message: string;
      };
    } | null;
    created_at: string;
    updated_at: string;
  };
};

export type HealthCheck = {
  /** pass, fail or missing */
  status: "pass" | "fail" | "missing";
  record: string | null;
  /** Why the check has this status */
  message: string;
};

export type UpdateDomainBody = {
  /** true: hold email from this domain while its DKIM or SPF check fails */
  block_on_failure: boolean;
};
