// Generated from schemas/api-keys.ts by scripts/generate-client-types.ts: do not edit. The types
// Static<typeof Schema> gives for each TypeBox schema the server validates with, so @nms/client needs neither.

export type CreateGuideKeyBody = {
  name: string;
  permissions?: string[];
  allowed_ips?: string[] | null;
};

export type CreateKeyBody = {
  /** `secret` (default), or `publishable` (alias `public`) */
  key_type?: string;
  label?: string | null;
  /** `production` or `sandbox`; default: the caller's */
  environment?: string;
  /** read, write or both (default both) */
  permissions?: string[];
  allowed_ips?: string[] | null;
};

export type GuideKey = {
  id: string;
  name: string | null;
  permissions: string[];
  allowed_ips: string[] | null;
  created_at: string;
  last_used_at: string | null;
};

export type GuideKeyCreated = {
  data: {
    id: string;
    name: string | null;
    permissions: string[];
    allowed_ips: string[] | null;
    created_at: string;
    last_used_at: string | null;
    key: string;
  };
};

export type GuideKeyList = {
  data: {
    id: string;
    name: string | null;
    permissions: string[];
    allowed_ips: string[] | null;
    created_at: string;
    last_used_at: string | null;
  }[];
  meta: {
    total: number;
    page: number;
    per_page: number;
  };
};

export type GuideKeyListMeta = {
  total: number;
  page: number;
  per_page: number;
};

export type GuideKeyWithRaw = {
  id: string;
  name: string | null;
  permissions: string[];
  allowed_ips: string[] | null;
  created_at: string;
  last_used_at: string | null;
  key: string;
};

export type GuideListQuery = {
  page?: string;
  per_page?: string;
};

export type KeyIdParams = {
  id: string;
};

export type ReferenceKey = {
  id: string;
  key_type: string;
  label: string | null;
  environment: string;
  prefix: string;
  permissions: string[];
  allowed_ips: string[] | null;
  created_at: string;
  last_used_at: string | null;
  expires_at: string | null;
};

export type ReferenceKeyCreated = {
  data: {
    id: string;
    key_type: string;
    label: string | null;
    environment: string;
    prefix: string;
    permissions: string[];
    allowed_ips: string[] | null;
    created_at: string;
    last_used_at: string | null;
    expires_at: string | null;
    raw_key: string;
  };
};

export type ReferenceKeyList = {
  data: {
    id: string;
    key_type: string;
    label: string | null;
    environment: string;
    prefix: string;
    permissions: string[];
    allowed_ips: string[] | null;
    created_at: string;
    last_used_at: string | null;
    expires_at: string | null;
  }[];
};

export type ReferenceKeyWithRaw = {
  id: string;
  key_type: string;
  label: string | null;
  environment: string;
  prefix: string;
  permissions: string[];
  allowed_ips: string[] | null;
  created_at: string;
  last_used_at: string | null;
  expires_at: string | null;
  raw_key: string;
};

export type RevokeQuery = {
  reason?: string;
};

export type RotatedKey = {
  id: string;
  key_type: string;
  label: string | null;
  environment: string;
  prefix: string;
  permissions: string[];
  allowed_ips: string[] | null;
  created_at: string;
  last_used_at: string | null;
  expires_at: string | null;
  raw_key: string;
  rotated_from: {
    id: string;
    prefix: string;
    expires_at: string;
  };
};

export type RotatedKeyResponse = {
  data: {
    id: string;
    key_type: string;
    label: string | null;
    environment: string;
    prefix: string;
    permissions: string[];
    allowed_ips: string[] | null;
    created_at: string;
    last_used_at: string | null;
    expires_at: string | null;
    raw_key: string;
    rotated_from: {
      id: string;
      prefix: string;
      expires_at: string;
    };
  };
};

export type RotateKeyBody = {
  /** default 24 */
  grace_period_hours?: number;
};
