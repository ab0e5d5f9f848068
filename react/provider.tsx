/** @jsxImportSource react */
// <NmsProvider>: one subscriber's session (publishable key, subscriber id and hash, API URL) for the
// components and hooks below it; creating it touches no browser API, so it renders on the server.
import { useMemo, type ReactNode } from "react";
import { NmsContext } from "./hooks.js";
import { NmsSession, type NmsConfig } from "./session.js";

export interface NmsProviderProps extends NmsConfig {
  /** BCP 47 tag (or `pt_BR`) for the components' words and times; `pt*` reads Portuguese (Brazil). Default `en`. */
  locale?: string;
  children?: ReactNode;
}

/**
 * Authenticates the components below it as one subscriber, the way `<nms-inbox>` does. A new key,
 * subscriber id, hash, API URL or page size starts a new session (a user signing in or out).
 */
export function NmsProvider({ apiUrl, publishableKey, subscriberId, subscriberHash, pageSize, locale = "en", children }: NmsProviderProps) {
  const session = useMemo(
    () => new NmsSession({ apiUrl, publishableKey, subscriberId, subscriberHash, pageSize }),
    [apiUrl, publishableKey, subscriberId, subscriberHash, pageSize],
  );
  const value = useMemo(() => ({ session, locale }), [session, locale]);
  return <NmsContext.Provider value={value}>{children}</NmsContext.Provider>;
}
