// Walks an app's routes and names every one whose access rule is missing or contradicts its path or
// method (http/plugins/access.ts): the check behind test/http/access-rules.test.ts.
import { installedGuards, type AccessRule } from "../../http/plugins/access";

/** /v1 routes anyone may call, and why; SPEC: "All /v1/* paths require authentication unless stated". */
export const PUBLIC_V1: Record<string, string> = {};

const MUTATING = new Set(["POST", "PUT", "PATCH", "DELETE"]);
const READ_RULES = new Set<AccessRule>(["secret-read", "subscriber-read"]);
const ADMIN_PATH = /^\/(?:v1\/admin|api\/internal)(?:\/|$)/;

interface RouteView {
  method: string;
  path: string;
  hooks?: { detail?: Record<string, unknown>; transform?: { fn: Function }[] | { fn: Function } };
}

/** One line per problem: "METHOD /path: what is wrong and what to write". */
export function accessProblems(routes: RouteView[]): string[] {
  const problems: string[] = [];
  for (const r of routes) {
    const name = `${r.method} ${r.path}`;
    const declared = r.hooks?.detail?.["x-access"] as AccessRule | undefined;
    if (!declared) {
      problems.push(`${name}: declares no access rule; add \`access: "<rule>"\` to its options (.use(accessPlugin), http/plugins/access.ts)`);
      continue;
    }
    const transforms = [r.hooks?.transform ?? []].flat();
    if (!transforms.some((t) => installedGuards.get(t.fn) === declared)) {
      problems.push(`${name}: says access "${declared}" but no guard of that rule runs (was x-access written by hand?)`);
    }
    if (MUTATING.has(r.method) && READ_RULES.has(declared)) {
      problems.push(`${name}: ${r.method} changes state but declares "${declared}"; use "${declared.replace("-read", "-write")}"`);
    }
    if (ADMIN_PATH.test(r.path) && declared !== "admin") problems.push(`${name}: an admin path must declare access "admin", not "${declared}"`);
    if (!ADMIN_PATH.test(r.path) && declared === "admin") problems.push(`${name}: access "admin" belongs to /api/internal/* and /v1/admin/* only`);
    if (r.path.startsWith("/v1/") && declared === "public" && !(name in PUBLIC_V1)) {
      problems.push(`${name}: a /v1 route is authenticated; if it really is public, list it in PUBLIC_V1 (test/support/route-access.ts) with why`);
    }
  }
  return problems;
}
