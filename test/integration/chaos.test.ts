// The short chaos check (scripts/chaos.ts --short) as part of npm test: separate api, sender,
// reconciler processes killed with SIGKILL under load lose nothing and send nothing twice.
import { expect, test } from "bun:test";
import { join } from "node:path";

const LAST_LINE = /^chaos: (\d+) accepted, (\d+) terminal, (\d+) lost, (\d+) true duplicates, (\d+) unknown-outcome retries, (\d+) runs completed, (\d+) duplicate steps$/;

test("chaos --short: every accepted notification terminal, none lost, no true duplicate", async () => {
  const child = Bun.spawn({
    cmd: [process.execPath, "scripts/chaos.ts", "--short"],
    cwd: join(import.meta.dir, "..", ".."),
    env: { ...process.env },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [out, err, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  const lines = out.trim().split("\n");
  const last = lines[lines.length - 1] ?? "";
  if (code !== 0 || !LAST_LINE.test(last)) console.error(`${out}\n${err}`);
  const m = LAST_LINE.exec(last);
  expect(m).not.toBeNull();
  const [accepted, terminal, lost, trueDuplicates] = m!.slice(1, 5).map(Number) as [number, number, number, number];
  expect(accepted).toBeGreaterThan(100);
  expect(lost).toBe(0);
  expect(trueDuplicates).toBe(0);
  expect(terminal).toBe(accepted);
  // the kills happened: the summary names each process killed
  expect(out).toMatch(/kill -9: api x1, channel-sender-1 x[1-9]/);
  expect(code).toBe(0);
}, 330_000); // under a minute on a quiet machine; on a loaded one the start alone may take 90 s and the load runs until 150 were accepted (at most 120 s more)
