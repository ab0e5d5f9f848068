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

module.exports = {
  forbidden: [
    {
      name: "no-circular",
      comment: "A cycle has no bottom layer: break it by moving the shared part below both (docs/architecture.md).",
      severity: "error",
      from: {},
      to: { circular: true },
    },
    {
      name: "basics-import-no-layer",
      comment: "config.ts, basics/log.ts and basics/errors.ts are below everything and import none of it.",
      severity: "error",
      from: { path: BASICS },
      to: { path: layer("runtime", "providers", "schemas", "store", "domain", "actors", "http", "scripts", "client", "web") },
    },
    {
      name: "runtime-stands-alone",
      comment: "runtime/ knows nothing of notifications: it takes its Redis client, prefix and logger as parameters.",
      severity: "error",
      from: { path: "^runtime/" },
      to: { path: `${BASICS}|${layer("providers", "schemas", "store", "domain", "actors", "http", "scripts", "client", "web")}` },
    },
    {
      name: "providers-schemas-stay-low",
      comment: "providers/ and schemas/ sit beside runtime/: they never reach up into store, domain, actors, http or scripts.",
      severity: "error",
      from: { path: layer("providers", "schemas") },
      to: { path: layer("store", "domain", "actors", "http", "scripts", "client", "web") },
    },
    {
      name: "schemas-below-providers",
      comment: "schemas/ are shared with the client and the dashboard: they never carry a provider adapter.",
      severity: "error",
      from: { path: "^schemas/" },
      to: { path: "^providers/" },
    },
    {
      name: "store-below-domain",
      comment: "store/ (PostgreSQL and Redis access) throws AppError and logs with basics/, never http/, and calls no use case.",
      severity: "error",
      from: { path: "^store/" },
      to: { path: layer("domain", "actors", "http", "scripts", "client", "web") },
    },
    {
      name: "domain-below-actors-and-http",
      comment: "domain/ enqueues through addresses and message types in schemas/messages.ts, never by importing an actor.",
      severity: "error",
      from: { path: "^domain/" },
      to: { path: layer("actors", "http", "scripts", "client", "web") },
    },
    {
      name: "actors-beside-http",
      comment: "actors/ and http/ are both entry layers over domain/: neither imports the other.",
      severity: "error",
      from: { path: "^actors/" },
      to: { path: layer("http", "scripts", "client", "web") },
    },
    {
      name: "http-beside-actors",
      comment: "http/ reaches actors only through domain/ use cases and schemas/messages.ts addresses.",
      severity: "error",
      from: { path: "^http/" },
      to: { path: layer("actors", "scripts", "client", "web") },
    },
    {
      name: "client-imports-only-schemas",
      comment: "The typed client ships to other programs: it carries nothing but the shared schemas.",
      severity: "error",
      from: { path: "^client/" },
      to: { path: `${BASICS}|${layer("runtime", "providers", "store", "domain", "actors", "http", "scripts", "web")}` },
    },
    {
      name: "web-imports-only-client-and-schemas",
      comment: "The dashboard talks to the service through the typed client only.",
      severity: "error",
      from: { path: "^web/" },
      to: { path: `${BASICS}|${layer("runtime", "providers", "store", "domain", "actors", "http", "scripts")}` },
    },
    {
      name: "nothing-imports-scripts",
      comment: "scripts/ are entry points: they import the layers, never the other way round.",
      severity: "error",
      from: { pathNot: "^(scripts|test)/" },
      to: { path: "^scripts/" },
    },
    {
      name: "nothing-imports-tests",
      comment: "test/ is on top of everything; production code never reaches into it.",
      severity: "error",
      from: { pathNot: "^test/" },
      to: { path: "^test/" },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "(^|/)(node_modules|\\.git|web/dist)/" },
  },
};
