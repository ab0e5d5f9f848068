// API errors: one class with an HTTP status and a stable string code, plus constructors for
// the common cases. The error mapper (http/plugins/errors.ts) renders them as the standard body.
export type ErrorDetails = Record<string, string[]>;

export class ApiError extends Error {
  constructor(
    public readonly status: number,
    public readonly code: string,
    message: string,
    public readonly details?: ErrorDetails,
    public readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = "ApiError";
  }
}

export const notFound = (code = "not_found", message = "Resource not found") => new ApiError(404, code, message);
export const validationFailed = (details: ErrorDetails, message = "Validation failed") =>
  new ApiError(422, "validation_failed", message, details);
export const conflict = (code = "conflict", message = "Conflicting operation") => new ApiError(409, code, message);
export const forbidden = (code = "insufficient_permissions", message = "This key is not allowed to perform this request") =>
  new ApiError(403, code, message);
export const unauthorized = (message = "Missing, malformed, invalid or revoked API key") =>
  new ApiError(401, "invalid_api_key", message);

export function errorBody(code: string, message: string, details?: ErrorDetails) {
  return { error: details ? { code, message, details } : { code, message } };
}
