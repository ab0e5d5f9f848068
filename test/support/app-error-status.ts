// Tests written when errors carried their HTTP status read `err.status` and build `new ApiError(status, code, msg)`.
// Application errors now carry only a code; here, for tests only, the status is the one the HTTP error table gives.
import { AppError, type ErrorDetails } from "../../basics/errors";
import { statusFor } from "../../http/plugins/errors";

// `err.status` on any AppError: what the HTTP layer would answer with it.
if (!Object.getOwnPropertyDescriptor(AppError.prototype, "status")) {
  Object.defineProperty(AppError.prototype, "status", {
    get(this: AppError) {
      return statusFor(this.code);
    },
  });
}

/**
 * The old constructor shape, checked against the table, so a test that throws `new ApiError(409,
 * "conflict", ...)` still means what it says; `x instanceof ApiError` holds for every AppError.
 */
export class ApiError extends AppError {
  /** the getter above */
  declare readonly status: number;

  constructor(status: number, code: string, message: string, details?: ErrorDetails, headers?: Record<string, string>) {
    super(code, message, details, headers);
    if (statusFor(code) !== status) throw new Error(`the HTTP error table answers ${statusFor(code)} for ${code}, not ${status}`);
  }

  static override [Symbol.hasInstance](value: unknown): boolean {
    return value instanceof AppError;
  }
}
