// A real streaming replica for tests (issue 26 item 3): pg_basebackup from the test's PostgreSQL into
// a temporary folder, a second postgres on a free port streaming from it; stopped and removed by stop().
// When the primary refuses replication connections (its pg_hba.conf has no `replication` line, as on a
// stock Debian install), the test starts a throwaway primary of its own on another port, with the same
// binaries, and streams from that instead: `reason` says which and why.
import { spawnSync } from "node:child_process";
import { chmodSync, mkdtempSync, rmSync, writeFileSync, appendFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import postgres from "postgres";
import { migrate } from "../../store/migrate";

const BIN = process.env.PG_BIN ?? "/usr/lib/postgresql/15/bin";
const asRoot = process.getuid?.() === 0;

/** postgres refuses to run as root: run the binaries as the postgres user then. */
function pg(cmd: string, args: string[], timeoutMs = 60_000): { ok: boolean; out: string } {
  const full = join(BIN, cmd);
  const r = asRoot
    ? spawnSync("runuser", ["-u", "postgres", "--", full, ...args], { encoding: "utf8", timeout: timeoutMs })
    : spawnSync(full, args, { encoding: "utf8", timeout: timeoutMs });
  return { ok: r.status === 0, out: `${r.stdout ?? ""}${r.stderr ?? ""}${r.error ? String(r.error) : ""}` };
}

async function freePort(): Promise<number> {
  return await new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

function ownedTempDir(name: string): string {
  const dir = mkdtempSync(join(tmpdir(), `nms-${name}-`));
  chmodSync(dir, 0o700);
  if (asRoot) spawnSync("chown", ["postgres:postgres", dir]);
  return dir;
}

export interface ReplicaPair {
  primaryUrl: string;
  replicaUrl: string;
  /** Which primary the replica streams from, and why. */
  reason: string;
  stop(): Promise<void>;
}

function startServer(dataDir: string, port: number, sockDir: string): { ok: boolean; out: string } {
  return pg("pg_ctl", ["-D", dataDir, "-l", join(sockDir, "log"), "-w", "-t", "60", "-o", `-p ${port} -k ${sockDir} -c listen_addresses=127.0.0.1`, "start"]);
}

async function waitStreaming(url: string): Promise<void> {
  const db = postgres(url, { max: 1, onnotice: () => {} });
  try {
    const deadline = Date.now() + 30_000;
    for (;;) {
      try {
        const [r] = await db`select pg_is_in_recovery() as standby, exists (select 1 from pg_stat_wal_receiver where status = 'streaming') as streaming`;
        if (r!.standby && r!.streaming) return;
      } catch {}
      if (Date.now() > deadline) throw new Error("the replica did not start streaming within 30 s");
      await Bun.sleep(100);
    }
  } finally {
    await db.end();
  }
}

/**
 * Starts a replica of `primaryUrl` (the test database on 127.0.0.1:5432). Falls back to a throwaway
 * primary (migrated) when that server refuses replication connections.
 */
export async function startReplicaPair(primaryUrl: string): Promise<ReplicaPair> {
  const dirs: string[] = [];
  const running: string[] = [];
  const stop = async () => {
    for (const d of running.reverse()) pg("pg_ctl", ["-D", d, "-m", "immediate", "-w", "stop"]);
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  };
  try {
    const u = new URL(primaryUrl);
    let source = { host: u.hostname, port: u.port || "5432", url: primaryUrl };
    const replicaHome = ownedTempDir("replica");
    dirs.push(replicaHome);
    const replicaData = join(replicaHome, "data");
    let backup = pg("pg_basebackup", ["-h", source.host, "-p", source.port, "-U", "postgres", "-D", replicaData, "-X", "stream", "-R", "-c", "fast"]);
    let reason = `streaming from the test primary ${source.host}:${source.port}`;
    if (!backup.ok) {
      const why = backup.out.trim().split("\n").pop();
      // the test primary refuses replication: a throwaway primary of our own, same binaries
      const primaryHome = ownedTempDir("primary");
      dirs.push(primaryHome);
      const primaryData = join(primaryHome, "data");
      const init = pg("initdb", ["-D", primaryData, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync"]);
      if (!init.ok) throw new Error(`initdb failed: ${init.out}`);
      appendFileSync(join(primaryData, "postgresql.conf"), "\nwal_level = replica\nmax_wal_senders = 4\nfsync = off\nsynchronous_commit = on\n");
      writeFileSync(join(primaryData, "pg_hba.conf"), "local all all trust\nhost all all 127.0.0.1/32 trust\nhost replication all 127.0.0.1/32 trust\nlocal replication all trust\n");
      const port = await freePort();
      const started = startServer(primaryData, port, primaryHome);
      if (!started.ok) throw new Error(`the throwaway primary did not start: ${started.out}`);
      running.push(primaryData);
      const url = `postgres://postgres@127.0.0.1:${port}/nms_replica_test`;
      const admin = postgres(`postgres://postgres@127.0.0.1:${port}/postgres`, { max: 1, onnotice: () => {} });
      await admin`create database nms_replica_test`;
      await admin.end();
      await migrate(url, () => {});
      source = { host: "127.0.0.1", port: String(port), url };
      reason =
        `${u.hostname}:${u.port || 5432} refuses replication connections (${why}); to stream from it, add ` +
        `"host replication postgres 127.0.0.1/32 trust" to its pg_hba.conf and reload (wal_level replica and max_wal_senders > 0 are ` +
        `already the defaults). Meanwhile: a throwaway primary on 127.0.0.1:${port}, same PostgreSQL binaries`;
      backup = pg("pg_basebackup", ["-h", source.host, "-p", source.port, "-U", "postgres", "-D", replicaData, "-X", "stream", "-R", "-c", "fast"]);
      if (!backup.ok) throw new Error(`pg_basebackup failed: ${backup.out}`);
    }
    // the standby: its own port and socket folder, hot_standby on (the default), fast status feedback
    appendFileSync(join(replicaData, "postgresql.conf"), "\nhot_standby = on\nwal_receiver_status_interval = 1s\nfsync = off\n");
    const replicaPort = await freePort();
    const started = startServer(replicaData, replicaPort, replicaHome);
    if (!started.ok) throw new Error(`the replica did not start: ${started.out}`);
    running.push(replicaData);
    const dbName = new URL(source.url).pathname.slice(1);
    const replicaUrl = `postgres://postgres@127.0.0.1:${replicaPort}/${dbName}`;
    await waitStreaming(replicaUrl);
    return { primaryUrl: source.url, replicaUrl, reason, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
