// Disposable/blocked email domains: the blocked_domains table (seeded from the
// disposable-email-domains package), its admin edits, and the in-process lookup cache.
//
// Hot paths (notification sends, subscriber writes, sign-ups) call isBlockedEmail/isBlockedDomain,
// so lookups read an in-process Set and never touch PostgreSQL after the first load.
// Redis (store/redis-keys.ts): blockedDomainsVersion, INCR'd on every change and polled every POLL_MS
// as a fallback; blockedDomainsChanged, a pub/sub channel whose messages make every process reload now.
import { emailDomain, normalizeDomain } from "../schemas/email";
import { sql, type Tx } from "./db";
import { pubsub } from "./pubsub";
import { redis } from "./redis";
import { redisKeys } from "./redis-keys";

const POLL_MS = 2000;
const SEED_LOCK = 827364777;

export interface BlockedDomainRow {
  domain: string;
  /** seed: from the disposable-email-domains package; manual: blocked by an admin */
  source: "seed" | "manual";
  created_at: Date;
}

// ---------------------------------------------------------------------------------------------
// Seeding from the package: once per package version, skipping domains an admin unblocked.

// imported by literal names (so a compiled binary carries them), the large list only when seeding
async function packageVersion(): Promise<string> {
  const pkg = await import("disposable-email-domains/package.json");
  return (pkg.default ?? pkg).version as string;
}
async function packageDomains(): Promise<string[]> {
  const list = await import("disposable-email-domains");
  return (list.default ?? list) as unknown as string[];
}

let seeding: Promise<void> | null = null;

/** Inserts the package's domains (ON CONFLICT DO NOTHING) unless this version was seeded already. */
export function ensureBlocklistSeeded(): Promise<void> {
  return (seeding ??= seedOnce().catch((err) => {
    seeding = null; // let the next caller retry
    throw err;
  }));
}

async function seedOnce(): Promise<void> {
  const version = await packageVersion();
  const [done] = await sql`select 1 from blocked_domain_seeds where version = ${version}`;
  if (done) return;
  const domains = await packageDomains();
  const clean = [...new Set(domains.map((d) => normalizeDomain(d)).filter((d): d is string => d !== null))];
  const seeded = await sql.begin(async (tx) => {
    // several processes may start together; one seeds, the others find the version row
    await tx`select pg_advisory_xact_lock(${SEED_LOCK})`;
    const [again] = await tx`select 1 from blocked_domain_seeds where version = ${version}`;
    if (again) return false;
    await tx`
      insert into blocked_domains (domain, source)
      select d, 'seed' from unnest(${clean}::text[]) as d
      where not exists (select 1 from unblocked_domains u where u.domain = d)
      on conflict do nothing`;
    await tx`insert into blocked_domain_seeds (version, count) values (${version}, ${clean.length})`;
    return true;
  });
  // 120,000 new rows: vacuumed and analyzed now, at the start, rather than by autovacuum (or, with it off, the
  // table-statistics job) during the first minute of service
  if (seeded) await sql`vacuum (analyze) blocked_domains`;
  await announceChange();
}

// ---------------------------------------------------------------------------------------------
// The in-process cache.

let cache: Set<string> | null = null;
let loading: Promise<Set<string>> | null = null;
let knownVersion: string | null = null;
let lastPoll = 0;
let subscribed = false;
/**
 * Edits this process committed and applied to the cache. A load whose read began before one may
 * have read the table before it committed; installing those rows would undo the edit (a domain
 * just unblocked would be blocked again until the next load).
 */
let localEdits = 0;

async function load(): Promise<Set<string>> {
  await ensureBlocklistSeeded();
  for (let read = 1; ; read++) {
    const editsBefore = localEdits;
    const version = await currentVersion();
    const rows = await sql<{ domain: string }[]>`select domain from blocked_domains`;
    const raced = localEdits !== editsBefore;
    if (raced && read < 3) continue; // read again: the edit has committed by now
    // still racing a stream of edits: keep the cache they were applied to; each edit's announcement
    // (pub/sub, heard by this process too) brings another load
    if (raced && cache) return cache;
    cache = new Set(rows.map((r) => r.domain));
    knownVersion = version;
    lastPoll = Date.now();
    return cache;
  }
}

/** After an edit has committed: into the cache at once, and counted so no older read undoes it. */
function applyLocalEdit(domain: string, blocked: boolean): void {
  localEdits++;
  if (blocked) cache?.add(domain);
  else cache?.delete(domain);
}

let reloadAgain = false;

function reload(): Promise<Set<string>> {
  if (loading) {
    // a change may have committed after the running load read the table: read once more
    reloadAgain = true;
    return loading;
  }
  loading = load().finally(() => {
    loading = null;
    if (reloadAgain) {
      reloadAgain = false;
      void reload().catch(() => {});
    }
  });
  return loading;
}

async function currentVersion(): Promise<string | null> {
  try {
    return await redis.get(redisKeys.blockedDomainsVersion());
  } catch {
    return knownVersion; // Redis down: keep serving what we have
  }
}

function subscribeOnce(): void {
  if (subscribed) return;
  subscribed = true;
  // if this fails, the version poll still picks changes up
  pubsub.subscribe(redisKeys.blockedDomainsChanged(), () => void reload().catch(() => {})).catch(() => {});
}

function pollVersion(): void {
  lastPoll = Date.now();
  void currentVersion().then((v) => {
    if (v !== knownVersion) void reload().catch(() => {});
  });
}

async function blockedSet(): Promise<Set<string>> {
  if (!cache) {
    subscribeOnce();
    return reload();
  }
  if (Date.now() - lastPoll > POLL_MS) pollVersion();
  return cache;
}

async function announceChange(): Promise<void> {
  try {
    const v = await redis.incr(redisKeys.blockedDomainsVersion());
    knownVersion = String(v);
    await pubsub.publish(redisKeys.blockedDomainsChanged(), [String(v)]);
  } catch {
    // other processes catch up on their next version poll once Redis is back
  }
}

function matches(set: Set<string>, domain: string): boolean {
  // a.b.example.com is blocked by a.b.example.com, b.example.com or example.com
  let d = domain;
  for (;;) {
    if (set.has(d)) return true;
    const dot = d.indexOf(".");
    if (dot < 0) return false;
    d = d.slice(dot + 1);
  }
}

/** Seeds if needed and loads the cache, so the first hot-path lookup does not pay for it. */
export async function warmBlocklist(): Promise<void> {
  await blockedSet();
}

/** True when the domain or one of its parent domains is blocked. Case-insensitive. */
export async function isBlockedDomain(domain: string): Promise<boolean> {
  const d = normalizeDomain(domain);
  if (!d) return false;
  return matches(await blockedSet(), d);
}

/** True when the address's domain (or a parent of it) is blocked. Invalid addresses: false. */
export async function isBlockedEmail(email: string): Promise<boolean> {
  const d = emailDomain(email);
  if (!d) return false;
  return matches(await blockedSet(), d);
}

// ---------------------------------------------------------------------------------------------
// Admin edits.

/** Where a page of the admin list ends: the sort key of its last entry. */
export interface BlockedDomainCursor {
  seed: boolean;
  /** created_at with microseconds, as PostgreSQL wrote it */
  at: string;
  domain: string;
}

export function encodeBlockedCursor(c: BlockedDomainCursor): string {
  return Buffer.from(JSON.stringify([c.seed ? 1 : 0, c.at, c.domain])).toString("base64url");
}

export function decodeBlockedCursor(raw: string): BlockedDomainCursor | null {
  try {
    const [seed, at, domain] = JSON.parse(Buffer.from(raw, "base64url").toString("utf8"));
    if ((seed !== 0 && seed !== 1) || typeof at !== "string" || Number.isNaN(Date.parse(at)) || typeof domain !== "string") return null;
    return { seed: seed === 1, at, domain };
  } catch {
    return null;
  }
}

/**
 * The admin list: manual entries first (newest first), then the seeds (alphabetically: they share
 * the seeding's created_at), `limit + 1` rows after the cursor. `search` matches a substring of
 * the domain (a trigram index serves it). Rows carry `at`, created_at with its microseconds.
 */
export async function listBlockedDomains(opts: { search?: string; limit: number; after?: BlockedDomainCursor | null }) {
  await ensureBlocklistSeeded();
  const search = opts.search?.trim().toLowerCase() || null;
  const pattern = search ? `%${search.replace(/[\\%_]/g, (c) => `\\${c}`)}%` : null;
  const a = opts.after;
  return sql<(BlockedDomainRow & { at: string })[]>`
    select domain, source, created_at, to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as at
    from blocked_domains
    where true
      ${pattern ? sql`and domain like ${pattern}` : sql``}
      ${
        a
          ? sql`and ((source = 'seed') > ${a.seed}
              or ((source = 'seed') = ${a.seed} and (created_at < ${a.at}::timestamptz
                or (created_at = ${a.at}::timestamptz and domain > ${a.domain}))))`
          : sql``
      }
    order by (source = 'seed'), created_at desc, domain
    limit ${opts.limit + 1}`;
}

export async function findBlockedDomain(domain: string, tx: Tx = sql): Promise<BlockedDomainRow | undefined> {
  const [row] = await tx<BlockedDomainRow[]>`select domain, source, created_at from blocked_domains where domain = ${domain}`;
  return row;
}

/** Blocks a normalized domain; `created` is false when it was already blocked. */
export async function blockDomain(domain: string): Promise<{ row: BlockedDomainRow; created: boolean }> {
  await ensureBlocklistSeeded();
  const result = await sql.begin(async (tx) => {
    await tx`delete from unblocked_domains where domain = ${domain}`;
    const [row] = await tx<BlockedDomainRow[]>`
      insert into blocked_domains (domain, source) values (${domain}, 'manual')
      on conflict do nothing returning domain, source, created_at`;
    if (row) return { row, created: true };
    return { row: (await findBlockedDomain(domain, tx))!, created: false };
  });
  if (result.created) {
    applyLocalEdit(domain, true);
    await announceChange();
  }
  return result;
}

/** Unblocks a normalized domain; false when it was not blocked. */
export async function unblockDomain(domain: string): Promise<boolean> {
  await ensureBlocklistSeeded();
  const removed = await sql.begin(async (tx) => {
    const rows = await tx`delete from blocked_domains where domain = ${domain} returning domain`;
    if (rows.length === 0) return false;
    // remembered so a later package version does not block it again
    await tx`insert into unblocked_domains (domain) values (${domain}) on conflict do nothing`;
    return true;
  });
  if (removed) {
    applyLocalEdit(domain, false);
    await announceChange();
  }
  return removed;
}
