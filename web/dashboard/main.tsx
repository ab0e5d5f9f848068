// Entry of the dashboard bundle (scripts/build-web.ts: /assets/app.js and app.css): mounts the app
// into index.html's #app.
import { render } from "preact";
import "uplot/dist/uPlot.min.css";
import "./styles.css";
import { App } from "./app/app";

const root = document.getElementById("app")!;
// index.html's "Loading" line is replaced, not kept above the app
root.replaceChildren();
render(<App />, root);
