// Application errors: a stable string code, a message, optional field details (and headers such
// as Retry-After), but no HTTP status: http/plugins/errors.ts maps every code to its status in one table.
export type ErrorDetails = Record<string, string[]>;

/**
 * An empty details map without a prototype. Its keys are field paths, often the client's own JSON
 * keys ("__proto__", "constructor", "toString"): on a plain `{}` those already name inherited
 * members, so `(details[k] ??= []).push(m)` pushed onto a function (a 500) or set the prototype.
 * Every details map is built from this (test/http/body-fuzz.test.ts refuses `ErrorDetails = {}`).
 */
export function fieldErrors(): ErrorDetails {
  return Object.create(null) as ErrorDetails;
}

export class AppError extends Error {
  constructor(
    public readonly code: string,
    message: string,
    public readonly details?: ErrorDetails,
    public readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = "AppError";
  }
}

export const notFound = (code = "not_found", message = "Resource not found") => new AppError(code, message);
export const validationFailed = (details: ErrorDetails, message = "Validation failed") =>
  new AppError("validation_failed", message, details);
export const conflict = (code = "conflict", message = "Conflicting operation") => new AppError(code, message);
export const forbidden = (code = "insufficient_permissions", message = "This key is not allowed to perform this request") =>
  new AppError(code, message);
export const unauthorized = (message = "Missing, malformed, invalid or revoked API key") => new AppError("invalid_api_key", message);
