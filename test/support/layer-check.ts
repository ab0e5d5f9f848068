// Runs the rules of .dependency-cruiser.cjs on a source tree: Bun's parser extracts every file's
// imports, dependency-cruiser checks the resulting graph (layers and cycles) and reports violations.
//
// Why not `depcruise` on the .ts files directly: dependency-cruiser parses TypeScript through a
// TypeScript compiler below 7, swc or babel, and this project has only TypeScript 7 (no JS API).
// So each source file becomes a stand-in module in a temporary folder that imports exactly the
// files its original imports (type-only imports included: a type is a dependency too), and
// dependency-cruiser cruises those. Paths in the answer are the original ones.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, posix } from "node:path";
import { cruise, type IForbiddenRuleType } from "dependency-cruiser";

export interface LayerViolation {
  rule: string;
  from: string;
  to: string;
  /** the files of the cycle, for no-circular */
  cycle?: string[];
}

const SOURCE = /\.(ts|tsx|mts|js|mjs)$/;
const SKIP_DIRS = new Set(["node_modules", "dist"]);
const STAND_IN = ".mjs";

/** Repository-relative paths of the source files under root (hidden folders, node_modules and builds left out). */
export function sourceFiles(root: string, dir = "", out: string[] = []): string[] {
  for (const name of readdirSync(join(root, dir))) {
    if (name.startsWith(".") || SKIP_DIRS.has(name)) continue;
    const rel = dir ? `${dir}/${name}` : name;
    if (statSync(join(root, rel)).isDirectory()) sourceFiles(root, rel, out);
    else if (SOURCE.test(name) && !name.endsWith(".d.ts")) out.push(rel);
  }
  return out;
}

// `import type {...}`, `export type {...}` and `{ type X }` are dependencies, but the transpiler's
// scan drops them: turn them into plain imports first (only the scan sees this text).
function typeImportsAsImports(code: string): string {
  return code
    .replace(/^(\s*import)\s+type\s+(?=[\w{*])/gm, "$1 ")
    .replace(/^(\s*export)\s+type\s+(?=[{*])/gm, "$1 ")
    .replace(/([{,]\s*)type\s+(?=[\w$]+\s*(?:,|}|\sas\s))/g, "$1");
}

/** The import specifiers of one file, as Bun's parser reads them (static, dynamic and re-exports). */
function importsOf(path: string, code: string): string[] {
  const transpiler = new Bun.Transpiler({ loader: path.endsWith(".tsx") ? "tsx" : /\.m?ts$/.test(path) ? "ts" : "js" });
  const withoutShebang = code.startsWith("#!") ? code.slice(code.indexOf("\n")) : code;
  return transpiler.scanImports(typeImportsAsImports(withoutShebang)).map((i) => i.path);
}

/** Resolves a relative specifier the way Bun does for this tree (extension optional, index files). */
function resolveIn(files: Set<string>, from: string, spec: string): string | null {
  if (!spec.startsWith(".")) return null; // packages and node: builtins are no layer
  const base = posix.normalize(posix.join(posix.dirname(from), spec));
  const stem = base.replace(/\.(js|mjs)$/, "");
  for (const candidate of [base, `${base}.ts`, `${base}.tsx`, `${base}.mts`, `${base}.js`, `${base}.mjs`, `${stem}.ts`, `${stem}.tsx`, `${base}/index.ts`, `${base}/index.tsx`, `${base}/index.js`]) {
    if (files.has(candidate)) return candidate;
  }
  return null;
}

function standInImport(from: string, to: string): string {
  let rel = posix.relative(posix.dirname(from), to) + STAND_IN;
  if (!rel.startsWith(".")) rel = `./${rel}`;
  return `import ${JSON.stringify(rel)};`;
}

/** The import graph of the tree under root: file -> the tree's files it imports. */
export function importGraph(root: string, files = sourceFiles(root)): Map<string, string[]> {
  const known = new Set(files);
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const targets = new Set<string>();
    for (const spec of importsOf(file, readFileSync(join(root, file), "utf8"))) {
      const to = resolveIn(known, file, spec);
      if (to && to !== file) targets.add(to);
    }
    graph.set(file, [...targets]);
  }
  return graph;
}

export async function loadRules(configPath: string): Promise<{ forbidden: IForbiddenRuleType[] }> {
  const mod = await import(configPath);
  return { forbidden: (mod.default ?? mod).forbidden };
}

/** Violations of the rules in the tree under root (an empty list when it keeps them all). */
export async function checkLayers(root: string, rules: { forbidden: IForbiddenRuleType[] }): Promise<LayerViolation[]> {
  const graph = importGraph(root);
  const mirror = mkdtempSync(join(tmpdir(), "nms-layers-"));
  try {
    for (const [file, targets] of graph) {
      const out = join(mirror, file + STAND_IN);
      mkdirSync(dirname(out), { recursive: true });
      writeFileSync(out, targets.map((t) => standInImport(file, t)).join("\n") + "\n");
    }
    // the top-level folders, and the root's own files (config.ts) by their stand-in names
    const tops = [...new Set([...graph.keys()].map((f) => (f.includes("/") ? f.split("/")[0]! : f + STAND_IN)))].sort();
    const result = await cruise(tops, { baseDir: mirror, validate: true, ruleSet: rules, doNotFollow: { path: "node_modules" } });
    const output = result.output;
    if (typeof output === "string") throw new Error(`dependency-cruiser answered text: ${output.slice(0, 200)}`);
    const original = (p: string) => (p.endsWith(STAND_IN) ? p.slice(0, -STAND_IN.length) : p);
    return output.summary.violations.map((v) => ({
      rule: v.rule.name,
      from: original(v.from),
      to: original(v.to),
      ...(v.cycle ? { cycle: v.cycle.map((c) => original(c.name)) } : {}),
    }));
  } finally {
    rmSync(mirror, { recursive: true, force: true });
  }
}
