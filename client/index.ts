// Public surface of @nms/client: the Nms class, its error, list and webhook helpers, and every
// request/response type (derived from the server's schemas).
export { Nms } from "./nms";
export { NmsError } from "./error";
export { PageList, type Page } from "./pagination";
export { TemplateStatus } from "./resources/templates";
export { newIdempotencyKey, type Environment, type NmsOptions, type RequestOptions } from "./transport";
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
} from "./webhooks";
export type * from "./types";
