// The layer rules of docs/architecture.md as dependency-cruiser rules; test/unit/architecture.test.ts
// applies them to the whole tree on every `npm test`, so a backwards import or a cycle fails CI.
//
// Layers, each importing only those below it:
//   scripts -> http, actors -> domain -> store -> providers -> schemas -> runtime, and basics (basics/, config.ts)
//   below all but runtime/, which imports nothing of ours.
//   client/ imports only schemas/; web/ only client/ and schemas/; test/ may import anything.
//
// Paths are relative to the repository root. dependency-cruiser reads TypeScript through a
// TypeScript compiler older than 7 (or swc/babel); this project compiles with TypeScript 7, so the
// test hands dependency-cruiser the import graph that Bun's own parser extracts (type-only imports
// included), file for file; see test/support/layer-check.ts.

const BASICS = "^(basics/|config\\.ts)";
const layer = (...names) => `^(${names.join("|")})/`;

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
      { path: layer("runtime", "providers", "schemas", "store", "domain", "actors", "http", "scripts", "client", "web") },
    ),
    forbid(
      "runtime-stands-alone",
      "runtime/ knows nothing of notifications: it takes its Redis client, prefix and logger as parameters.",
      { path: "^runtime/" },
      { path: `${BASICS}|${layer("providers", "schemas", "store", "domain", "actors", "http", "scripts", "client", "web")}` },
    ),
    forbid(
      "providers-schemas-stay-low",
      "providers/ and schemas/ sit beside runtime/: they never reach up into store, domain, actors, http or scripts.",
      { path: layer("providers", "schemas") },
      { path: layer("store", "domain", "actors", "http", "scripts", "client", "web") },
    ),
    forbid(
      "schemas-below-providers",
      "schemas/ are shared with the client and the dashboard: they never carry a provider adapter.",
      { path: "^schemas/" },
      { path: "^providers/" },
    ),
    forbid(
      "store-below-domain",
      "store/ (PostgreSQL and Redis access) throws AppError and logs with basics/, never http/, and calls no use case.",
      { path: "^store/" },
      { path: layer("domain", "actors", "http", "scripts", "client", "web") },
    ),
    forbid(
      "domain-below-actors-and-http",
      "domain/ enqueues through addresses and message types in schemas/messages.ts, never by importing an actor.",
      { path: "^domain/" },
      { path: layer("actors", "http", "scripts", "client", "web") },
    ),
    forbid(
      "actors-beside-http",
      "actors/ and http/ are both entry layers over domain/: neither imports the other.",
      { path: "^actors/" },
      { path: layer("http", "scripts", "client", "web") },
    ),
    forbid(
      "http-beside-actors",
      "http/ reaches actors only through domain/ use cases and schemas/messages.ts addresses.",
      { path: "^http/" },
      { path: layer("actors", "scripts", "client", "web") },
    ),
    forbid(
      "client-imports-only-schemas",
      "The typed client ships to other programs: it carries nothing but the shared schemas.",
      { path: "^client/" },
      { path: `${BASICS}|${layer("runtime", "providers", "store", "domain", "actors", "http", "scripts", "web")}` },
    ),
    forbid(
      "web-imports-only-client-and-schemas",
      "The dashboard talks to the service through the typed client only.",
      { path: "^web/" },
      { path: `${BASICS}|${layer("runtime", "providers", "store", "domain", "actors", "http", "scripts")}` },
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
