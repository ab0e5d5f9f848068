// Generated from schemas/inbox-embed.ts by scripts/generate-client-types.ts: do not edit. The types
// Static<typeof Schema> gives for each TypeBox schema the server validates with, so @nms/client needs neither.

export type AllowedOrigin = {
  id: string;
  origin: string;
  created_at: string;
};

export type AllowedOriginList = {
  data: {
    id: string;
    origin: string;
    created_at: string;
  }[];
};

export type AllowedOriginResponse = {
  data: {
    id: string;
    origin: string;
    created_at: string;
  };
};

export type CreateAllowedOriginBody = {
  /** scheme://host[:port]: no path, no trailing slash, no wildcard */
  origin: string;
};

export type EmbedSettings = {
  developer_mode: boolean;
  allowed_origins_count: number;
  /** This environment's HMAC key of X-Subscriber-Hash (DESIGN.md 5); secret keys only */
  inbox_secret: string;
};

export type EmbedSettingsResponse = {
  data: {
    developer_mode: boolean;
    allowed_origins_count: number;
    /** This environment's HMAC key of X-Subscriber-Hash (DESIGN.md 5); secret keys only */
    inbox_secret: string;
  };
};

export type OriginIdParams = {
  id: string;
};

export type UpdateEmbedSettingsBody = {
  developer_mode: boolean;
};
