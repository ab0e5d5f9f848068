// What every page reads from the shell: the API bound to the chosen environment, the signed-in
// user, links that keep the environment, and the way to report an ended session.
import { createContext } from "preact";
import { useContext } from "preact/hooks";
import type { Me } from "../../../client";
import type { Api, Environment } from "../api";
import type { NavigateOptions } from "./router";

export interface Dashboard {
  api: Api;
  environment: Environment;
  me: Me;
  /** An href inside the dashboard, carrying the environment. */
  link(path: string, params?: Record<string, string | undefined>): string;
  /** Navigates inside the dashboard (a new history entry unless `replace`; `notice` is shown on arrival). */
  go(path: string, params?: Record<string, string | undefined>, opts?: NavigateOptions): void;
  /** A call answered 401 invalid_session: the shell shows the sign-in page. */
  sessionLost(): void;
}

export const DashboardContext = createContext<Dashboard | null>(null);

export function useDashboard(): Dashboard {
  const d = useContext(DashboardContext);
  if (!d) throw new Error("useDashboard outside the signed-in shell");
  return d;
}
