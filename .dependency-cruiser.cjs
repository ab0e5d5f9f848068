// The layer rules of docs/architecture.md as dependency-cruiser rules; test/unit/architecture.test.ts
// applies them to the whole tree on every `npm test`, so a backwards import or a cycle fails CI.
//
// Layers, each importing only those below it:
//   scripts -> http, actors, jobs -> domain -> store -> providers, runtime, schemas, and basics (basics/, config.ts)
//   below all but runtime/ and schemas/, which import nothing of ours (schemas/: TypeBox only, since
//   client/ and web/ bundle it for the browser). Outside runtime/, runtime/ is imported through its
//   index only. client/ imports only schemas/; web/ only client/ and schemas/; react/ (the @nms/react
//   package) nothing of ours by path (it reaches the client as the "@nms/client" package); test/ may import anything.
//
// Paths are relative to the repository root. dependency-cruiser reads TypeScript through a
// TypeScript compiler older than 7 (or swc/babel); this project compiles with TypeScript 7, so the
// test hands dependency-cruiser the import graph that Bun's own parser extracts (type-only imports
// included), file for file; see test/support/layer-check.ts.

const BASICS = "^(basics/|config\\.ts)";
const layer = (...names) => `^(${names.join("|")})/`;
const OURS = ["runtime", "providers", "schemas", "store", "domain", "actors", "jobs", "http", "scripts", "client", "web", "react"];
const except = (...names) => OURS.filter((n) => !names.includes(n));

/** A forbidden dependency: every rule is an error, so CI fails on it. */
const forbid = (name, comment, from, to) => ({ name, comment, severity: "error", from, to });

module.exports = {
  forbidden: [
    forbid(
      "no-circular",
      "A cycle has no bottom layer: break it by moving the shared part below both (docs/architecture.md).",
      {},
      { circular: true },
    ),
    forbid(
      "basics-import-no-layer",
      "config.ts, basics/log.ts and basics/errors.ts are below everything and import none of it.",
      { path: BASICS },
      { path: layer(...OURS) },
    ),
    forbid(
      "runtime-stands-alone",
      "runtime/ knows nothing of notifications: it takes its Redis client, prefix and logger as parameters.",
      { path: "^runtime/" },
      { path: `${BASICS}|${layer(...except("runtime"))}` },
    ),
    forbid(
      "schemas-import-nothing-of-ours",
      "schemas/ is TypeBox only: client/ and web/ bundle it for the browser, so it never pulls config.ts, the runtime or any other layer (actor mail lives in domain/<capability>/).",
      { path: "^schemas/" },
      { path: `${BASICS}|${layer(...except("schemas"))}` },
    ),
    forbid(
      "providers-stay-low",
      "providers/ sit beside runtime/ and schemas/: they never reach up into store, domain, actors, jobs, http or scripts.",
      { path: "^providers/" },
      { path: layer("store", "domain", "actors", "jobs", "http", "scripts", "client", "web") },
    ),
    forbid(
      "runtime-through-its-index",
      "runtime/index.ts is the runtime's public surface: outside runtime/, import it and nothing behind it.",
      { pathNot: "^(runtime|test)/" },
      { path: "^runtime/(?!index\\.ts)" },
    ),
    forbid(
      "store-below-domain",
      "store/ (PostgreSQL and Redis access) throws AppError and logs with basics/, never http/, and calls no use case.",
      { path: "^store/" },
      { path: layer("domain", "actors", "jobs", "http", "scripts", "client", "web") },
    ),
    forbid(
      "domain-below-entry-layers",
      "domain/ enqueues through the mail files of its capability folders (e.g. domain/delivery/channel-sender-mail.ts), never by importing an actor or a job.",
      { path: "^domain/" },
      { path: layer("actors", "jobs", "http", "scripts", "client", "web") },
    ),
    forbid(
      "actors-beside-http-and-jobs",
      "actors/, jobs/ and http/ are entry layers over domain/: none imports another.",
      { path: "^actors/" },
      { path: layer("http", "jobs", "scripts", "client", "web") },
    ),
    forbid(
      "jobs-beside-actors-and-http",
      "jobs/ (periodic loops and crons, not actors) sit beside actors/ and http/ over domain/.",
      { path: "^jobs/" },
      { path: layer("http", "actors", "scripts", "client", "web") },
    ),
    forbid(
      "http-beside-actors",
      "http/ reaches actors only through domain/ use cases and the mail files' addresses.",
      { path: "^http/" },
      { path: layer("actors", "jobs", "scripts", "client", "web") },
    ),
    forbid(
      "client-imports-only-schemas",
      "The typed client ships to other programs: it carries nothing but the shared schemas.",
      { path: "^client/" },
      { path: `${BASICS}|${layer(...except("schemas", "client"))}` },
    ),
    forbid(
      "web-imports-only-client-and-schemas",
      "The dashboard talks to the service through the typed client only.",
      { path: "^web/" },
      { path: `${BASICS}|${layer(...except("schemas", "client", "web"))}` },
    ),
    forbid(
      "react-package-stands-alone",
      "@nms/react ships to other programs: it imports @nms/client by its package name, never a file of this tree outside react/.",
      { path: "^react/" },
      { path: `${BASICS}|${layer(...except("react"))}` },
    ),
    forbid(
      "nothing-imports-react-package",
      "react/ is a package for other programs: the service, the dashboard and the client never import it (tests may).",
      { pathNot: "^(react|test)/" },
      { path: "^react/" },
    ),
    forbid(
      "nothing-imports-scripts",
      "scripts/ are entry points: they import the layers, never the other way round.",
      { pathNot: "^(scripts|test)/" },
      { path: "^scripts/" },
    ),
    forbid(
      "nothing-imports-tests",
      "test/ is on top of everything; production code never reaches into it.",
      { pathNot: "^test/" },
      { path: "^test/" },
    ),
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "(^|/)(node_modules|\\.git|web/dist)/" },
  },
};
