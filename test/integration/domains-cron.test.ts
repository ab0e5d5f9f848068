// The domain-health cron across processes: two `--only domain-health` processes (the Procfile line)
// run a schedule that ticks every second; each tick is fired by exactly one of them and checks each
// verified domain once; a check that stops passing raises an alert, resolved when it passes again.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawn, type ChildProcess } from "node:child_process";
import { join } from "node:path";
import { fireHealthTick } from "../../jobs/domain-health-cron";
import { config } from "../../config";
import { sql } from "../../store/db";
import { startFakeDns, type FakeDns } from "../support/fake-dns";
import { call, createTenant } from "../support/fixtures";
import { connect, deletePrefix, waitFor } from "../support/runtime-redis";
import { domainHealth } from "../../actors/domain-health";
import { createRuntime } from "../../runtime/runtime";
import { PROCESS_START_MS, stopChild } from "../support/spawn-ready";

const ROOT = join(import.meta.dir, "..", "..");
let dns: FakeDns;
let t: Awaited<ReturnType<typeof createTenant>>;
const run = Math.random().toString(36).slice(2, 8);
const domains: { id: string; domain: string; dns_records: Record<"txt" | "spf" | "dkim" | "dmarc", { name: string; value: string }> }[] = [];

interface CronProcess {
  child: ChildProcess;
  lines: { msg: string; tick?: string; domains?: number }[];
  readyAt: number;
  stop(): Promise<void>;
}

const cronChildren: ChildProcess[] = [];

async function startCronProcess(): Promise<CronProcess> {
  const child = spawn(join(ROOT, "node_modules", ".bin", "bun"), [join(ROOT, "scripts/start.ts"), "--only", "domain-health"], {
    cwd: ROOT,
    env: { ...process.env, DNS_SERVERS: dns.server, DOMAIN_HEALTH_CRON: "* * * * * *", LOG_LEVEL: "debug", REDIS_PREFIX: config.redisPrefix },
    stdio: ["ignore", "pipe", "pipe"],
  });
  cronChildren.push(child); // stopped by afterAll too: a test may fail before its own stop()
  const proc: CronProcess = {
    child,
    lines: [],
    readyAt: 0,
    async stop() {
      await stopChild(child); // resolves once it has exited, after the SIGKILL too
    },
  };
  let buffered = "";
  let output = "";
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`domain-health process did not start:\n${output}`)), PROCESS_START_MS);
    child.stdout!.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      buffered += chunk.toString();
      const parts = buffered.split("\n");
      buffered = parts.pop()!;
      for (const line of parts) {
        if (line.startsWith("ready:")) {
          proc.readyAt = Date.now();
          clearTimeout(timer);
          resolve();
        }
        if (!line.startsWith("{")) continue;
        try {
          const j = JSON.parse(line);
          if (typeof j.msg === "string" && j.msg.startsWith("domain-health tick")) proc.lines.push({ msg: j.msg, tick: j.tick, domains: j.domains });
        } catch {}
      }
    });
    child.stderr!.on("data", (c: Buffer) => (output += c.toString()));
    child.once("exit", (code) => reject(new Error(`domain-health process exited ${code}:\n${output}`)));
  });
  return proc;
}

async function addVerified(label: string) {
  const r = await call("POST", "/v1/domains", { key: t.secretKey, body: { domain: `${label}-${run}.com` } });
  const d = r.body.data;
  for (const k of ["txt", "spf", "dkim", "dmarc"] as const) dns.setTxt(d.dns_records[k].name, d.dns_records[k].value);
  expect((await call("POST", `/v1/domains/${d.id}/verify`, { key: t.secretKey })).body.data.status).toBe("verified");
  domains.push(d);
  return d;
}

async function cronChecks(domainId: string) {
  return await sql<{ tick: string }[]>`select tick from domain_health_checks where domain_id = ${domainId} and trigger = 'cron' order by tick`;
}

beforeAll(async () => {
  dns = await startFakeDns();
  process.env.DNS_SERVERS = dns.server;
  t = await createTenant();
  for (const label of ["cron-a", "cron-b", "cron-c"]) await addVerified(label);
  // a pending domain is never checked by the cron
  await call("POST", "/v1/domains", { key: t.secretKey, body: { domain: `cron-pending-${run}.com` } });
});

afterAll(async () => {
  await Promise.all(cronChildren.map((c) => stopChild(c)));
  await sql`delete from sending_domains where tenant_id = ${t.tenant.id}`;
  const r = connect();
  await deletePrefix(r, config.redisPrefix); // tick leases, streams and hosts of this file's processes
  await r.quit();
  await dns.stop();
  delete process.env.DNS_SERVERS;
});

describe("two cron processes", () => {
  test("one tick -> exactly one process fires it, and exactly one check per verified domain", async () => {
    const [p1, p2] = await Promise.all([startCronProcess(), startCronProcess()]);
    try {
      const bothSince = Math.max(p1.readyAt, p2.readyAt);
      // two full ticks after both run, with their checks done
      const checked = await waitFor(async () => {
        const ticks = [...p1.lines, ...p2.lines].filter((l) => l.msg.startsWith("domain-health tick fired:") && Date.parse(l.tick!) > bothSince).map((l) => l.tick!);
        if (ticks.length < 2) return null;
        const [a, b] = ticks.sort();
        for (const d of domains) {
          const got = (await cronChecks(d.id)).map((r) => r.tick);
          if (!got.includes(a!) || !got.includes(b!)) return null;
        }
        return [a!, b!];
      }, 20_000, 100);
      expect(checked).not.toBeNull();
      await Promise.all([p1.stop(), p2.stop()]);

      const all = [...p1.lines.map((l) => ({ ...l, p: 1 })), ...p2.lines.map((l) => ({ ...l, p: 2 }))];
      const fired = all.filter((l) => l.msg.startsWith("domain-health tick fired:"));
      const byTick = new Map<string, number[]>();
      for (const l of fired) byTick.set(l.tick!, [...(byTick.get(l.tick!) ?? []), l.p]);
      // every tick fired by one process only
      expect([...byTick.values()].filter((ps) => ps.length !== 1)).toEqual([]);
      // ...while both were ticking: the other one saw the same ticks and stood back
      for (const tick of checked!) {
        const others = all.filter((l) => l.tick === tick && l.msg === "domain-health tick fired by another process");
        expect(others.length).toBe(1);
        expect(others[0]!.p).not.toBe(byTick.get(tick)![0]);
      }
      // each fired tick enqueued every verified domain (ours among them), and checked each exactly once
      for (const l of fired) expect(l.domains).toBeGreaterThanOrEqual(domains.length);
      for (const d of domains) {
        const ticks = (await cronChecks(d.id)).map((r) => r.tick);
        expect(new Set(ticks).size).toBe(ticks.length);
        for (const tick of checked!) expect(ticks.filter((x) => x === tick).length).toBe(1);
        for (const tick of ticks) expect(byTick.has(tick)).toBe(true);
      }
      const [pending] = await sql`select count(*)::int as n from domain_health_checks c join sending_domains d on d.id = c.domain_id
        where d.tenant_id = ${t.tenant.id} and d.status = 'pending'`;
      expect(pending!.n).toBe(0);
    } finally {
      await Promise.all([p1.stop(), p2.stop()]);
    }
  });
});

describe("alerts from the cron's checks", () => {
  test("a record that disappears raises an alert at the next tick; published again, the alert is resolved", async () => {
    const runtime = createRuntime({ redisUrl: config.redisUrl, prefix: config.redisPrefix, partitions: config.partitions });
    const checks = runtime.startHost({ actors: [domainHealth], leaseMs: 3000, blockMs: 100 });
    await checks.ready;
    try {
      const d = domains[0]!;
      const tickAt = async (slot: Date) => {
        expect(await fireHealthTick(slot)).toBeGreaterThanOrEqual(domains.length);
        // the same slot again (a late second process) is refused by its lease
        expect(await fireHealthTick(slot)).toBeNull();
        const tick = slot.toISOString();
        expect(await waitFor(async () => (await cronChecks(d.id)).some((r) => r.tick === tick), 10_000)).toBe(true);
      };
      const base = Date.UTC(2030, 0, 1, 4, 0, 0) + Math.floor(Math.random() * 1e6) * 86_400_000;
      dns.clear(d.dns_records.dmarc.name);
      await tickAt(new Date(base));
      let alerts = (await call("GET", `/v1/domains/alerts?domain_id=${d.id}`, { key: t.secretKey })).body.data;
      expect(alerts.map((a: any) => [a.check, a.status, a.resolved_at])).toEqual([["dmarc", "missing", null]]);

      dns.setTxt(d.dns_records.dmarc.name, d.dns_records.dmarc.value);
      await tickAt(new Date(base + 86_400_000));
      alerts = (await call("GET", `/v1/domains/alerts?domain_id=${d.id}`, { key: t.secretKey })).body.data;
      expect(alerts.length).toBe(1);
      expect(alerts[0].resolved_at).not.toBeNull();
    } finally {
      await checks.stop();
      await runtime.close();
    }
  });
});
