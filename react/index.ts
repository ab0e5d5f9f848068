// Public surface of @nms/react: <NmsProvider>, <Inbox>, <Preferences>, the hooks, and the session
// types; everything is safe to import and render on a server (no browser API until an effect runs).
export { NmsProvider, type NmsProviderProps } from "./provider.js";
export { Inbox, type InboxProps } from "./inbox.js";
export { Preferences, type PreferencesProps } from "./preferences.js";
export {
  useNmsClient,
  useNotifications,
  usePreferences,
  useUnreadCount,
  type UseNotifications,
  type UsePreferences,
} from "./hooks.js";
export type { Connection, InboxState, LoadStatus, NmsConfig, PreferencesState } from "./session.js";
export type { InboxItem, Preference, PreferenceCategoryState } from "@nms/client";
