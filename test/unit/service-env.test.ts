// Every way the service starts gets scripts/service-env.mjs's settings (npm start's launcher, the
// Procfile's lines, the benches' starts), and the Bun in node_modules accepts them: an option JSC
// does not know stops the process at start, so a Bun upgrade that drops one fails here first.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { SERVICE_ENV, withServiceEnv } from "../../scripts/service-env.mjs";

const ROOT = join(import.meta.dir, "..", "..");
const BUN = join(ROOT, "node_modules", ".bin", "bun");

describe("the service's start environment", () => {
  test("names the FTL and allocator settings, and an operator's own value wins", () => {
    expect(SERVICE_ENV.BUN_JSC_useFTLJIT).toBe("0");
    expect(SERVICE_ENV.MIMALLOC_PURGE_HOLES_MIN_INTERVAL).toBe("1000");
    expect(withServiceEnv({ PATH: "/bin" })).toEqual({ PATH: "/bin", ...SERVICE_ENV });
    expect(withServiceEnv({ BUN_JSC_useFTLJIT: "1" }).BUN_JSC_useFTLJIT).toBe("1");
  });

  test("each Procfile line starts bun with every setting", () => {
    const lines = readFileSync(join(ROOT, "Procfile"), "utf8").split("\n").filter((l) => l.trim());
    expect(lines.length).toBeGreaterThan(5);
    for (const line of lines) {
      const command = line.slice(line.indexOf(":") + 1).trim();
      for (const [k, v] of Object.entries(SERVICE_ENV)) expect(command.startsWith(`${k}=${v} `) || command.includes(` ${k}=${v} `)).toBe(true);
      // the api from source; an actor kind through run-kind.sh (its compiled binary when current, else
      // the same bun start), which keeps the environment the line set
      const kind = line.slice(0, line.indexOf(":"));
      expect(command).toContain(kind === "api" ? "node_modules/.bin/bun scripts/start.ts --only api" : `sh scripts/run-kind.sh ${kind}`);
    }
  });

  test("the launcher and the benches' starts add it", () => {
    expect(readFileSync(join(ROOT, "scripts/launch.mjs"), "utf8")).toContain('run(bun, ["scripts/start.ts", ...rest], withServiceEnv(env))');
    expect(readFileSync(join(ROOT, "scripts/perf/meter.ts"), "utf8")).toContain("...withServiceEnv(process.env)");
    const cost = readFileSync(join(ROOT, "scripts/perf/cost.sh"), "utf8");
    expect(cost).toContain('import { SERVICE_ENV, withServiceEnv } from "./scripts/service-env.mjs"');
    expect(cost.match(/env "\$\{svcenv\[@\]\}" setsid node_modules\/\.bin\/bun/g)?.length).toBe(2);
  });

  test("this Bun starts with them and runs code (an unknown JSC option would end it at start)", async () => {
    const proc = Bun.spawn([BUN, "-e", "let s = 0; for (let i = 0; i < 2e6; i++) s += i % 7; console.log(s)"], {
      env: withServiceEnv({ PATH: process.env.PATH ?? "/usr/bin:/bin" }),
      stdout: "pipe",
      stderr: "pipe",
    });
    const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    expect({ code, err: err.slice(0, 300) }).toEqual({ code: 0, err: "" });
    let expected = 0;
    for (let i = 0; i < 2e6; i++) expected += i % 7;
    expect(out.trim()).toBe(String(expected));
  });

  test("this Bun's allocator reads the purge interval (mimalloc ignores an option it does not know)", async () => {
    const options = async (env: Record<string, string | undefined>) => {
      const proc = Bun.spawn([BUN, "-e", "1"], { env: { PATH: process.env.PATH ?? "/usr/bin:/bin", MIMALLOC_VERBOSE: "1", ...env }, stdout: "pipe", stderr: "pipe" });
      const [err] = await Promise.all([new Response(proc.stderr).text(), proc.exited]);
      return err.match(/option 'purge_holes_min_interval': (-?\d+)/)?.[1];
    };
    expect(await options(withServiceEnv({}))).toBe("1000");
    expect(await options({})).toBe("100");
  });

  test("a JSC option this Bun does not know does end it (so the test above can fail)", async () => {
    const proc = Bun.spawn([BUN, "-e", "console.log(1)"], { env: { PATH: process.env.PATH ?? "/usr/bin:/bin", BUN_JSC_noSuchOptionAtAll: "0" }, stdout: "pipe", stderr: "pipe" });
    expect(await proc.exited).not.toBe(0);
  });
});
