// Sign-in: a magic link by email (the API mails it, or logs it when SMTP_URL is unset) and a
// button for each OAuth provider the server is configured for (GET /auth/providers).
import { useEffect, useState } from "preact/hooks";
import type { OAuthProvider } from "../../../client";
import { session, shownError, type ShownError } from "../api";
import { describedBy, Field, fieldErrors } from "../ui/field";
import { PageHeader } from "../ui/page-header";
import { ErrorNotice } from "../ui/states";

const PROVIDER_LABELS: Record<OAuthProvider["name"], string> = { google: "Google", github: "GitHub" };

/** Why the magic link page sent the browser back here (GET /auth/magic-link/verify in a browser). */
const LINK_ERRORS: Record<string, string> = {
  invalid_token: "That sign-in link is invalid or was already used. Ask for a new one below.",
  token_expired: "That sign-in link has expired (links last 15 minutes). Ask for a new one below.",
};

export function SignInPage({ reason, query }: { reason?: string; query: URLSearchParams }) {
  const [email, setEmail] = useState("");
  const [sentTo, setSentTo] = useState<string | null>(null);
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<ShownError | null>(null);
  const [providers, setProviders] = useState<OAuthProvider[] | null>(null);
  const linkError = query.get("sign_in_error");

  useEffect(() => {
    session.auth.providers().then(setProviders, () => setProviders([]));
  }, []);

  const submit = async (e: Event) => {
    e.preventDefault();
    setPending(true);
    setError(null);
    try {
      await session.auth.requestMagicLink({ email });
      setSentTo(email);
    } catch (err) {
      setError(shownError(err));
    } finally {
      setPending(false);
    }
  };

  const emailErrors = fieldErrors(error?.details, "email");
  return (
    <main id="main" class="sign-in">
      <PageHeader title="Sign in to NMS" />
      {reason ? (
        <p class="notice" role="status">
          {reason}
        </p>
      ) : null}
      {linkError ? (
        <p class="notice error-notice" role="alert">
          {LINK_ERRORS[linkError] ?? "The sign-in link did not work. Ask for a new one below."}
        </p>
      ) : null}
      {sentTo ? (
        <div class="notice success-notice" role="status">
          <p>
            We sent a sign-in link to <strong>{sentTo}</strong>. It works once and expires in 15 minutes.
          </p>
          <p class="hint">Running the service locally without SMTP_URL? The link is in the server's log.</p>
          <button type="button" class="secondary" onClick={() => setSentTo(null)}>
            Use another address
          </button>
        </div>
      ) : (
        <form onSubmit={submit} class="stack" noValidate>
          <Field id="sign-in-email" label="Email address" errors={emailErrors} hint="We email you a link that signs you in; no password.">
            <input
              id="sign-in-email"
              type="email"
              name="email"
              autocomplete="email"
              required
              value={email}
              onInput={(e) => setEmail(e.currentTarget.value)}
              aria-describedby={describedBy("sign-in-email", true, emailErrors)}
              aria-invalid={emailErrors ? "true" : undefined}
            />
          </Field>
          <button type="submit" disabled={pending || email.trim() === ""}>
            {pending ? "Sending…" : "Email me a sign-in link"}
          </button>
          {error && !emailErrors ? <ErrorNotice error={error} /> : null}
        </form>
      )}
      <div class="oauth" aria-live="polite">
        {providers && providers.length > 0 ? (
          <>
            <p class="divider">or</p>
            <ul class="oauth-buttons">
              {providers.map((p) => (
                <li key={p.name}>
                  <a class="button secondary" href={p.start_url}>
                    Sign in with {PROVIDER_LABELS[p.name]}
                  </a>
                </li>
              ))}
            </ul>
          </>
        ) : null}
      </div>
    </main>
  );
}
