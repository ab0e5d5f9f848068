// A local Redis Cluster for the cluster tests: six redis-server processes (three masters, three
// replicas) on spare ports, no persistence, their files under .nms/redis-cluster/<run>/; start, failover, kill, stop.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { portFree, processAlive } from "./probes";

const root = join(import.meta.dir, "..", "..");
const BASE_DIR = join(root, ".nms", "redis-cluster");
/** Data ports are drawn from 20000-25999; each node's cluster bus is its port + 6000 (26000-31999). */
const PORT_MIN = 20000;
const PORT_MAX = 25999;
const BUS_OFFSET = 6000;
const NODES = 6;
/**
 * How long a master may be unreachable before its replica takes over. Short so a kill fails over in
 * about 2 s, long enough that a busy 2-core machine does not fail healthy nodes over.
 */
const NODE_TIMEOUT_MS = 1500;

export interface ClusterNodeInfo {
  id: string;
  port: number;
  role: "master" | "replica";
  /** for a replica, the id of its master */
  masterId: string | null;
  /** slot ranges of a master, e.g. [[0, 5460]] */
  slots: [number, number][];
  alive: boolean;
}

export interface LocalRedisCluster {
  /** `redis+cluster://127.0.0.1:<p1>,127.0.0.1:<p2>,...` (runtime/redis-client.ts parses it) */
  readonly url: string;
  readonly ports: number[];
  readonly dir: string;
  /** The cluster as one live node sees it (CLUSTER NODES). */
  nodes(): Promise<ClusterNodeInfo[]>;
  /** The master serving the slot of `key` right now. */
  masterOf(key: string): Promise<ClusterNodeInfo>;
  /** A manual failover (CLUSTER FAILOVER on the master's replica): the replica is master when it resolves. */
  failover(masterPort: number): Promise<ClusterNodeInfo>;
  /** kill -9 of one node's process. */
  kill(port: number): void;
  /**
   * kill -9 of a master after holding its replica still (DEBUG SLEEP) for `lagMs`: what the master
   * accepted in that time never reaches the replica that takes over, as in a real crash under lag.
   */
  killWithLoss(masterPort: number, lagMs: number): Promise<void>;
  /** Starts a killed node again (it rejoins, as a replica when its master role was taken over). */
  restart(port: number): Promise<void>;
  /** Waits until every live node reports cluster_state:ok and agrees on who serves each slot. */
  waitHealthy(timeoutMs?: number): Promise<void>;
  /** Runs redis-cli against a node; returns stdout. */
  cli(port: number, ...args: string[]): string;
  stop(): Promise<void>;
}

/** Why cluster tests cannot run here, or null when they can. */
export function clusterUnavailableReason(): string | null {
  for (const bin of ["redis-server", "redis-cli"]) {
    if (spawnSync("sh", ["-c", `command -v ${bin}`]).status !== 0) return `${bin} is not installed (the launcher installs Debian's redis-server)`;
  }
  return null;
}

async function pickPorts(): Promise<number[]> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const base = PORT_MIN + Math.floor(Math.random() * (PORT_MAX - PORT_MIN - NODES));
    const ports = Array.from({ length: NODES }, (_, i) => base + i);
    const free = await Promise.all(ports.flatMap((p) => [portFree(p, "127.0.0.1"), portFree(p + BUS_OFFSET, "127.0.0.1")]));
    if (free.every(Boolean)) return ports;
  }
  throw new Error("no six free ports (and bus ports) in 20000-25999");
}

/** The redis-server pid we started for a port, if that process still runs (and is still ours). */
function isOurRedis(pid: number, port: number): boolean {
  try {
    const cmd = readFileSync(`/proc/${pid}/cmdline`, "utf8");
    return cmd.includes("redis-server") && cmd.includes(String(port));
  } catch {
    return false;
  }
}

/**
 * Clusters left by a test process that died without stopping them (kill -9 of `bun test`): their
 * owner pid is gone, so their redis-server processes (checked by pid and port) are killed and the dirs removed.
 */
function reapAbandoned() {
  if (!existsSync(BASE_DIR)) return;
  for (const run of readdirSync(BASE_DIR)) {
    const dir = join(BASE_DIR, run);
    let owner: { ownerPid: number; servers: { pid: number; port: number }[] };
    try {
      owner = JSON.parse(readFileSync(join(dir, "owner.json"), "utf8"));
    } catch {
      continue;
    }
    if (processAlive(owner.ownerPid)) continue;
    for (const s of owner.servers) if (isOurRedis(s.pid, s.port)) process.kill(s.pid, "SIGKILL");
    rmSync(dir, { recursive: true, force: true });
  }
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

function parseNodes(text: string): ClusterNodeInfo[] {
  return text
    .trim()
    .split("\n")
    .filter(Boolean)
    .map((line) => {
      const [id, addr, flags, master, , , , , ...slots] = line.split(" ");
      const port = Number(addr!.split("@")[0]!.split(":")[1]);
      const f = flags!.split(",");
      return {
        id: id!,
        port,
        role: f.includes("master") ? ("master" as const) : ("replica" as const),
        masterId: master === "-" ? null : master!,
        slots: slots
          .filter((s) => !s.startsWith("["))
          .map((s) => {
            const [a, b] = s.split("-").map(Number);
            return [a!, b ?? a!] as [number, number];
          }),
        alive: !f.includes("fail") && !f.includes("fail?") && !f.includes("noaddr"),
      };
    });
}

export async function startRedisCluster(): Promise<LocalRedisCluster> {
  const reason = clusterUnavailableReason();
  if (reason) throw new Error(reason);
  reapAbandoned();
  const ports = await pickPorts();
  const run = `${process.pid}-${ports[0]}`;
  const dir = join(BASE_DIR, run);
  mkdirSync(dir, { recursive: true });
  const procs = new Map<number, ChildProcess>();
  const writeOwner = () =>
    writeFileSync(join(dir, "owner.json"), JSON.stringify({ ownerPid: process.pid, servers: [...procs].map(([port, p]) => ({ port, pid: p.pid })) }));

  const launch = (port: number) => {
    const nodeDir = join(dir, String(port));
    mkdirSync(nodeDir, { recursive: true });
    // No persistence (no RDB, no AOF): nodes.conf alone lets a killed node rejoin with its identity.
    const child = spawn(
      "redis-server",
      [
        "--port", String(port),
        "--bind", "127.0.0.1",
        "--cluster-enabled", "yes",
        "--cluster-port", String(port + BUS_OFFSET),
        "--cluster-config-file", "nodes.conf",
        "--cluster-node-timeout", String(NODE_TIMEOUT_MS),
        // a replica cut off during the test may still be promoted: losing its last writes is what we test
        "--cluster-replica-validity-factor", "0",
        // DEBUG SLEEP on a replica (from localhost) holds its replication back before a kill
        "--enable-debug-command", "local",
        "--save", "",
        "--appendonly", "no",
        "--dir", nodeDir,
        "--logfile", join(nodeDir, "redis.log"),
      ],
      { stdio: "ignore" },
    );
    procs.set(port, child);
    writeOwner();
  };

  const cli = (port: number, ...args: string[]) => {
    const r = spawnSync("redis-cli", ["-p", String(port), ...args], { encoding: "utf8", timeout: 10_000 });
    if (r.status !== 0) throw new Error(`redis-cli -p ${port} ${args.join(" ")}: ${r.stderr || r.stdout}`);
    return r.stdout;
  };
  const answers = (port: number) => spawnSync("redis-cli", ["-p", String(port), "PING"], { encoding: "utf8", timeout: 2000 }).stdout.trim() === "PONG";

  const livePorts = () => ports.filter((p) => procs.get(p)?.exitCode === null && procs.get(p)?.signalCode === null);

  const nodes = async () => {
    for (const p of livePorts()) {
      try {
        return parseNodes(cli(p, "CLUSTER", "NODES"));
      } catch {
        /* try the next node */
      }
    }
    throw new Error("no cluster node answers");
  };

  const waitHealthy = async (timeoutMs = 20_000) => {
    const deadline = Date.now() + timeoutMs;
    let last = "";
    while (Date.now() < deadline) {
      try {
        const live = livePorts();
        const views = live.map((p) => {
          const info = cli(p, "CLUSTER", "INFO");
          if (!info.includes("cluster_state:ok")) throw new Error(`node ${p}: ${info.split("\n")[0]}`);
          // who serves each range, as this node sees it
          return parseNodes(cli(p, "CLUSTER", "NODES"))
            .filter((n) => n.role === "master" && n.slots.length)
            .map((n) => `${n.port}:${n.slots.map((s) => s.join("-")).join(",")}`)
            .sort()
            .join(" ");
        });
        if (views.every((v) => v === views[0])) {
          const all = await nodes();
          const masters = all.filter((n) => n.role === "master" && n.slots.length && n.alive);
          // every other live node replicates a live master and has its copy in sync (so a failover can happen)
          const replicas = all.filter((n) => n.alive && live.includes(n.port) && !masters.includes(n));
          const synced = replicas.filter(
            (r) => r.role === "replica" && masters.some((m) => m.id === r.masterId) && cli(r.port, "INFO", "replication").includes("master_link_status:up"),
          );
          if (masters.length === 3 && synced.length === replicas.length) return;
          last = `${masters.length} live masters, ${synced.length} of ${replicas.length} replicas in sync`;
        } else last = `nodes disagree: ${views.join(" | ")}`;
      } catch (err) {
        last = (err as Error).message;
      }
      await sleep(100);
    }
    throw new Error(`cluster not healthy after ${timeoutMs} ms: ${last}`);
  };

  // Should the test process end without stop() (a crash, process.exit), its servers go with it.
  const killAll = () => {
    for (const p of procs.values()) if (p.exitCode === null && p.signalCode === null) p.kill("SIGKILL");
    rmSync(dir, { recursive: true, force: true });
  };
  process.once("exit", killAll);

  for (const port of ports) launch(port);
  for (const port of ports) {
    const deadline = Date.now() + 10_000;
    while (!answers(port)) {
      if (Date.now() > deadline) throw new Error(`redis-server on ${port} did not start (see ${join(dir, String(port), "redis.log")})`);
      await sleep(50);
    }
  }
  cli(ports[0]!, "--cluster", "create", ...ports.map((p) => `127.0.0.1:${p}`), "--cluster-replicas", "1", "--cluster-yes");
  await waitHealthy();

  const cluster: LocalRedisCluster = {
    url: `redis+cluster://${ports.map((p) => `127.0.0.1:${p}`).join(",")}`,
    ports,
    dir,
    nodes,
    cli,
    waitHealthy,
    async masterOf(key) {
      const slot = Number(cli(livePorts()[0]!, "CLUSTER", "KEYSLOT", key).trim());
      const master = (await nodes()).find((n) => n.role === "master" && n.alive && n.slots.some(([a, b]) => slot >= a && slot <= b));
      if (!master) throw new Error(`no live master serves slot ${slot}`);
      return master;
    },
    async failover(masterPort) {
      const all = await nodes();
      const master = all.find((n) => n.port === masterPort && n.role === "master");
      if (!master) throw new Error(`${masterPort} is not a master`);
      const replica = all.find((n) => n.masterId === master.id && n.alive);
      if (!replica) throw new Error(`master ${masterPort} has no live replica`);
      // Masters vote for one failover of the same slots per 2 x node timeout: a master that itself
      // took over moments ago cannot be failed back at once, so the request is repeated until it wins.
      const deadline = Date.now() + 20_000;
      let askedAt = 0;
      for (;;) {
        if (Date.now() - askedAt > 2 * NODE_TIMEOUT_MS) {
          cli(replica.port, "CLUSTER", "FAILOVER");
          askedAt = Date.now();
        }
        const now = (await nodes()).find((n) => n.id === replica.id);
        if (now?.role === "master" && now.slots.length) break;
        if (Date.now() > deadline) throw new Error(`replica ${replica.port} did not take over from ${masterPort}`);
        await sleep(50);
      }
      await waitHealthy();
      return (await nodes()).find((n) => n.id === replica.id)!;
    },
    kill(port) {
      const child = procs.get(port);
      if (child?.pid && child.exitCode === null) child.kill("SIGKILL");
    },
    async killWithLoss(masterPort, lagMs) {
      const all = await nodes();
      const master = all.find((n) => n.port === masterPort && n.role === "master");
      const replica = master && all.find((n) => n.masterId === master.id && n.alive);
      if (!replica) throw new Error(`master ${masterPort} has no live replica`);
      if (lagMs >= NODE_TIMEOUT_MS) throw new Error("a replica asleep past the node timeout would be failed itself");
      // asynchronous: the test keeps writing while the replica sleeps
      const sleeper = spawn("redis-cli", ["-p", String(replica.port), "DEBUG", "SLEEP", String((lagMs + 300) / 1000)], { stdio: "ignore" });
      await sleep(50);
      // Cut the replication link too: otherwise what the master sent sits in the sleeping replica's
      // socket buffer and is applied when it wakes. The master is dead before the replica can resync.
      cli(masterPort, "CLIENT", "KILL", "TYPE", "replica");
      await sleep(lagMs);
      cluster.kill(masterPort);
      await new Promise((r) => (sleeper.exitCode !== null ? r(null) : sleeper.once("exit", r)));
    },
    async restart(port) {
      const old = procs.get(port);
      if (old && old.exitCode === null && old.signalCode === null) throw new Error(`node ${port} still runs`);
      if (old) await new Promise((r) => (old.exitCode !== null || old.signalCode !== null ? r(null) : old.once("exit", r)));
      launch(port);
      const deadline = Date.now() + 10_000;
      while (!answers(port)) {
        if (Date.now() > deadline) throw new Error(`redis-server on ${port} did not restart`);
        await sleep(50);
      }
    },
    async stop() {
      process.off("exit", killAll);
      const exits = [...procs.values()].map((p) => (p.exitCode !== null || p.signalCode !== null ? Promise.resolve() : new Promise((r) => p.once("exit", r))));
      for (const p of procs.values()) if (p.exitCode === null && p.signalCode === null) p.kill("SIGKILL");
      await Promise.all(exits);
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return cluster;
}

let shared: Promise<LocalRedisCluster> | null = null;

/**
 * The cluster every cluster test of this `bun test` process uses, started on first use; the preload
 * (test/support/preload.ts) stops it after the last test file.
 */
export function sharedRedisCluster(): Promise<LocalRedisCluster> {
  shared ??= startRedisCluster().catch((err) => {
    shared = null;
    throw err;
  });
  return shared;
}

export async function stopSharedRedisCluster(): Promise<void> {
  if (!shared) return;
  const c = await shared.catch(() => null);
  shared = null;
  await c?.stop();
}
