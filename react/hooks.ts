// The hooks of @nms/react: the provider's context, the typed client, and useNotifications /
// useUnreadCount / usePreferences over the session's stores (useSyncExternalStore; effects start the work).
import { createContext, useContext, useEffect, useSyncExternalStore } from "react";
import type { Nms, Preference } from "@nms/client";
import type { InboxState, NmsSession, PreferencesState, Store } from "./session.js";

export interface NmsContextValue {
  session: NmsSession;
  /** BCP 47 tag (or `pt_BR`) for the components' words and times. */
  locale: string;
}

export const NmsContext = createContext<NmsContextValue | null>(null);

/** The provider's session and locale; throws outside <NmsProvider>. */
export function useNmsContext(): NmsContextValue {
  const value = useContext(NmsContext);
  if (!value) throw new Error("@nms/react: this component or hook needs an <NmsProvider> above it");
  return value;
}

/**
 * The typed client (@nms/client), authenticated as the provider's subscriber, for what the hooks do
 * not cover. Call its methods in effects or event handlers, not while rendering.
 */
export function useNmsClient(): Nms {
  const { session } = useNmsContext();
  return session.client();
}

function useStore<S extends object>(store: Store<S>): S {
  useEffect(() => store.retain(), [store]);
  return useSyncExternalStore(store.subscribe, store.getSnapshot, store.getServerSnapshot);
}

export interface UseNotifications extends InboxState {
  /** More items than loaded exist: loadMore() fetches the next page. */
  hasMore: boolean;
  loadMore(): Promise<void>;
  /** Marks one item read at once, then through the API (undone, with `error` set, if refused). */
  markRead(itemId: string): Promise<void>;
  markAllRead(): Promise<void>;
  /** Reloads the first page and reconnects (after an error, say). */
  refresh(): void;
}

/**
 * The subscriber's in-app notifications, newest first, kept live over the event stream
 * (GET /v1/subscribers/:id/notifications/stream, resumed with Last-Event-ID after a drop).
 * On the server and before the first load: `status: "loading"`, no items.
 */
export function useNotifications(): UseNotifications {
  const { session } = useNmsContext();
  const inbox = session.inbox;
  const state = useStore(inbox);
  return {
    ...state,
    hasMore: state.items.length < state.total,
    loadMore: () => inbox.loadMore(),
    markRead: (itemId) => inbox.markRead(itemId),
    markAllRead: () => inbox.markAllRead(),
    refresh: () => inbox.refresh(),
  };
}

/** The subscriber's unread count, live (0 on the server and until the first load). */
export function useUnreadCount(): number {
  const { session } = useNmsContext();
  return useStore(session.inbox).unreadCount;
}

export interface UsePreferences extends PreferencesState {
  /**
   * Turns one (category, channel) on or off (PUT /v1/subscribers/:id/preferences); rejects with the
   * API's NmsError, e.g. 422 for a required category.
   */
  update(category: string, channel: Preference["channel"], enabled: boolean): Promise<void>;
  /** Reads the effective preferences again. */
  refresh(): Promise<void>;
}

/**
 * The tenant's preference categories with this subscriber's effective switch per channel
 * (GET /v1/subscribers/:id/preferences/effective; required categories are `locked`).
 */
export function usePreferences(): UsePreferences {
  const { session } = useNmsContext();
  const prefs = session.preferences;
  const state = useStore(prefs);
  return { ...state, update: (category, channel, enabled) => prefs.update(category, channel, enabled), refresh: () => prefs.load() };
}
