// On-call tool for dead letters, the same actions as /api/internal/dead-letters (every one logged):
//   npm run dead-letters -- list [--actor A] [--limit 50] [--json]
//   npm run dead-letters -- show [--actor A] --id ID
//   npm run dead-letters -- redrive [--actor A] --id ID | --actor A --all
//   npm run dead-letters -- drop [--actor A] --id ID | --actor A --all
// Without --actor, an --id is looked up in every actor's dead letters. Exit 0 done, 1 not found, 2 usage.
import { userInfo, hostname } from "node:os";
import { AppError } from "../basics/errors";
import { deadLetterView, dropDeadLetter, listDeadLetters, redriveDeadLetter, showDeadLetter } from "../domain/operations/dead-letters";
import { deadLetterActors, getDeadLetter } from "../runtime";
import { getRuntime } from "../store/runtime-handle";

const USAGE = `usage: npm run dead-letters -- list [--actor A] [--limit N] [--json]
       npm run dead-letters -- show [--actor A] --id ID
       npm run dead-letters -- redrive [--actor A] --id ID | --actor A --all
       npm run dead-letters -- drop [--actor A] --id ID | --actor A --all`;

const [command, ...rest] = process.argv.slice(2);
const flags = new Map<string, string | true>();
for (let i = 0; i < rest.length; i++) {
  const a = rest[i]!;
  if (!a.startsWith("--")) usage(`unexpected argument ${a}`);
  const next = rest[i + 1];
  if (next !== undefined && !next.startsWith("--")) flags.set(a.slice(2), (i++, next));
  else flags.set(a.slice(2), true);
}
const str = (name: string) => {
  const v = flags.get(name);
  if (v === true) usage(`--${name} needs a value`);
  return v;
};
const by = `cli (${userInfo().username}@${hostname()})`;

function usage(why: string): never {
  console.error(`${why}\n${USAGE}`);
  process.exit(2);
}

/** The actor whose dead letters hold `id`: the one given, else the only one that has it. */
async function actorOf(id: string): Promise<string> {
  const given = str("actor");
  if (given) return given;
  const runtime = getRuntime();
  const found: string[] = [];
  for (const actor of await deadLetterActors(runtime)) if (await getDeadLetter(runtime, actor, id)) found.push(actor);
  if (found.length === 0) throw new AppError("dead_letter_not_found", `No dead letter ${id} in any actor's dead letters`);
  if (found.length > 1) usage(`dead letter ${id} exists for ${found.join(", ")}: add --actor`);
  return found[0]!;
}

/** Every dead-letter id of an actor, oldest first (for --all), read before acting so the loop ends. */
async function allIds(actor: string): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await listDeadLetters({ actor, cursor, limit: 500 }, by);
    ids.push(...page.items.map((d) => d.id));
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  return ids.reverse();
}

async function each(action: (actor: string, id: string) => Promise<string>) {
  const id = str("id");
  if (id) return console.log(await action(await actorOf(id), id));
  const actor = str("actor");
  if (!actor || flags.get("all") !== true) usage(`${command} needs --id ID, or --actor A --all`);
  const ids = await allIds(actor);
  for (const one of ids) console.log(await action(actor, one));
  console.log(`${command}: ${ids.length} dead letters of ${actor}`);
}

async function main() {
  switch (command) {
    case "list": {
      const limit = Number(str("limit") ?? 50);
      if (!Number.isInteger(limit) || limit < 1 || limit > 500) usage("--limit must be 1-500");
      const page = await listDeadLetters({ actor: str("actor"), limit }, by);
      if (flags.get("json") === true) return console.log(JSON.stringify({ data: page.items.map((d) => deadLetterView(d)), totals: page.totals }, null, 2));
      for (const d of page.items) {
        console.log([d.id, d.actor, `p${d.partition}`, `${d.deliveries}x`, d.failedAt, d.key, d.error.replace(/\s+/g, " ").slice(0, 100)].join("  "));
      }
      const totals = Object.entries(page.totals).map(([a, n]) => `${a} ${n}`).join(", ");
      return console.log(`${page.items.length} shown${page.nextCursor ? " (more: --limit)" : ""}; dead letters per actor: ${totals || "none"}`);
    }
    case "show": {
      const id = str("id");
      if (!id) usage("show needs --id ID");
      return console.log(JSON.stringify(deadLetterView(await showDeadLetter(await actorOf(id), id, by), true), null, 2));
    }
    case "redrive":
      return each(async (actor, id) => {
        const r = await redriveDeadLetter(actor, id, by);
        return `redriven ${actor} ${id} -> partition ${r.partition} entry ${r.entryId}`;
      });
    case "drop":
      return each(async (actor, id) => {
        await dropDeadLetter(actor, id, by);
        return `dropped ${actor} ${id}`;
      });
    default:
      usage(command ? `unknown command ${command}` : "a command is required");
  }
}

try {
  await main();
  process.exit(0);
} catch (err) {
  if (err instanceof AppError) {
    console.error(`${err.code}: ${err.message}`);
    process.exit(1);
  }
  throw err;
}
