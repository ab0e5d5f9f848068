// Log lines of a runtime host name each field once (issue 14 item 16: `host` was bound by the
// host's child logger and written again by its loops and its stop line).
import { expect, test } from "bun:test";
import pino from "pino";
import { createRuntime, defineActor } from "../../runtime";
import { connect, deletePrefix, randomPrefix, REDIS_URL, sleep } from "../support/runtime-redis";

/** Top-level keys of a JSON line that occur more than once (JSON.parse would keep only the last). */
function repeatedKeys(line: string): string[] {
  const seen = new Map<string, number>();
  let depth = 0;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (c === '"') {
      let j = i + 1;
      while (line[j] !== '"') j += line[j] === "\\" ? 2 : 1;
      if (depth === 1 && line[j + 1] === ":") {
        const key = line.slice(i + 1, j);
        seen.set(key, (seen.get(key) ?? 0) + 1);
      }
      i = j;
    } else if (c === "{" || c === "[") depth++;
    else if (c === "}" || c === "]") depth--;
  }
  return [...seen].filter(([, n]) => n > 1).map(([k]) => k);
}

test("a host's loop failures and its stop line carry `host` once", async () => {
  const lines: string[] = [];
  const logger = pino({ level: "debug", base: { service: "nms" } }, { write: (l: string) => void lines.push(l) }).child({ component: "runtime" });
  const prefix = randomPrefix("loglines");
  const runtime = createRuntime({ redisUrl: REDIS_URL, prefix, partitions: 2, timeScale: 1, logger });
  const actor = defineActor<{ k: string }>({ name: "echo", keyOf: (m) => m.k, handle: async () => {} });
  const host = runtime.startHost({ actors: [actor], leaseMs: 1500, timerPollMs: 20 });
  await host.ready;
  // Redis refuses the runtime's commands for a while: the timer loop logs its failures
  runtime.redis.disconnect();
  await sleep(300);
  await host.stop();
  await runtime.close();
  const admin = connect();
  await deletePrefix(admin, prefix);
  await admin.quit();

  expect(lines.some((l) => l.includes("background loop run failed"))).toBe(true);
  expect(lines.some((l) => l.includes("runtime host stopped"))).toBe(true);
  const repeated = lines.map((l) => [JSON.parse(l).msg, repeatedKeys(l)] as const).filter(([, keys]) => keys.length > 0);
  expect(repeated).toEqual([]);
  for (const l of lines) expect(JSON.parse(l).host).toBe(host.id);
});

test("the detector sees a repeated key", () => {
  expect(repeatedKeys('{"host":"a","msg":"x","host":"a"}')).toEqual(["host"]);
  expect(repeatedKeys('{"host":"a","err":{"host":"b"},"list":[{"host":"c"}]}')).toEqual([]);
});
