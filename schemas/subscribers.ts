// TypeBox schemas of the subscriber routes (SPEC "Subscribers", DESIGN.md 6): bodies, queries
// and the subscriber record. Field rules beyond types live in domain/subscribers/validation.ts.
import { t } from "elysia";

// Field types are checked by domain/subscribers/validation.ts, which reports every field at
// once with readable messages (and refuses unknown fields); the schema documents them.
const Field = (type: string, description: string) => t.Optional(t.Unknown({ description: `${type}. ${description}` }));

/** A subscriber as the API shows it, for the examples of the document. */
const FIELDS_EXAMPLE = {
  external_id: "user_123",
  email: "ana@example.com",
  phone: "+5511912345678",
  name: "Ana Souza",
  locale: "pt-BR",
  timezone: "America/Sao_Paulo",
  custom_properties: { plan: "pro" },
};
export const SUBSCRIBER_EXAMPLE = {
  id: "0198c3b2-6f1e-7c3a-9d2b-5e8f1a2b3c4d",
  ...FIELDS_EXAMPLE,
  consent: { given_at: "2025-08-01T12:00:00.000Z", ip: "203.0.113.7", method: "api" },
  created_at: "2025-08-01T12:00:00.000Z",
  updated_at: "2025-08-01T12:00:00.000Z",
};

/** POST /v1/subscribers and PUT /v1/subscribers/:id. */
export const SubscriberBody = t.Object(
  {
    external_id: Field("string", "Caller's user id; the upsert key (required on POST, can not change on PUT)."),
    email: Field("string|null", "Email address; disposable domains are refused."),
    phone: Field("string|null", "E.164, e.g. +5511912345678."),
    name: Field("string|null", "Display name."),
    locale: Field("string|null", "BCP 47 tag, pt-BR or pt_BR."),
    timezone: Field("string|null", "IANA time zone, e.g. America/Sao_Paulo."),
    custom_properties: Field("object|null", "Key-value data, at most 64 KiB as JSON."),
  },
  // A schema, not `true`: the request normalizer (TypeBox Clean) keeps only extra keys that match
  // one, and the unknown ones must reach domain/subscribers/validation.ts to be refused by name.
  {
    additionalProperties: t.Unknown(),
    examples: [FIELDS_EXAMPLE],
  },
);

export const ImportBody = t.Object(
  { subscribers: t.Array(t.Unknown(), { description: "Up to 1,000 subscriber objects; all-or-nothing." }) },
  {
    examples: [
      {
        subscribers: [
          { external_id: "user_123", email: "ana@example.com", name: "Ana Souza" },
          { external_id: "user_124", phone: "+5511987654321", locale: "en-US" },
        ],
      },
    ],
  },
);

export const ListQuery = t.Object({
  limit: t.Optional(t.String({ description: "1-100, default 20" })),
  offset: t.Optional(t.String({ description: ">= 0, default 0" })),
  search: t.Optional(t.String({ description: "Case-insensitive substring of email, name or external_id" })),
});

export const SubscriberParams = t.Object({ id: t.String({ description: "Subscriber id or external_id" }) });

export const Consent = t.Object({
  given_at: t.Union([t.String(), t.Null()]),
  ip: t.Union([t.String(), t.Null()]),
  method: t.Union([t.String(), t.Null()]),
});

export const SubscriberRecord = t.Object({
  id: t.String(),
  external_id: t.String(),
  email: t.Union([t.String(), t.Null()]),
  phone: t.Union([t.String(), t.Null()]),
  name: t.Union([t.String(), t.Null()]),
  locale: t.Union([t.String(), t.Null()]),
  timezone: t.Union([t.String(), t.Null()]),
  custom_properties: t.Record(t.String(), t.Unknown()),
  consent: t.Union([Consent, t.Null()]),
  created_at: t.String(),
  updated_at: t.String(),
});

export const SubscriberResponse = t.Object({ data: SubscriberRecord }, { examples: [{ data: SUBSCRIBER_EXAMPLE }] });
export const SubscriberListResponse = t.Object(
  {
    data: t.Array(SubscriberRecord),
    meta: t.Object({ total: t.Integer(), limit: t.Integer(), offset: t.Integer() }),
  },
  { examples: [{ data: [SUBSCRIBER_EXAMPLE], meta: { total: 1, limit: 20, offset: 0 } }] },
);
export const ImportResponse = t.Object(
  { data: t.Object({ imported: t.Integer(), subscribers: t.Array(SubscriberRecord) }) },
  { examples: [{ data: { imported: 1, subscribers: [SUBSCRIBER_EXAMPLE] } }] },
);

/** 422 of the import: the standard error body plus `index` of the failing entry (DESIGN.md 4). */
export const ImportErrorResponse = t.Object(
  {
    error: t.Object({
      code: t.String(),
      message: t.String(),
      details: t.Record(t.String(), t.Array(t.String())),
      index: t.Integer(),
    }),
  },
  {
    description: "validation_failed on the first invalid entry (error.index); nothing was imported",
    examples: [
      {
        error: {
          code: "validation_failed",
          message: "Subscriber at index 1 is invalid; nothing was imported",
          details: { "subscribers[1].email": ["must be a valid email address"] },
          index: 1,
        },
      },
    ],
  },
);
