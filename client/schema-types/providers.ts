// Generated from schemas/providers.ts by scripts/generate-client-types.ts: do not edit. The types
// Static<typeof Schema> gives for each TypeBox schema the server validates with, so @nms/client needs neither.

export type ProviderDescription = {
  name: string;
  /** Channels this provider can deliver on */
  channels: string[];
  default_rate_limit_per_second: number;
  /** Secrets: write-only, never returned (a channel lists their names as credential_keys) */
  credential_fields: {
    /** Key in credentials or settings, e.g. from_email */
    name: string;
    required: boolean;
    description: string;
    /** JSON type of the value: string, number, integer, boolean or object (a JSON object such as an FCM service account) */
    type: "string" | "number" | "integer" | "boolean" | "object";
  }[];
  setting_fields: {
    /** Key in credentials or settings, e.g. from_email */
    name: string;
    required: boolean;
    description: string;
    /** JSON type of the value: string, number, integer, boolean or object (a JSON object such as an FCM service account) */
    type: "string" | "number" | "integer" | "boolean" | "object";
  }[];
  /** Channels this provider delivers without any configuration, and in which environments: `inbox` takes in_app everywhere, `sandbox` every other channel in sandbox. A channel with neither a configuration nor a built-in provider refuses sends with 422 channel_not_configured. */
  built_in: {
    channels: string[];
    environments: string[];
  } | null;
};

export type ProviderField = {
  /** Key in credentials or settings, e.g. from_email */
  name: string;
  required: boolean;
  description: string;
  /** JSON type of the value: string, number, integer, boolean or object (a JSON object such as an FCM service account) */
  type: "string" | "number" | "integer" | "boolean" | "object";
};

export type ProviderListResponse = {
  data: {
    name: string;
    /** Channels this provider can deliver on */
    channels: string[];
    default_rate_limit_per_second: number;
    /** Secrets: write-only, never returned (a channel lists their names as credential_keys) */
    credential_fields: {
      /** Key in credentials or settings, e.g. from_email */
      name: string;
      required: boolean;
      description: string;
      /** JSON type of the value: string, number, integer, boolean or object (a JSON object such as an FCM service account) */
      type: "string" | "number" | "integer" | "boolean" | "object";
    }[];
    setting_fields: {
      /** Key in credentials or settings, e.g. from_email */
      name: string;
      required: boolean;
      description: string;
      /** JSON type of the value: string, number, integer, boolean or object (a JSON object such as an FCM service account) */
      type: "string" | "number" | "integer" | "boolean" | "object";
    }[];
    /** Channels this provider delivers without any configuration, and in which environments: `inbox` takes in_app everywhere, `sandbox` every other channel in sandbox. A channel with neither a configuration nor a built-in provider refuses sends with 422 channel_not_configured. */
    built_in: {
      channels: string[];
      environments: string[];
    } | null;
  }[];
};
