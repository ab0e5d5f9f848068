// nms.inboxEmbed: developer mode and the inbox secret (.settings), and the origins publishable
// keys are accepted from (.allowedOrigins); secret keys and sessions only (SPEC "Inbox embed").
import { path, type RequestOptions, type Transport } from "../transport.js";
import type { AllowedOrigin, AllowedOriginCreateParams, InboxEmbedSettings, InboxEmbedSettingsUpdateParams } from "../types.js";

export class InboxEmbedSettingsResource {
  constructor(private readonly transport: Transport) {}

  retrieve(opts?: RequestOptions): Promise<InboxEmbedSettings> {
    return this.transport.data({ method: "GET", path: "/v1/inbox-embed/settings" }, opts);
  }

  update(params: InboxEmbedSettingsUpdateParams, opts?: RequestOptions): Promise<InboxEmbedSettings> {
    return this.transport.data({ method: "PUT", path: "/v1/inbox-embed/settings", body: params }, opts);
  }
}

export class AllowedOrigins {
  constructor(private readonly transport: Transport) {}

  list(opts?: RequestOptions): Promise<AllowedOrigin[]> {
    return this.transport.data({ method: "GET", path: "/v1/inbox-embed/allowed-origins" }, opts);
  }

  /** scheme://host[:port], no path or trailing slash; 409 origin_already_allowed for a repeat. */
  create(params: AllowedOriginCreateParams, opts?: RequestOptions): Promise<AllowedOrigin> {
    return this.transport.data({ method: "POST", path: "/v1/inbox-embed/allowed-origins", body: params }, opts);
  }

  del(id: string, opts?: RequestOptions): Promise<void> {
    return this.transport.request({ method: "DELETE", path: path`/v1/inbox-embed/allowed-origins/${id}` }, opts);
  }
}

export class InboxEmbed {
  readonly settings: InboxEmbedSettingsResource;
  readonly allowedOrigins: AllowedOrigins;

  constructor(transport: Transport) {
    this.settings = new InboxEmbedSettingsResource(transport);
    this.allowedOrigins = new AllowedOrigins(transport);
  }
}
