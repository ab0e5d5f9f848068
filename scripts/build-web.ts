// Builds the browser code in web/ with Bun's bundler into .nms/web/ (git-ignored), which the API
// serves (http/routes/web-assets.ts); skips the work when no input changed since the last build.
import { createHash } from "node:crypto";
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { basename, join, relative } from "node:path";

const root = join(import.meta.dir, "..");
/** Where the built files go; http/routes/web-assets.ts serves the same folder. */
export const WEB_BUILD_DIR = join(root, ".nms", "web");
const STAMP = join(WEB_BUILD_DIR, "build-stamp.json");

interface WebTarget {
  entry: string;
  dir: string;
  /** The bundle's name; CSS the entry imports is written beside it (app.js -> app.css). */
  file: string;
  /** Static files copied as they are into <dir> (the dashboard's index.html). */
  copy?: readonly string[];
}

/**
 * One bundle per entry point, written to WEB_BUILD_DIR/<dir>/<file>; http/routes/web-assets.ts
 * serves each dir (embed/ at /embed/, dashboard/ at / and /assets/).
 */
export const WEB_TARGETS: readonly WebTarget[] = [
  { entry: "web/inbox/nms-inbox.ts", dir: "embed", file: "nms-inbox.js" },
  { entry: "web/inbox/nms-preferences.ts", dir: "embed", file: "nms-preferences.js" },
  { entry: "web/dashboard/main.tsx", dir: "dashboard", file: "app.js", copy: ["web/dashboard/index.html"] },
];

/** Every file a target leaves in its dir that must exist for the build to count as done. */
function outputsOf(t: WebTarget): string[] {
  return [t.file, ...(t.copy ?? []).map((c) => basename(c))].map((f) => join(WEB_BUILD_DIR, t.dir, f));
}

function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name))
    .sort();
}

/**
 * A fingerprint of everything a build reads: web/ and the modules it may import (client/,
 * schemas/), this script, and the locked dependency versions. Sizes and mtimes, not contents, so
 * the check costs a few stat calls.
 */
function inputFingerprint(): string {
  const inputs = [
    ...["web", "client", "schemas"].flatMap((d) => filesUnder(join(root, d))),
    join(root, "scripts", "build-web.ts"),
    join(root, "tsconfig.json"), // its jsx settings shape the dashboard's bundle
    join(root, "package-lock.json"),
  ];
  const h = createHash("sha256");
  for (const f of inputs) {
    const s = statSync(f);
    h.update(`${relative(root, f)}:${s.size}:${s.mtimeMs}\n`);
  }
  return h.digest("hex");
}

function upToDate(fingerprint: string): boolean {
  try {
    if (JSON.parse(readFileSync(STAMP, "utf8")).fingerprint !== fingerprint) return false;
  } catch {
    return false;
  }
  return WEB_TARGETS.flatMap(outputsOf).every((f) => existsSync(f));
}

export interface WebBuildResult {
  built: boolean;
  files: string[];
  ms: number;
}

/**
 * Bundles every target (lit and preact included, minified, ES module, linked source map). Each
 * target is written to a temporary folder and its files renamed into place, so a running API never
 * serves half a file.
 */
export async function buildWeb(opts: { force?: boolean } = {}): Promise<WebBuildResult> {
  const started = performance.now();
  const fingerprint = inputFingerprint();
  const files = WEB_TARGETS.flatMap(outputsOf);
  if (!opts.force && upToDate(fingerprint)) return { built: false, files, ms: performance.now() - started };
  mkdirSync(WEB_BUILD_DIR, { recursive: true });
  for (const t of WEB_TARGETS) {
    const tmp = join(WEB_BUILD_DIR, `.${t.dir}-${process.pid}-${Date.now()}`);
    const result = await Bun.build({
      entrypoints: [join(root, t.entry)],
      outdir: tmp,
      // app.js and, when the entry imports CSS, app.css
      naming: { entry: t.file.replace(/\.js$/, ".[ext]"), asset: "[name]-[hash].[ext]" },
      target: "browser",
      format: "esm",
      minify: true,
      sourcemap: "linked",
      // selects the production builds of dependencies (Lit's "development" export warns in the console)
      define: { "process.env.NODE_ENV": JSON.stringify("production") },
    });
    if (!result.success) {
      rmSync(tmp, { recursive: true, force: true });
      throw new AggregateError(result.logs, `web build of ${t.entry} failed:\n${result.logs.map(String).join("\n")}`);
    }
    for (const c of t.copy ?? []) copyFileSync(join(root, c), join(tmp, basename(c)));
    const dest = join(WEB_BUILD_DIR, t.dir);
    mkdirSync(dest, { recursive: true });
    // renaming a file over another is atomic: a request sees the old file or the new one
    for (const f of readdirSync(tmp)) renameSync(join(tmp, f), join(dest, f));
    rmSync(tmp, { recursive: true, force: true });
  }
  writeFileSync(STAMP, JSON.stringify({ fingerprint, built_at: new Date().toISOString() }) + "\n");
  return { built: true, files, ms: performance.now() - started };
}

if (import.meta.main) {
  try {
    const r = await buildWeb({ force: process.argv.includes("--force") });
    const what = r.files.map((f) => relative(root, f)).join(", ");
    console.log(r.built ? `[web] built ${what} in ${Math.round(r.ms)} ms` : `[web] up to date: ${what}`);
  } catch (err) {
    console.error(`[web] ${(err as Error).message}`);
    process.exit(1);
  }
}
