/** @jsxImportSource react */
// Browser entry of the React test page (bundled by Bun.build in test/e2e/react.test.ts): hydrates the
// server-rendered <App> in StrictMode, with the config the test wrote into the page.
import { StrictMode } from "react";
import { hydrateRoot } from "react-dom/client";
import type { NmsConfig, Preference } from "../../../react/index";
import { App } from "./app";

const w = window as unknown as { NMS_CONFIG: NmsConfig; changes: Preference[] };
w.changes = [];
hydrateRoot(
  document.getElementById("root")!,
  <StrictMode>
    <App config={w.NMS_CONFIG} onChange={(c) => w.changes.push(c)} />
  </StrictMode>,
);
