// Chaos as a check (issue 16): the api, two channel-senders, the reconciler (and a workflow-run
// process once that kind exists) as separate processes on a fresh database and Redis prefix, against
// the Twilio fake; open-loop load while actor processes are killed with SIGKILL every few seconds and
// the API once, each restarted; then it counts what became of every accepted notification.
//
// Usage: bun scripts/chaos.ts [--short] [--seconds N] [--rate N] [--kill-every S] [--settle S] [--min-accepted N] [--keep]
//   npm run chaos: the long version (60 s at 50/s, a kill every 4 s); npm test runs --short (8 s).
// Counts: accepted (202), terminal, lost (accepted, yet no row or not terminal once it settled), per
// notification the provider requests against its attempt rows: a true duplicate is two calls for one
// attempt (more calls than attempts that could make one) or two accepted calls without an
// outcome_unknown attempt between them; a call of an attempt recorded outcome_unknown (the sender died
// after calling) is followed by a retry, counted as an unknown-outcome retry. Workflow runs: completed,
// and (run, step) pairs with more than one notification.
// Last line: chaos: <N> accepted, <N> terminal, <N> lost, <N> true duplicates, <N> unknown-outcome
// retries, <N> runs completed, <N> duplicate steps. Exit 1 on any loss or true duplicate.
import { spawn, type Subprocess } from "bun";
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import postgres from "postgres";
import { processKinds } from "./process-kinds";
import { createRedisClient } from "../runtime";
import { deletePrefix, forEachLine } from "./bench-load";
import { judge, type BodyRows } from "./chaos-count";

const argv = process.argv.slice(2);
const flag = (name: string) => argv.includes(`--${name}`);
const option = (name: string, fallback: number) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 && argv[i + 1] !== undefined ? Number(argv[i + 1]) : fallback;
};
const short = flag("short");
const SECONDS = option("seconds", short ? 8 : 60);
const RATE = option("rate", short ? 30 : 50);
const KILL_EVERY_S = option("kill-every", short ? 2 : 4);
const SETTLE_S = option("settle", short ? 40 : 120);
// on a loaded machine the killed API can take seconds to come back and refuse most of a short load:
// the load goes on (at the same rate, kills included) until this many were accepted, at most 120 s more
const MIN_ACCEPTED = option("min-accepted", short ? 150 : 0);

const root = join(import.meta.dir, "..");
const bun = process.execPath;
const TERMINAL = ["sent", "delivered", "failed", "bounced", "suppressed"];
const START_TIMEOUT_MS = 90_000;
const baseUrl = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/nms";
const redisUrl = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const say = (line: string) => console.log(`chaos: ${line}`);

function dbUrl(name: string): string {
  const u = new URL(baseUrl);
  u.pathname = `/${name}`;
  return u.toString();
}

/** One `bun scripts/start.ts --only <kind>` (or another command) that can be SIGKILLed and restarted. */
class Proc {
  private child: Subprocess<"ignore", "pipe", "pipe"> | null = null;
  kills = 0;
  /** Printed its ready line and has not been killed since: only such a process is a kill's victim. */
  up = false;
  readonly tail: string[] = [];
  readonly errors = new Map<string, number>();

  constructor(
    readonly name: string,
    private readonly cmd: string[],
    private readonly env: Record<string, string | undefined>,
    private readonly ready: RegExp,
  ) {}

  /** Spawns it and resolves with the ready line's match once it printed it. */
  async start(): Promise<RegExpExecArray> {
    const child = spawn({ cmd: this.cmd, cwd: root, env: this.env, stdout: "pipe", stderr: "pipe" });
    this.child = child;
    let found: RegExpExecArray | null = null;
    const read = (stream: ReadableStream<Uint8Array>) =>
      forEachLine(stream, (line) => {
        this.tail.push(line);
        if (this.tail.length > 200) this.tail.shift();
        found ??= this.ready.exec(line);
        try {
          const j = JSON.parse(line);
          if (j.level >= 50) this.errors.set(j.msg, (this.errors.get(j.msg) ?? 0) + 1);
        } catch {}
      });
    void read(child.stdout);
    void read(child.stderr);
    // five processes start at once: on a loaded machine (npm test beside other work) that took over 30 s
    const deadline = Date.now() + START_TIMEOUT_MS;
    while (!found && Date.now() < deadline) {
      if (child.exitCode !== null) throw new Error(`${this.name} exited ${child.exitCode} while starting:\n${this.tail.slice(-20).join("\n")}`);
      await Bun.sleep(100);
    }
    if (!found) throw new Error(`${this.name} did not get ready within ${START_TIMEOUT_MS / 1000} s:\n${this.tail.slice(-20).join("\n")}`);
    this.up = true;
    return found;
  }

  kill9(): void {
    this.kills++;
    this.up = false;
    this.child?.kill("SIGKILL");
  }

  async restart(): Promise<void> {
    await this.child?.exited;
    await this.start();
  }

  /** SIGTERM, then SIGKILL past the service's own 30 s drain limit. */
  async stop(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    child.kill("SIGTERM");
    const exited = await Promise.race([child.exited.then(() => true), Bun.sleep(35_000).then(() => false)]);
    if (!exited) child.kill("SIGKILL");
  }
}

interface Accepted {
  id: string;
  tag: string;
}

async function api(base: string, method: string, path: string, token: string, body?: unknown): Promise<{ status: number; body: any }> {
  const r = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(15_000),
  });
  const text = await r.text();
  let parsed: any = null;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {}
  return { status: r.status, body: parsed };
}

const dataOf = (body: any) => body?.data ?? body;

async function main(): Promise<number> {
  const dbName = `nms_chaos_${randomBytes(4).toString("hex")}`;
  const prefix = `chaos${randomBytes(4).toString("hex")}`;
  const adminToken = `adm_chaos_${randomBytes(12).toString("hex")}`;
  const port = 20000 + Math.floor(Math.random() * 12000);
  const url = dbUrl(dbName);
  const admin = postgres(dbUrl("postgres"), { max: 1, onnotice: () => {} });
  const redis = createRedisClient(redisUrl, { maxRetriesPerRequest: 2 }); // REDIS_URL may name a cluster
  const procs: Proc[] = [];
  let sql: postgres.Sql | null = null;
  try {
    await admin.unsafe(`create database "${dbName}"`);
    const migrated = Bun.spawnSync({ cmd: [bun, "scripts/migrate.ts"], cwd: root, env: { ...process.env, DATABASE_URL: url }, stdout: "ignore", stderr: "inherit" });
    if (migrated.exitCode !== 0) throw new Error("migration failed");
    sql = postgres(url, { max: 4, onnotice: () => {} });

    const sid = `AC${randomBytes(16).toString("hex")}`;
    const authToken = randomBytes(12).toString("hex");
    const fake = new Proc("fake-twilio", [bun, "test/support/fake-twilio-process.ts", "--latency", "20:400", "--errors", "0.05", "--sid", sid, "--token", authToken], { ...process.env }, /^fake-twilio (\S+) report (\S+)/);
    procs.push(fake);
    const [, fakeUrl, reportUrl] = await fake.start();

    const env = {
      ...process.env,
      DATABASE_URL: url,
      REDIS_PREFIX: prefix,
      ADMIN_TOKEN: adminToken,
      ENCRYPTION_KEY: randomBytes(32).toString("base64"),
      PORT: String(port),
      LOG_LEVEL: "warn",
      TIME_SCALE: "0.001",
      RATE_LIMIT_PER_MINUTE: "100000000",
      // a kill -9 mid-call is called lost (outcome_unknown) 7 s after its claim instead of 30 s
      SENDER_PROVIDER_DEADLINE_MS: "2000",
      RECONCILER_STALE_AFTER_MS: "5000",
      RECONCILER_EVERY_MS: "1000",
      METRICS_PORT: undefined,
    };
    const kind = (name: string, k: string) => new Proc(name, [bun, "scripts/start.ts", "--only", k], env, /^ready: /);
    const apiProc = kind("api", "api");
    const actors = [kind("channel-sender-1", "channel-sender"), kind("channel-sender-2", "channel-sender"), kind("reconciler", "reconciler")];
    const workflowKind = processKinds().includes("workflow-run");
    if (workflowKind) actors.push(kind("workflow-run", "workflow-run"));
    procs.push(apiProc, ...actors);
    await Promise.all([apiProc.start(), ...actors.map((p) => p.start())]);
    const base = `http://127.0.0.1:${port}`;

    // ---- tenant, channel (the fake), and a workflow when this branch can run one ------------------
    const tenant = await api(base, "POST", "/api/internal/tenants", adminToken, { name: "chaos" });
    if (tenant.status !== 201) throw new Error(`tenant: ${tenant.status} ${JSON.stringify(tenant.body)}`);
    const key = dataOf(tenant.body).api_key.raw_key as string;
    const tenantId = dataOf(tenant.body).id as string;
    const channel = await api(base, "POST", "/v1/channels", key, {
      channel: "sms",
      provider: "twilio",
      credentials: { account_sid: sid, auth_token: authToken },
      settings: { from: "+14155550100", base_url: fakeUrl, rate_limit_per_second: 100000 },
    });
    if (channel.status !== 201) throw new Error(`channel: ${channel.status} ${JSON.stringify(channel.body)}`);
    let workflow: string | null = null;
    if (workflowKind) {
      const templates = await Promise.all(
        ["a", "b"].map((s) => api(base, "POST", "/v1/templates", key, { slug: `chaos-${s}`, name: `chaos ${s}`, channel: "sms", content: `{{ tag }} step ${s}`, status: "active" })),
      );
      const created = await api(base, "POST", "/v1/workflows", key, {
        slug: "chaos",
        name: "chaos",
        steps: [
          { type: "send", channel: "sms", template: "chaos-a" },
          { type: "send", channel: "sms", template: "chaos-b" },
        ],
      });
      if (templates.every((t) => t.status === 201) && created.status === 201) workflow = "chaos";
      else say(`a workflow could not be created (templates ${templates.map((t) => t.status).join("/")}, workflow ${created.status}): no runs`);
    } else say("no workflow-run kind in actors/index.ts on this branch: no runs are triggered (0 runs)");

    // ---- load, with kills ---------------------------------------------------------------------------
    const accepted: Accepted[] = [];
    const runs: { id: string; tag: string }[] = [];
    const refused: Record<string, number> = {};
    const firstError: Record<string, string> = {}; // what each kind of refusal said first, for the summary
    let seq = 0;
    const sendOne = async () => {
      const n = seq++;
      const asRun = workflow !== null && n % 5 === 4;
      const tag = asRun ? `wf-${n}` : `chaos-${n}`;
      try {
        const r = asRun
          ? await api(base, "POST", `/v1/workflows/${workflow}/trigger`, key, { to: "+5511912345678", data: { tag } })
          : await api(base, "POST", "/v1/notifications", key, { channel: "sms", to: "+5511912345678", data: { content: tag } });
        if (r.status === 202) (asRun ? runs : accepted).push({ id: dataOf(r.body).id, tag });
        else refused[r.status] = (refused[r.status] ?? 0) + 1;
      } catch (err) {
        const why = (err as Error).name === "TimeoutError" ? "timeout" : "connection";
        refused[why] = (refused[why] ?? 0) + 1;
        firstError[why] ??= String((err as Error)?.message ?? err).slice(0, 200);
      }
    };
    const inFlight = new Set<Promise<void>>();
    const restarts: Promise<void>[] = [];
    const started = performance.now();
    const total = Math.round(RATE * SECONDS);
    let nextKill = KILL_EVERY_S * 1000;
    let victim = 0;
    let apiKilled = false;
    const enough = () => seq >= total && (accepted.length + runs.length >= MIN_ACCEPTED || performance.now() - started > SECONDS * 1000 + 120_000);
    while (!enough()) {
      const elapsed = performance.now() - started;
      const due = accepted.length + runs.length + inFlight.size < MIN_ACCEPTED ? Infinity : total;
      while (seq < Math.min(due, Math.floor((elapsed * RATE) / 1000) + 1)) {
        const p = sendOne().finally(() => inFlight.delete(p));
        inFlight.add(p);
      }
      if (elapsed >= nextKill) {
        nextKill += KILL_EVERY_S * 1000;
        // a process still starting is left alone (on a loaded machine a start can take longer than the
        // kill period): the next one that is up dies instead, or none this round
        const p = actors.map((_, i) => actors[(victim + i) % actors.length]!).find((a) => a.up);
        victim++;
        if (p) {
          p.kill9();
          restarts.push(Bun.sleep(300).then(() => p.restart()));
        }
      }
      if (!apiKilled && elapsed >= SECONDS * 450) {
        apiKilled = true;
        apiProc.kill9();
        restarts.push(Bun.sleep(300).then(() => apiProc.restart()));
      }
      await Bun.sleep(5);
    }
    await Promise.all(inFlight);
    await Promise.all(restarts);
    const loadSeconds = (performance.now() - started) / 1000;

    // ---- settle: every accepted notification (and run) terminal, or the settle time is up ----------
    const ids = accepted.map((a) => a.id);
    const countTerminal = async () => (await sql!`select count(*)::int as n from notifications where id = any(${ids}::uuid[]) and status = any(${TERMINAL})`)[0]!.n as number;
    const runStatus = new Map<string, string>();
    const pollRuns = async () => {
      for (const r of runs) {
        if (["completed", "failed", "cancelled"].includes(runStatus.get(r.id) ?? "")) continue;
        const got = await api(base, "GET", `/v1/workflow-runs/${r.id}`, key).catch(() => null);
        if (got?.status === 200) runStatus.set(r.id, dataOf(got.body).status);
      }
    };
    const settleStart = performance.now();
    let terminal = await countTerminal();
    await pollRuns();
    const runsDone = () => runs.every((r) => ["completed", "failed", "cancelled"].includes(runStatus.get(r.id) ?? ""));
    // the notifications runs created are accepted work too: they must end terminal as well
    const stepsNotTerminal = async () =>
      workflow
        ? ((await sql!`select count(*)::int as n from notifications where tenant_id = ${tenantId} and content->>'content' like 'wf-%' and status <> all(${TERMINAL})`)[0]!.n as number)
        : 0;
    while ((terminal < ids.length || !runsDone() || (await stepsNotTerminal()) > 0) && performance.now() - settleStart < SETTLE_S * 1000) {
      await Bun.sleep(500);
      terminal = await countTerminal();
      await pollRuns();
    }
    const settledIn = (performance.now() - settleStart) / 1000;
    await Bun.sleep(1000); // late provider answers reach the fake's report

    // ---- count ---------------------------------------------------------------------------------------
    const rows = await sql`
      select n.id, n.status, n.content->>'content' as body,
        count(a.id) filter (where a.error->>'code' is distinct from 'outcome_unknown')::int as recorded,
        count(a.id) filter (where a.error->>'code' = 'outcome_unknown')::int as unknown
      from notifications n left join notification_attempts a on a.notification_id = n.id
      where n.tenant_id = ${tenantId}
      group by n.id`;
    const calls = (await (await fetch(reportUrl!)).json()) as [string, number][];
    const callsByBody = new Map<string, { calls: number; ok: number }>();
    for (const [body, ok] of calls) {
      const c = callsByBody.get(body) ?? { calls: 0, ok: 0 };
      c.calls++;
      c.ok += ok;
      callsByBody.set(body, c);
    }
    // one logical message per body (a (run, step) with two notification rows shares one body)
    const byBody = new Map<string, BodyRows>();
    for (const r of rows) {
      const g = byBody.get(r.body) ?? { ids: [], recorded: 0, unknown: 0 };
      g.ids.push(r.id);
      g.recorded += r.recorded;
      g.unknown += r.unknown;
      byBody.set(r.body, g);
    }
    let trueDuplicates = 0;
    let unknownRetries = 0;
    const duplicateExamples: string[] = [];
    for (const [body, g] of byBody) {
      const c = callsByBody.get(body) ?? { calls: 0, ok: 0 };
      const verdict = judge(g, c);
      if (verdict.trueDuplicate) {
        trueDuplicates++;
        if (duplicateExamples.length < 5) duplicateExamples.push(`${body}: ${c.calls} calls (${c.ok} accepted), ${g.recorded} recorded attempts, ${g.unknown} outcome_unknown, rows ${g.ids.join(",")}`);
      }
      unknownRetries += verdict.unknownOutcomeRetries;
    }
    const strayCalls = [...callsByBody.keys()].filter((b) => !byBody.has(b)).length;
    const rowById = new Map(rows.map((r) => [r.id as string, r]));
    const lost = accepted.filter((a) => !TERMINAL.includes(rowById.get(a.id)?.status));
    const acceptedIds = new Set(ids);
    const unacknowledged = rows.filter((r) => !acceptedIds.has(r.id) && !String(r.body).startsWith("wf-"));
    const runsCompleted = runs.filter((r) => runStatus.get(r.id) === "completed").length;
    const runsLost = runs.filter((r) => !["completed", "failed", "cancelled"].includes(runStatus.get(r.id) ?? ""));
    const stepsLost = rows.filter((r) => String(r.body).startsWith("wf-") && !TERMINAL.includes(r.status));
    const duplicateSteps = [...byBody].filter(([body, g]) => body?.startsWith("wf-") && g.ids.length > 1).reduce((n, [, g]) => n + g.ids.length - 1, 0);

    say(`${seq} requests in ${loadSeconds.toFixed(1)} s at ${RATE}/s; refused while processes died: ${JSON.stringify(refused)}${Object.keys(firstError).length ? `, first: ${JSON.stringify(firstError)}` : ""}`);
    say(`kill -9: ${[apiProc, ...actors].map((p) => `${p.name} x${p.kills}`).join(", ")}; settled in ${settledIn.toFixed(1)} s`);
    say(`provider: ${calls.length} requests (${calls.filter(([, ok]) => ok).length} accepted) for ${byBody.size} notifications; ${strayCalls} requests matched no notification`);
    say(`committed without a 202 (the API died answering): ${unacknowledged.length}, of them terminal ${unacknowledged.filter((r) => TERMINAL.includes(r.status)).length}`);
    if (workflow) say(`workflow runs: ${runs.length} triggered, ${runsCompleted} completed, ${runsLost.length} not terminal; step notifications not terminal: ${stepsLost.length}`);
    for (const p of [apiProc, ...actors]) for (const [msg, n] of p.errors) say(`  ${p.name} logged ${n}x error: ${msg}`);
    for (const l of lost.slice(0, 10)) say(`  lost ${l.id} (${l.tag}): ${rowById.get(l.id)?.status ?? "no row"}`);
    for (const d of duplicateExamples) say(`  true duplicate ${d}`);
    const lostTotal = lost.length + runsLost.length + stepsLost.length;
    console.log(
      `chaos: ${accepted.length + runs.length} accepted, ${accepted.length + runs.length - lost.length - runsLost.length} terminal, ${lostTotal} lost, ${trueDuplicates} true duplicates, ` +
        `${unknownRetries} unknown-outcome retries, ${runsCompleted} runs completed, ${duplicateSteps} duplicate steps`,
    );
    if (accepted.length === 0) {
      say("nothing was accepted: the check proved nothing");
      return 1;
    }
    return lostTotal > 0 || trueDuplicates > 0 ? 1 : 0;
  } finally {
    await Promise.all(procs.map((p) => p.stop()));
    await sql?.end();
    await deletePrefix(redis, prefix).catch((err) => console.error(`could not delete Redis prefix ${prefix}: ${err.message}`));
    redis.disconnect();
    if (flag("keep")) say(`kept database ${dbName}`);
    else await admin.unsafe(`drop database if exists "${dbName}" with (force)`).catch((err) => console.error(`could not drop ${dbName}: ${err.message}`));
    await admin.end();
  }
}

process.exit(await main());
