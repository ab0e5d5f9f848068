// Field checks that provider validate() functions share, collecting messages under
// "credentials.<field>" / "settings.<field>" paths for the 422 details of the channels API.
import { DEFAULT_TIMEOUT_MS, type ProviderCredentials, type ProviderSettings, type ValidationErrors } from "./types";

type Scope = "credentials" | "settings";

const E164_RE = /^\+[1-9]\d{6,14}$/;

export function isE164(value: unknown): value is string {
  return typeof value === "string" && E164_RE.test(value);
}

export class ConfigChecks {
  readonly errors: ValidationErrors = {};

  constructor(
    private readonly credentials: Record<string, unknown>,
    private readonly settings: Record<string, unknown>,
  ) {}

  add(scope: Scope, field: string, message: string): void {
    (this.errors[`${scope}.${field}`] ??= []).push(message);
  }

  value(scope: Scope, field: string): unknown {
    const source = scope === "credentials" ? this.credentials : this.settings;
    return source == null ? undefined : source[field];
  }

  present(scope: Scope, field: string): boolean {
    const v = this.value(scope, field);
    return v !== undefined && v !== null && v !== "";
  }

  /** required non-empty string; returns it when valid */
  requireString(scope: Scope, field: string): string | undefined {
    const v = this.value(scope, field);
    if (v === undefined || v === null || v === "") {
      this.add(scope, field, "is required");
      return undefined;
    }
    if (typeof v !== "string") {
      this.add(scope, field, "must be a string");
      return undefined;
    }
    if (v.trim() === "") {
      this.add(scope, field, "must not be blank");
      return undefined;
    }
    return v;
  }

  optionalString(scope: Scope, field: string): string | undefined {
    if (!this.present(scope, field)) return undefined;
    const v = this.value(scope, field);
    if (typeof v !== "string") {
      this.add(scope, field, "must be a string");
      return undefined;
    }
    return v;
  }

  optionalBoolean(scope: Scope, field: string): void {
    if (!this.present(scope, field)) return;
    if (typeof this.value(scope, field) !== "boolean") this.add(scope, field, "must be true or false");
  }

  /** base_url / token_url overrides exist for local test servers; they must still be http(s) URLs */
  optionalUrl(scope: Scope, field: string): void {
    const v = this.optionalString(scope, field);
    if (v === undefined) return;
    let url: URL;
    try {
      url = new URL(v);
    } catch {
      this.add(scope, field, "must be an absolute http(s) URL");
      return;
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") this.add(scope, field, "must be an absolute http(s) URL");
  }

  /** The settings every provider accepts (docs/providers/README.md): every validate() calls this. */
  sharedSettings(): void {
    this.rateLimit();
    this.timeout();
  }

  /** settings.rate_limit_per_second is read by the sender's limiter for every provider */
  private rateLimit(): void {
    if (!this.present("settings", "rate_limit_per_second")) return;
    const v = this.value("settings", "rate_limit_per_second");
    if (typeof v !== "number" || !Number.isFinite(v) || v <= 0 || v > 100_000) {
      this.add("settings", "rate_limit_per_second", "must be a number between 0 (exclusive) and 100000");
    }
  }

  /**
   * settings.timeout_ms becomes AbortSignal.timeout() in every adapter, which throws on anything
   * but a non-negative integer: a send must never throw, so a bad value is refused here.
   */
  private timeout(): void {
    if (!this.present("settings", "timeout_ms")) return;
    const v = this.value("settings", "timeout_ms");
    if (typeof v !== "number" || !Number.isInteger(v) || v < 1 || v > MAX_TIMEOUT_MS) {
      this.add("settings", "timeout_ms", `must be an integer number of milliseconds from 1 to ${MAX_TIMEOUT_MS}`);
    }
  }
}

export const MAX_TIMEOUT_MS = 600_000;

/** validate() of a provider with no credentials and no settings of its own (inbox, sandbox): the shared settings only. */
export function validateSharedSettingsOnly(credentials: ProviderCredentials, settings: ProviderSettings): ValidationErrors {
  const checks = new ConfigChecks(credentials, settings);
  checks.sharedSettings();
  return checks.errors;
}

/** settings.timeout_ms of a saved configuration, or the default when it is absent or unusable. */
export function timeoutSetting(settings: Record<string, unknown> | undefined): number {
  const v = settings?.timeout_ms;
  return typeof v === "number" && Number.isInteger(v) && v >= 1 && v <= MAX_TIMEOUT_MS ? v : DEFAULT_TIMEOUT_MS;
}

/** read a setting as a string with a default, for create() after validate() passed */
export function stringSetting(source: Record<string, unknown> | undefined, field: string, fallback = ""): string {
  const v = source?.[field];
  return typeof v === "string" && v !== "" ? v : fallback;
}

/** join a base URL and a path without doubling or losing the slash */
export function joinUrl(base: string, path: string): string {
  return base.replace(/\/+$/, "") + path;
}
