/** @jsxImportSource react */
// The small React page test/e2e/react.test.ts serves: @nms/react's provider, bell inbox, a live
// unread count and the preferences; rendered by the test with react-dom/server, hydrated in Chromium.
import { Inbox, NmsProvider, Preferences, useUnreadCount, type NmsConfig, type Preference } from "../../../react/index";

function Count() {
  const count = useUnreadCount();
  return (
    <p>
      Unread: <output aria-label="unread count">{count}</output>
    </p>
  );
}

export function App({ config, onChange }: { config: NmsConfig; onChange?: (change: Preference) => void }) {
  return (
    <NmsProvider {...config} locale="en">
      <header style={{ display: "flex", justifyContent: "flex-end", padding: 16 }}>
        <h1 style={{ marginRight: "auto" }}>My account</h1>
        <Inbox />
      </header>
      <main style={{ padding: 16 }}>
        <Count />
        <Preferences onChange={onChange} />
      </main>
    </NmsProvider>
  );
}
