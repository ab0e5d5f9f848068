// The dashboard shell: who is signed in (GET /auth/session) or the sign-in page; the header with the
// environment switch and sign-out; navigation; the page the URL names, focused when it changes.
import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import type { Me } from "../../../client";
import { apiFor, ENVIRONMENTS, session, shownError, type Environment, type ShownError } from "../api";
import { SignInPage } from "../sign-in/sign-in-page";
import { ErrorNotice, Loading } from "../ui/states";
import { Link } from "../ui/link";
import { PageHeader } from "../ui/page-header";
import { DashboardContext, type Dashboard } from "./context";
import { environmentOf, href, matchPath, navigate, rememberEnvironment, useLocation, type Location } from "./router";
import type { PageProps, Section } from "./section";
import { SECTIONS } from "./sections";

type SessionState =
  | { status: "loading" }
  | { status: "signed-out"; reason?: string }
  | { status: "signed-in"; me: Me }
  | { status: "error"; error: ShownError };

export function App() {
  const location = useLocation();
  const environment = environmentOf(location.query);
  const [state, setState] = useState<SessionState>({ status: "loading" });
  const [round, setRound] = useState(0);

  // the URL always names its environment, so it can be copied and shared as it is
  useEffect(() => {
    rememberEnvironment(environment);
    if (location.query.get("env") !== environment) {
      navigate(href(location.path, environment, Object.fromEntries(location.query)), { replace: true });
    }
  }, [location, environment]);

  useEffect(() => {
    let live = true;
    setState({ status: "loading" });
    session.auth.session().then(
      (me) => live && setState(me ? { status: "signed-in", me } : { status: "signed-out" }),
      (err) => live && setState({ status: "error", error: shownError(err) }),
    );
    return () => void (live = false);
  }, [round]);

  if (state.status === "loading") return <Loading label="Checking your session" rows={1} />;
  if (state.status === "signed-out") return <SignInPage reason={state.reason} query={location.query} />;
  if (state.status === "error") {
    return (
      <main id="main" class="centered">
        <PageHeader title="The dashboard cannot reach the API" />
        <ErrorNotice error={state.error} onRetry={() => setRound((r) => r + 1)} />
      </main>
    );
  }
  return (
    <Shell
      me={state.me}
      environment={environment}
      location={location}
      onSignedOut={(reason) => setState({ status: "signed-out", reason })}
    />
  );
}

type Page = Section["pages"][number];

/** The section and page the path names (the first pattern that matches), with the path's parameters. */
function resolve(path: string): { section?: Section; view?: Page & { params: PageProps["params"] } } {
  for (const section of SECTIONS) {
    for (const page of section.pages) {
      const params = matchPath(page.pattern, path);
      if (params) return { section, view: { ...page, params } };
    }
  }
  return {};
}

interface ShellProps {
  me: Me;
  environment: Environment;
  location: Location;
  onSignedOut(reason?: string): void;
}

function Shell({ me, environment, location, onSignedOut }: ShellProps) {
  const api = apiFor(environment);
  const dashboard = useMemo<Dashboard>(
    () => ({
      api,
      environment,
      me,
      link: (path, params) => href(path, environment, params),
      go: (path, params, opts) => navigate(href(path, environment, params), opts),
      sessionLost: () => onSignedOut("Your session ended: sign in again."),
    }),
    [api, environment, me],
  );
  const { section, view } = resolve(location.path);

  // after a navigation (not the first page), the new page's heading takes the focus
  const shown = useRef<string | null>(null);
  useEffect(() => {
    const key = `${environment} ${location.path}`;
    if (shown.current !== null && shown.current !== key) {
      document.getElementById("page-title")?.focus();
      window.scrollTo(0, 0);
    }
    shown.current = key;
  }, [location.path, environment]);

  const switchTo = (next: Environment) => {
    // a record's page (an id in the URL) does not exist in the other environment: go to its list
    const path = view && view.pattern.includes(":") ? section!.path : location.path;
    const params = path === location.path ? Object.fromEntries([...location.query].filter(([k]) => k !== "env")) : {};
    navigate(href(path, next, params));
  };

  const signOut = async () => {
    try {
      await session.auth.logout();
    } finally {
      onSignedOut("You signed out.");
    }
  };

  return (
    <DashboardContext.Provider value={dashboard}>
      <a class="skip-link" href="#main">
        Skip to content
      </a>
      <header class="topbar" data-environment={environment}>
        <span class="brand">NMS</span>
        <span class="tenant-name" title="Your account (tenant)">
          {me.tenant_name}
        </span>
        <fieldset class="env-switch">
          <legend>Environment</legend>
          {ENVIRONMENTS.map((e) => (
            <label key={e} class={e === environment ? "selected" : ""}>
              <input type="radio" name="environment" value={e} checked={e === environment} onChange={() => switchTo(e)} />
              {e === "production" ? "Production" : "Sandbox"}
            </label>
          ))}
        </fieldset>
        <div class="user">
          <span class="user-email">{me.email}</span>
          <span class="badge tone-muted">{me.role}</span>
          <button type="button" class="secondary" onClick={signOut}>
            Sign out
          </button>
        </div>
      </header>
      <div class="layout">
        <nav aria-label="Dashboard">
          <ul>
            {SECTIONS.map((s) => (
              <li key={s.path}>
                <Link to={s.path} aria-current={s === section ? "page" : undefined}>
                  {s.nav}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
        <main id="main" tabIndex={-1} data-environment={environment}>
          {location.notice ? (
            <p class="notice success-notice flash" role="status">
              {location.notice}
            </p>
          ) : null}
          {view ? (
            <view.view key={`${environment}:${view.pattern}`} params={view.params} query={location.query} />
          ) : (
            <NotFound path={location.path} />
          )}
        </main>
      </div>
    </DashboardContext.Provider>
  );
}

function NotFound({ path }: { path: string }) {
  return (
    <>
      <PageHeader title="Page not found" />
      <p>
        There is no dashboard page at <code>{path}</code>. <Link to="/">Go to the overview</Link>.
      </p>
    </>
  );
}
