// Generated from schemas/preference-categories.ts by scripts/generate-client-types.ts: do not edit. The types
// Static<typeof Schema> gives for each TypeBox schema the server validates with, so @nms/client needs neither.

export type PreferenceCategory = {
  id: string;
  key: string;
  name: string;
  description: string | null;
  default_enabled_channels: string[];
  required: boolean;
  created_at: string;
  updated_at: string;
};

export type PreferenceCategoryCreateBody = {
  /** What a notification's or workflow step's `category` names: lowercase letters, digits, - and _ */
  key: string;
  /** Shown to subscribers (preference center) */
  name: string;
  description?: string | null;
  /** Channels on for a subscriber who chose nothing (email, whatsapp, sms, in_app or push); default every channel */
  default_enabled_channels?: string[];
  /** Cannot be turned off (security, billing): always sent, shown locked */
  required?: boolean;
};

export type PreferenceCategoryListResponse = {
  data: {
    id: string;
    key: string;
    name: string;
    description: string | null;
    default_enabled_channels: string[];
    required: boolean;
    created_at: string;
    updated_at: string;
  }[];
};

export type PreferenceCategoryParams = {
  /** The category's key, or its id */
  key: string;
};

export type PreferenceCategoryResponse = {
  data: {
    id: string;
    key: string;
    name: string;
    description: string | null;
    default_enabled_channels: string[];
    required: boolean;
    created_at: string;
    updated_at: string;
  };
};

export type PreferenceCategoryUpdateBody = {
  /** What a notification's or workflow step's `category` names: lowercase letters, digits, - and _ */
  key?: string;
  /** Shown to subscribers (preference center) */
  name?: string;
  description?: string | null;
  /** Channels on for a subscriber who chose nothing (email, whatsapp, sms, in_app or push); default every channel */
  default_enabled_channels?: string[];
  /** Cannot be turned off (security, billing): always sent, shown locked */
  required?: boolean;
};
