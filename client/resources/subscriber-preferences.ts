// nms.subscribers.preferences: a subscriber's {category, channel, enabled} list, read and
// replaced; publishable keys may reach it for their own subscriber.
import { path, type RequestOptions, type Transport } from "../transport.js";
import type { Preference, PreferenceCategoryState } from "../types.js";

export class SubscriberPreferences {
  constructor(private readonly transport: Transport) {}

  retrieve(subscriberId: string, opts?: RequestOptions): Promise<Preference[]> {
    return this.transport.data({ method: "GET", path: path`/v1/subscribers/${subscriberId}/preferences` }, opts);
  }

  /** The tenant's categories with this subscriber's effective switch per channel (docs/preferences.md). */
  effective(subscriberId: string, opts?: RequestOptions): Promise<PreferenceCategoryState[]> {
    return this.transport.data({ method: "GET", path: path`/v1/subscribers/${subscriberId}/preferences/effective` }, opts);
  }

  /** Sets each listed (category, channel); category "all" covers every category of the channel. */
  update(subscriberId: string, preferences: Preference[], opts?: RequestOptions): Promise<Preference[]> {
    return this.transport.data(
      { method: "PUT", path: path`/v1/subscribers/${subscriberId}/preferences`, body: { preferences } },
      opts,
    );
  }
}
