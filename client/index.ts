// Public surface of @nms/client: the Nms class, its error, list and webhook helpers, and every
// request/response type (derived from the server's schemas).
export { Nms } from "./nms.js";
export { NmsError } from "./error.js";
export { PageList, type Page } from "./pagination.js";
export { TemplateStatus } from "./resources/templates.js";
export { newIdempotencyKey, type Environment, type NmsOptions, type RequestOptions } from "./transport.js";
export {
  parseStandardWebhook,
  parseWebhookEvent,
  SIGNATURE_HEADER,
  verifyStandardWebhook,
  verifyWebhookSignature,
  WebhookVerificationError,
  type RawBody,
  type StandardWebhookHeaders,
  type StandardWebhookOptions,
} from "./webhooks.js";
export type * from "./types.js";
