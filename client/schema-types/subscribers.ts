// Generated from schemas/subscribers.ts by scripts/generate-client-types.ts: do not edit. The types
// Static<typeof Schema> gives for each TypeBox schema the server validates with, so @nms/client needs neither.

export type Consent = {
  given_at: string | null;
  ip: string | null;
  method: string | null;
};

export type ImportBody = {
  /** Up to 1,000 subscriber objects; all-or-nothing. */
  subscribers: unknown[];
};

/** validation_failed on the first invalid entry (error.index); nothing was imported */
export type ImportErrorResponse = {
  error: {
    code: string;
    message: string;
    details: { [key: string]: string[] };
    index: number;
  };
};

export type ImportResponse = {
  data: {
    imported: number;
    subscribers: {
      id: string;
      external_id: string;
      email: string | null;
      phone: string | null;
      name: string | null;
      locale: string | null;
      timezone: string | null;
      custom_properties: { [key: string]: unknown };
      consent: {
        given_at: string | null;
        ip: string | null;
        method: string | null;
      } | null;
      created_at: string;
      updated_at: string;
    }[];
  };
};

export type ListQuery = {
  /** 1-100, default 20 */
  limit?: string;
  /** >= 0, default 0 */
  offset?: string;
  /** Case-insensitive substring of email, name or external_id */
  search?: string;
};

export type SubscriberBody = {
  /** string. Caller's user id; the upsert key (required on POST, can not change on PUT). */
  external_id?: unknown;
  /** string|null. Email address; disposable domains are refused. */
  email?: unknown;
  /** string|null. E.164, e.g. +5511912345678. */
  phone?: unknown;
  /** string|null. Display name. */
  name?: unknown;
  /** string|null. BCP 47 tag, pt-BR or pt_BR. */
  locale?: unknown;
  /** string|null. IANA time zone, e.g. America/Sao_Paulo. */
  timezone?: unknown;
  /** object|null. Key-value data, at most 64 KiB as JSON. */
  custom_properties?: unknown;
  [key: string]: unknown;
};

export type SubscriberListResponse = {
  data: {
    id: string;
    external_id: string;
    email: string | null;
    phone: string | null;
    name: string | null;
    locale: string | null;
    timezone: string | null;
    custom_properties: { [key: string]: unknown };
    consent: {
      given_at: string | null;
      ip: string | null;
      method: string | null;
    } | null;
    created_at: string;
    updated_at: string;
  }[];
  meta: {
    total: number;
    limit: number;
    offset: number;
  };
};

export type SubscriberParams = {
  /** Subscriber id or external_id */
  id: string;
};

export type SubscriberRecord = {
  id: string;
  external_id: string;
  email: string | null;
  phone: string | null;
  name: string | null;
  locale: string | null;
  timezone: string | null;
  custom_properties: { [key: string]: unknown };
  consent: {
    given_at: string | null;
    ip: string | null;
    method: string | null;
  } | null;
  created_at: string;
  updated_at: string;
};

export type SubscriberResponse = {
  data: {
    id: string;
    external_id: string;
    email: string | null;
    phone: string | null;
    name: string | null;
    locale: string | null;
    timezone: string | null;
    custom_properties: { [key: string]: unknown };
    consent: {
      given_at: string | null;
      ip: string | null;
      method: string | null;
    } | null;
    created_at: string;
    updated_at: string;
  };
};
