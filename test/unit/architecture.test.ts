// The layer rules (docs/architecture.md, .dependency-cruiser.cjs) hold on the whole tree, and the
// check can fail: a scratch tree with a backwards import and a cycle is refused. Also: only config.ts reads the environment.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { checkLayers, importGraph, loadRules, sourceFiles } from "../support/layer-check";

const ROOT = join(import.meta.dir, "..", "..");
const rules = await loadRules(join(ROOT, ".dependency-cruiser.cjs"));

describe("the layers of the real tree", () => {
  test("the import graph is the real one (the check cannot pass by reading nothing)", () => {
    const graph = importGraph(ROOT);
    expect(graph.size).toBeGreaterThan(100);
    // a type-only import counts: http/auth-context.ts imports store/db.ts only for `type Scope`
    expect(graph.get("http/auth-context.ts")).toContain("store/db.ts");
    expect(graph.get("domain/notifications/accept.ts")).toContain("domain/delivery/channel-sender-mail.ts");
    expect(graph.get("runtime/index.ts")).toContain("runtime/runtime.ts");
  });

  test("no backwards import and no cycle anywhere (client/ and web/ included once they exist)", async () => {
    const violations = await checkLayers(ROOT, rules);
    expect(violations).toEqual([]);
  });
});

describe("the check fails on a tree that breaks the rules", () => {
  const scratch = mkdtempSync(join(tmpdir(), "nms-layers-fixture-"));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  const tree: Record<string, string> = {
    "config.ts": "export const config = {};\n",
    "basics/log.ts": 'import { config } from "../config";\nexport const logger = config;\n',
    "http/log.ts": "export const httpLogger = {};\n",
    "runtime/actor.ts": "export interface ActorAddress { name: string }\n",
    "runtime/index.ts": 'export type { ActorAddress } from "./actor";\n',
    // allowed: actor mail beside its capability's code, through the runtime's index
    "domain/delivery/channel-sender-mail.ts": 'import type { ActorAddress } from "../../runtime/index";\nexport const address: ActorAddress = { name: "a" };\n',
    // schemas/ is bundled for the browser: TypeBox only, nothing of ours (actor mail used to live here)
    "schemas/messages.ts": 'import type { ActorAddress } from "../runtime/index";\nimport { config } from "../config";\nexport const a: ActorAddress = { name: String(config) };\n',
    // behind the runtime's index
    "store/metrics.ts": 'import type { ActorAddress } from "../runtime/actor";\nexport type M = ActorAddress;\n',
    // a job reaching into an actor (both are entry layers over domain/)
    "jobs/reconciler.ts": 'import { channelSender } from "../actors/channel-sender";\nexport const job = channelSender;\n',
    // backwards: the store reaches up into http/
    "store/templates.ts": 'import { httpLogger } from "../http/log";\nexport const t = httpLogger;\n',
    // backwards, type-only: a schema that needs a store row type
    "schemas/rows.ts": 'import type { T } from "../store/rows";\nexport type Row = T;\n',
    "store/rows.ts": "export type T = { id: string };\n",
    // domain importing its own actor, which imports domain back: both a layer breach and a cycle
    "domain/notifications/accept.ts": 'import { channelSender } from "../../actors/channel-sender";\nexport const accept = () => channelSender;\n',
    "actors/channel-sender.ts": 'import { accept } from "../domain/notifications/accept";\nexport const channelSender = { accept };\n',
    // a cycle inside one layer
    "http/plugins/auth.ts": 'import { resolveSession } from "../session";\nexport const auth = resolveSession;\n',
    "http/session.ts": 'import { auth } from "./plugins/auth";\nexport const resolveSession = () => auth;\n',
    "client/index.ts": 'import { t } from "../store/templates";\nexport const client = t;\n',
    "web/page.ts": 'import { client } from "../client/index";\nimport { config } from "../config";\nexport const page = [client, config];\n',
    // a Preact component (.tsx) is checked like any module
    "web/dashboard/view.tsx": 'import { page } from "../page";\nimport { logger } from "../../basics/log";\nexport const View = () => <p>{String([page, logger])}</p>;\n',
    "runtime/host.ts": 'import { logger } from "../basics/log";\nexport const host = logger;\n',
    "basics/errors.ts": 'import { httpLogger } from "../http/log";\nexport const errors = httpLogger;\n',
    "http/routes/notifications.ts": 'import { channelSender } from "../../actors/channel-sender";\nexport const route = channelSender;\n',
    // @nms/react reaching into the client's files instead of the package, and the dashboard into @nms/react
    "react/inbox.tsx": 'import { Nms } from "../client/index";\nexport const Inbox = () => <p>{String(Nms)}</p>;\n',
    "web/dashboard/bell.tsx": 'import { Inbox } from "../../react/inbox";\nexport const Bell = Inbox;\n',
    "test/support/fixtures.ts": "export const fixture = 1;\n",
    "domain/inbox/inbox.ts": 'import { fixture } from "../../test/support/fixtures";\nexport const inbox = fixture;\n',
  };
  for (const [path, text] of Object.entries(tree)) {
    mkdirSync(dirname(join(scratch, path)), { recursive: true });
    writeFileSync(join(scratch, path), text);
  }

  test("every deliberate breach is reported under its rule", async () => {
    const violations = await checkLayers(scratch, rules);
    const seen = violations.map((v) => `${v.rule}: ${v.from} -> ${v.to}`);
    expect(seen).toEqual(
      expect.arrayContaining([
        "store-below-domain: store/templates.ts -> http/log.ts",
        "schemas-import-nothing-of-ours: schemas/rows.ts -> store/rows.ts",
        "domain-below-entry-layers: domain/notifications/accept.ts -> actors/channel-sender.ts",
        "schemas-import-nothing-of-ours: schemas/messages.ts -> runtime/index.ts",
        "schemas-import-nothing-of-ours: schemas/messages.ts -> config.ts",
        "runtime-through-its-index: store/metrics.ts -> runtime/actor.ts",
        "jobs-beside-actors-and-http: jobs/reconciler.ts -> actors/channel-sender.ts",
        "client-imports-only-schemas: client/index.ts -> store/templates.ts",
        "web-imports-only-client-and-schemas: web/page.ts -> config.ts",
        "web-imports-only-client-and-schemas: web/dashboard/view.tsx -> basics/log.ts",
        "runtime-stands-alone: runtime/host.ts -> basics/log.ts",
        "basics-import-no-layer: basics/errors.ts -> http/log.ts",
        "http-beside-actors: http/routes/notifications.ts -> actors/channel-sender.ts",
        "nothing-imports-tests: domain/inbox/inbox.ts -> test/support/fixtures.ts",
        "react-package-stands-alone: react/inbox.tsx -> client/index.ts",
        "nothing-imports-react-package: web/dashboard/bell.tsx -> react/inbox.tsx",
      ]),
    );
    const cycles = violations.filter((v) => v.rule === "no-circular").map((v) => [...v.cycle!].sort().join(" <-> "));
    expect(cycles).toEqual(
      expect.arrayContaining([
        "actors/channel-sender.ts <-> domain/notifications/accept.ts",
        "http/plugins/auth.ts <-> http/session.ts",
      ]),
    );
    // the allowed edges of the same tree are not reported
    expect(seen.some((s) => s.includes("domain/delivery/channel-sender-mail.ts"))).toBe(false);
    expect(seen.some((s) => s.startsWith("runtime-through-its-index") && s.endsWith("runtime/index.ts"))).toBe(false);
    expect(seen.some((s) => s.includes("web/page.ts -> client/index.ts"))).toBe(false);
    expect(seen.some((s) => s.includes("web/dashboard/view.tsx -> web/page.ts"))).toBe(false);
  });
});

describe("capability folders", () => {
  test("domain/ holds one folder per capability and no file of its own", () => {
    const flat = sourceFiles(ROOT).filter((f) => /^domain\/[^/]+$/.test(f));
    expect(flat).toEqual([]);
    const folders = new Set(sourceFiles(ROOT).filter((f) => f.startsWith("domain/")).map((f) => f.split("/")[1]));
    expect([...folders]).toEqual(expect.arrayContaining(["delivery", "workflows", "webhooks", "sending-domains", "receipts", "subscribers"]));
  });
});

describe("configuration", () => {
  test("only config.ts reads the environment, and only it branches on NODE_ENV (scripts and tests aside)", () => {
    const readers = sourceFiles(ROOT)
      .filter((f) => !/^(test|scripts)\//.test(f) && f !== "config.ts")
      .filter((f) => /process\.env|Bun\.env|import\.meta\.env|\bnodeEnv\b/.test(readFileSync(join(ROOT, f), "utf8")));
    expect(readers).toEqual([]);
  });
});
