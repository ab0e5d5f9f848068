// nms.preferenceCategories and nms.preferenceCenter (docs/preferences.md): the categories a
// notification's `category` names, the hosted preference center's links and branding.
import { path, type RequestOptions, type Transport } from "../transport.js";
import type {
  PreferenceCategory,
  PreferenceCategoryCreateParams,
  PreferenceCategoryUpdateParams,
  PreferenceCenterSettings,
  PreferenceLink,
} from "../types.js";

export class PreferenceCategories {
  constructor(private readonly transport: Transport) {}

  create(params: PreferenceCategoryCreateParams, opts?: RequestOptions): Promise<PreferenceCategory> {
    return this.transport.data({ method: "POST", path: "/v1/preference-categories", body: params }, opts);
  }

  list(opts?: RequestOptions): Promise<PreferenceCategory[]> {
    return this.transport.data({ method: "GET", path: "/v1/preference-categories" }, opts);
  }

  retrieve(key: string, opts?: RequestOptions): Promise<PreferenceCategory> {
    return this.transport.data({ method: "GET", path: path`/v1/preference-categories/${key}` }, opts);
  }

  /** Partial update; the key cannot change. */
  update(key: string, params: PreferenceCategoryUpdateParams, opts?: RequestOptions): Promise<PreferenceCategory> {
    return this.transport.data({ method: "PUT", path: path`/v1/preference-categories/${key}`, body: params }, opts);
  }

  del(key: string, opts?: RequestOptions): Promise<void> {
    return this.transport.request({ method: "DELETE", path: path`/v1/preference-categories/${key}` }, opts);
  }
}

export class PreferenceCenter {
  constructor(private readonly transport: Transport) {}

  /** A signed link to the subscriber's hosted preference center; `expires_in` in seconds (default 7 days). */
  link(subscriberId: string, params: { expires_in?: number } = {}, opts?: RequestOptions): Promise<PreferenceLink> {
    return this.transport.data({ method: "POST", path: path`/v1/subscribers/${subscriberId}/preference-link`, body: params, safe: true }, opts);
  }

  settings(opts?: RequestOptions): Promise<PreferenceCenterSettings> {
    return this.transport.data({ method: "GET", path: "/v1/preference-center/settings" }, opts);
  }

  updateSettings(params: PreferenceCenterSettings, opts?: RequestOptions): Promise<PreferenceCenterSettings> {
    return this.transport.data({ method: "PUT", path: "/v1/preference-center/settings", body: params }, opts);
  }
}
