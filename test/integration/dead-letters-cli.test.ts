// `npm run dead-letters` (scripts/dead-letters.ts) as an operator runs it: list, show, redrive and
// drop (one or --all), each action logged with who did it; usage errors exit 2, unknown ids 1.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { config } from "../../config";
import { partitionOf, type Runtime } from "../../runtime";
import { deleteActorKeys, makeDeadLetters, testRuntime } from "../support/dead-letters";

const root = join(import.meta.dir, "..", "..");
const suffix = Math.random().toString(36).slice(2, 8);
const A = `dl-cli-a-${suffix}`;
const B = `dl-cli-b-${suffix}`;
let runtime: Runtime;

beforeAll(async () => {
  runtime = testRuntime();
  await makeDeadLetters(runtime, A, [
    { key: "a-1", n: 1 },
    { key: "a-2", n: 2 },
  ]);
  await makeDeadLetters(runtime, B, [
    { key: "b-1", n: 1 },
    { key: "b-2", n: 2 },
    { key: "b-3", n: 3 },
  ]);
});
afterAll(async () => {
  await runtime.close();
  await deleteActorKeys([A, B]);
});

/** Runs the script on this run's prefix and database; log lines (JSON) are split from the output. */
function cli(...args: string[]) {
  const r = Bun.spawnSync({
    cmd: [process.execPath, "scripts/dead-letters.ts", ...args],
    cwd: root,
    env: { ...process.env, REDIS_PREFIX: config.redisPrefix, LOG_LEVEL: "info" },
  });
  const lines = r.stdout.toString().split("\n").filter(Boolean);
  const logs = lines.filter((l) => l.startsWith('{"level"')).map((l) => JSON.parse(l));
  return { code: r.exitCode, out: lines.filter((l) => !l.startsWith('{"level"')).join("\n"), err: r.stderr.toString(), logs };
}

const idsOf = async (actor: string) => (await runtime.redis.xrange(runtime.keys.dead(actor), "-", "+")).map(([id]) => id);

describe("npm run dead-letters", () => {
  test("list: one line per dead letter with its error, and the totals per actor; logged", () => {
    const r = cli("list", "--actor", A);
    expect(r.code).toBe(0);
    expect(r.out).toContain("cannot handle a-1#1");
    expect(r.out).toContain("cannot handle a-2#2");
    expect(r.out).toContain(`dead letters per actor: ${A} 2`);
    expect(r.logs).toContainEqual(expect.objectContaining({ action: "dead_letter.list", actor: A, by: expect.stringMatching(/^cli \(/) }));
  });

  test("show: the dead letter as JSON with its stack; an --id alone is found in any actor", async () => {
    const [id] = await idsOf(B);
    const r = cli("show", "--id", id!);
    expect(r.code).toBe(0);
    const shown = JSON.parse(r.out);
    expect(shown).toMatchObject({ id, actor: B, deliveries: 1, message: { n: expect.any(Number) } });
    expect(shown.stack).toContain("cannot handle");
  });

  test("redrive --id: back on the partition of its key, logged with the new entry id", async () => {
    const [id] = await idsOf(A);
    const [, fields] = (await runtime.redis.xrange(runtime.keys.dead(A), id!, id!))[0]!;
    const key = fields[fields.indexOf("k") + 1]!;
    const r = cli("redrive", "--actor", A, "--id", id!);
    expect(r.code).toBe(0);
    const p = partitionOf(key, runtime.partitions);
    expect(r.out).toMatch(new RegExp(`^redriven ${A} ${id} -> partition ${p} entry \\d+-\\d+$`));
    const log = r.logs.find((l) => l.action === "dead_letter.redrive");
    expect(log).toMatchObject({ actor: A, dead_letter_id: id, key, partition: p, by: expect.stringMatching(/^cli \(/) });
    const entry = (await runtime.redis.xrange(runtime.keys.stream(A, p), log.entry_id, log.entry_id))[0]!;
    expect(entry[1].slice(0, 2)).toEqual(["k", key]);
    expect(await idsOf(A)).not.toContain(id);
  });

  test("drop --actor --all: every dead letter of the actor, each logged", async () => {
    const before = await idsOf(B);
    expect(before).toHaveLength(3);
    const r = cli("drop", "--actor", B, "--all");
    expect(r.code).toBe(0);
    expect(r.out).toContain(`drop: 3 dead letters of ${B}`);
    expect(r.logs.filter((l) => l.action === "dead_letter.drop").map((l) => l.dead_letter_id).sort()).toEqual([...before].sort());
    expect(await idsOf(B)).toEqual([]);
  });

  test("usage errors exit 2; an unknown id exits 1 with the error code", () => {
    expect(cli().code).toBe(2);
    expect(cli("explode").code).toBe(2);
    const noTarget = cli("redrive", "--actor", A);
    expect(noTarget.code).toBe(2);
    expect(noTarget.err).toContain("--id ID, or --actor A --all");
    const missing = cli("drop", "--actor", A, "--id", "1-0");
    expect(missing.code).toBe(1);
    expect(missing.err).toContain("dead_letter_not_found");
  });
});
