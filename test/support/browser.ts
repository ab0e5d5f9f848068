// Debian's chromium driven by playwright-core for the browser tests (test/e2e): headless with a
// fresh profile, console errors collected per page, screenshots saved under .nms/screenshots/.
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type BrowserContext, type Page } from "playwright-core";

/** scripts/launch.mjs installs Debian's package here when `npm test` finds it missing. */
export const CHROMIUM_PATH = "/usr/bin/chromium";
/** Git-ignored (.nms/): a reviewer opens them after a run; nothing is committed. */
export const SCREENSHOT_DIR = join(import.meta.dir, "..", "..", ".nms", "screenshots");

// Without the background-networking switches this machine refuses Chromium's connections; QUIC
// and the component updater would also reach for the network.
const FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

export interface TestPage {
  page: Page;
  /** console.error messages and uncaught exceptions of the page, in order. */
  consoleErrors: string[];
  /** Saves a full-page PNG as SCREENSHOT_DIR/<name>.png and returns its path. */
  screenshot(name: string): Promise<string>;
}

export interface TestBrowser {
  newPage(): Promise<TestPage>;
  close(): Promise<void>;
}

/**
 * Launches chromium with a fresh --user-data-dir (deleted by close()). `args` adds switches, e.g.
 * `--host-resolver-rules=MAP *.test 127.0.0.1` to give local servers distinct host names.
 */
export async function startBrowser(opts: { args?: string[] } = {}): Promise<TestBrowser> {
  const profile = mkdtempSync(join(tmpdir(), "nms-chromium-"));
  let context: BrowserContext;
  try {
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM_PATH,
      headless: true,
      args: [...FLAGS, ...(opts.args ?? [])],
      viewport: { width: 1000, height: 700 },
      timeout: 30_000,
    });
  } catch (err) {
    rmSync(profile, { recursive: true, force: true });
    throw new Error(`could not start ${CHROMIUM_PATH} (npm test installs Debian's chromium when it is missing): ${(err as Error).message}`);
  }
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  return {
    async newPage() {
      const page = await context.newPage();
      const consoleErrors: string[] = [];
      page.on("console", (m) => {
        if (m.type() === "error") consoleErrors.push(`${m.text()} (${m.location().url})`);
      });
      page.on("pageerror", (err) => consoleErrors.push(`uncaught: ${err.message}`));
      return {
        page,
        consoleErrors,
        async screenshot(name: string) {
          const path = join(SCREENSHOT_DIR, `${name}.png`);
          // from the top: a full-page capture scrolled down draws the sticky header mid-page
          await page.evaluate(() => window.scrollTo(0, 0));
          await page.screenshot({ path, fullPage: true });
          return path;
        },
      };
    },
    async close() {
      await context.close().catch(() => {});
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
