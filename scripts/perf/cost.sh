#!/usr/bin/env bash
# Cost per delivered notification: CPU that the service spends end to end (its own processes, its
# PostgreSQL backends, a private Redis server) and the rows it writes, against the naive pipeline
# (pipeline.ts) measured the same way in the same run. CPU time, not wall time: a busy machine
# inflates it far less than it inflates latency, so the ratio is the steadiest performance figure here.
# Capacity on this machine is roughly 2,000 ms / (ms per notification) notifications per second.
#
#   npm run bench:cost            (or: bash scripts/perf/cost.sh from the checkout)
# Env: COST_RATE (1000/s, below both systems' capacity so neither queues), COST_DURATION (20 s),
#      COST_PORT (4164 service; the pipeline +100, the floor +200), COST_REDIS_PORT (6444 service, 6445 pipeline, 6446 floor; private servers),
#      COST_DB (databases <COST_DB>_svc, <COST_DB>_pipe, <COST_DB>_floor, recreated each run; default the
#      database of BENCH_DATABASE_URL, else nms_bench),
#      COST_BUN_FLAGS (bun flags for the service processes, e.g. --cpu-prof --cpu-prof-dir=/tmp/prof: one profile per process),
#      COST_CONNS (the load client's most connections, 256: past rate x latency of them, requests wait for one),
#      COST_REDIS_STATS (1: Redis commands per notification, from INFO commandstats),
#      COST_SYSCALLS (1: the target's system calls per notification over the load, from perf trace -s),
#      COST_PG_STATEMENTS (1: statements per notification over the window, from pg_stat_statements, which the
#      server must preload; COST_PG_STATEMENTS_TOP lines, 25),
#      COST_SVC_SQL (SQL run on the service database once created, @DB@ = its name: a profile's auto_explain),
#      COST_TARGETS ("service pipeline"; add "floor" for batch-floor.ts, the least work a durable
#      batched pipeline can do: an estimate of the limit), COST_START ("start": the one-process start; "split":
#      the Procfile's api + channel-sender + reconciler as separate processes), COST_SETTLE_S (30: seconds of
#      rest after the warm-up before the idle burn's COST_IDLE_S, 10, are measured).
# Last line: `cost: ours X ms/notification, pipeline Y ms/notification, ratio R, idle N ms/s`
# (ratio = pipeline / ours: above 1 we spend less CPU per delivered notification; idle = ours at rest)
set -u
PERF=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$PERF/../.." && pwd)
cd "$ROOT"
BUN="$ROOT/node_modules/.bin/bun"
[ -d "$ROOT/node_modules/bullmq" ] || { echo "cost.sh: npm install first (pipeline.ts needs bullmq, elysia, ioredis, postgres)"; exit 2; }
RATE=${COST_RATE:-1000}; DUR=${COST_DURATION:-20}; PORT=${COST_PORT:-4164}
RP1=${COST_REDIS_PORT:-6444}; RP2=$((RP1+1)); TARGETS=${COST_TARGETS:-"service pipeline"}
DBBASE=${COST_DB:-$(basename "${BENCH_DATABASE_URL:-nms_bench}")}
SVC_DB="${DBBASE}_svc"; PIPE_DB_NAME="${DBBASE}_pipe"; FLOOR_DB="${DBBASE}_floor"
START=${COST_START:-start}
PROJECT=$(pwd)
PIDS=()
cleanup() { for p in "${PIDS[@]}"; do kill -- -"$p" 2>/dev/null || kill "$p" 2>/dev/null; done; wait 2>/dev/null; }
trap cleanup EXIT

# cpu_ms PID...: utime+stime of each pid and all its descendants, in ms
tree() { { echo "$1"; ps -o pid= -s "$1" 2>/dev/null; } | tr -d " " | grep -v "^$" | sort -u; }  # the pid and, for a session leader (setsid), its whole session
cpu_ms() {
  local tck; tck=$(getconf CLK_TCK); local sum=0
  for root in "$@"; do for p in $(tree "$root"); do
    [ -r /proc/$p/stat ] || continue
    local f; f=$(sed -E 's/^.*\) //' /proc/$p/stat); set -- $f
    sum=$((sum + ${12} + ${13}))
  done; done
  echo $((sum * 1000 / tck))
}
# pg_cpu DB: CPU ms of every backend now connected to DB (pids remembered across calls in PGSEEN_<db>)
pg_backends() { psql -h 127.0.0.1 -U postgres -d postgres -Atc "select pid from pg_stat_activity where datname='$1'"; }
declare -A PGBASE
pg_snapshot() { # DB -> sets PGBASE[pid]=cpu for current backends
  for p in $(pg_backends "$1"); do PGBASE[$p]=$(cpu_ms "$p"); done
}
pg_delta() { # DB -> cpu ms used since snapshot by backends alive now (new ones count from 0)
  local d=0
  for p in $(pg_backends "$1"); do local now; now=$(cpu_ms "$p"); d=$((d + now - ${PGBASE[$p]:-0})); done
  echo $d
}
busy_ms() { awk -v t="$(getconf CLK_TCK)" '/^cpu /{b=$2+$3+$4+$7+$8+$9; print int(b*1000/t)}' /proc/stat; }
dbstat() { psql -h 127.0.0.1 -U postgres -d postgres -Atc "select tup_inserted+tup_updated+tup_deleted, xact_commit, blks_hit+blks_read from pg_stat_database where datname='$1'"; }

declare -A REDIS_PID
start_redis() { redis-server --port "$1" --bind 127.0.0.1 --save "" --appendonly no --daemonize no --logfile /tmp/cost-$DBBASE-redis-$1.log & REDIS_PID[$1]=$!; PIDS+=($!); for _ in $(seq 20); do redis-cli -p "$1" ping >/dev/null 2>&1 && return; sleep 0.25; done; }

measure() { # NAME URL KEY DB REDISPORT PID...
  local name=$1 url=$2 key=$3 db=$4 rport=$5; shift 5
  local rpid=${REDIS_PID[$rport]}
  # idle burn first: what the target spends per second with nothing to do (pollers, timers, leases), once the
  # start's own jobs and the warm-up's after-work are over (COST_SETTLE_S, 30 s): the process at rest
  sleep "${COST_SETTLE_S:-30}"
  local i0 ir0 ipg it0 it1; it0=$(date +%s%N); i0=$(cpu_ms "$@"); ir0=$(cpu_ms "$rpid"); pg_snapshot "$db"
  sleep "${COST_IDLE_S:-10}"
  ipg=$(pg_delta "$db"); local i1 ir1; i1=$(cpu_ms "$@"); ir1=$(cpu_ms "$rpid"); it1=$(date +%s%N)
  local idle_ms=$(( (it1-it0)/1000000 ))
  local c0 r0 s0 w0t; w0t=$(date +%s%N); c0=$(cpu_ms "$@"); r0=$(cpu_ms "$rpid"); PGBASE=(); pg_snapshot "$db"; s0=$(dbstat "$db"); local m0; m0=$(busy_ms)
  local -a each0=(); local p; for p in "$@"; do each0+=("$(cpu_ms "$p")"); done  # per process (the split start: api, channel-sender, reconciler)
  local t0; t0=$(psql -h 127.0.0.1 -U postgres -d "$db" -Atc "select clock_timestamp()")
  [ -n "${COST_PG_STATEMENTS:-}" ] && psql -h 127.0.0.1 -U postgres -d postgres -qAtc "select pg_stat_statements_reset()" >/dev/null
  # COST_SYSCALLS=1: the target's system calls over the load (perf trace -s), per delivered notification below
  local strace_pid="" sysfile=/tmp/cost-$DBBASE-$name-syscalls.txt
  if [ -n "${COST_SYSCALLS:-}" ]; then
    local tp; tp=$(for r in "$@"; do tree "$r"; done | paste -sd,)
    perf trace -s -o "$sysfile" -p "$tp" 2>"$sysfile.err" & strace_pid=$!
  fi
  local out; out=$("$BUN" "$PERF/rate.ts" --url "$url/v1/notifications" --key "$key" --rate "$RATE" --duration "$DUR" --conns "${COST_CONNS:-256}" --label "cost-$name" 2>&1 | tail -1)
  local waited=0 left
  while :; do
    left=$(psql -h 127.0.0.1 -U postgres -d "$db" -Atc "select count(*) from notifications where created_at >= '$t0' and status not in ('delivered','failed')")
    [ "$left" = "0" ] && break; [ $waited -ge 120 ] && break; sleep 1; waited=$((waited+1))
  done
  sleep 3 # let trailing batches (events, rollups) land
  [ -n "$strace_pid" ] && { kill -INT "$strace_pid" 2>/dev/null; wait "$strace_pid" 2>/dev/null; }
  local n; n=$(psql -h 127.0.0.1 -U postgres -d "$db" -Atc "select count(*) from notifications where created_at >= '$t0' and status='delivered'")
  local c1 r1 pgd s1 w1t; c1=$(cpu_ms "$@"); r1=$(cpu_ms "$rpid"); pgd=$(pg_delta "$db"); s1=$(dbstat "$db"); w1t=$(date +%s%N); local m1; m1=$(busy_ms)
  local -a each1=(); for p in "$@"; do each1+=("$(cpu_ms "$p")"); done
  local win_ms=$(( (w1t-w0t)/1000000 ))
  IFS='|' read -r w0 x0 b0 <<<"$s0"; IFS='|' read -r w1 x1 b1 <<<"$s1"
  [ "${n:-0}" -gt 0 ] || { echo "$name: nothing delivered ($out; since $t0 by status: $(psql -h 127.0.0.1 -U postgres -d "$db" -Atc "select string_agg(status || ' ' || c, ', ') from (select status, count(*) c from notifications where created_at >= '$t0' group by 1) s"))"; return 1; }
  node -e '
    const [name,n,bun,pg,red,rows,tx,blk,left,ib,ip,ir,idle,win,machine]=process.argv.slice(1).map((v,i)=>i?Number(v):v);
    const k=win/idle; // idle burn scaled to the loaded window, subtracted: the marginal cost of the work
    const m=(x,i)=>Math.max(0,(x-i*k)/n);
    const f=(x)=>x.toFixed(3);
    const mb=m(bun,ib), mp=m(pg,ip), mr=m(red,ir);
    console.log(`${name}: ${n} delivered (${left} not terminal), ${f(mb+mp+mr)} ms/notif (bun ${f(mb)}, pg ${f(mp)}, redis ${f(mr)}; rows ${(rows/n).toFixed(1)}, commits ${(tx/n).toFixed(2)}, pg blocks ${(blk/n).toFixed(0)}); idle ${((ib+ip+ir)*1000/idle).toFixed(0)} ms/s (bun ${(ib*1000/idle).toFixed(0)}, pg ${(ip*1000/idle).toFixed(0)}, redis ${(ir*1000/idle).toFixed(0)}); window ${(win/1000).toFixed(1)} s, whole machine busy ${(machine/n).toFixed(3)} ms/notif (${(machine/win).toFixed(2)} cores)`);
  ' "$name" "$n" $((c1-c0)) "$pgd" $((r1-r0)) $((w1-w0)) $((x1-x0)) $((b1-b0)) "$left" $((i1-i0)) "$ipg" $((ir1-ir0)) "$idle_ms" "$win_ms" $((m1-m0))
  echo "  load: $out"
  if [ $# -gt 1 ]; then
    local i=0 parts=""; for p in "$@"; do
      local kind; kind=$(tr '\0' ' ' </proc/$p/cmdline 2>/dev/null | sed -nE 's/.*--only ([a-z-]+).*/\1/p'); parts="$parts ${kind:-pid $p} $(node -e 'console.log((process.argv[1]/process.argv[2]).toFixed(3))' $((each1[i]-each0[i])) "$n")"; i=$((i+1))
    done
    echo "  bun by process (ms/notif, idle not subtracted):$parts"
  fi
  # system calls of the target's processes (all threads) per delivered notification, most frequent first
  [ -n "$strace_pid" ] && awk -v n="$n" '$2 ~ /^[0-9]+$/ && NF >= 8 {c[$1]+=$2} END {for (k in c) printf "  syscall %s %.2f/notif\n", k, c[k]/n}' "$sysfile" | sort -k3,3 -rn | head -12
  # COST_REDIS_STATS=1: Redis commands per delivered notification over the whole run (warm-up included)
  [ -n "${COST_REDIS_STATS:-}" ] && redis-cli -p "$rport" info commandstats | awk -F'[:=,]' -v n="$n" '/^cmdstat_/ {printf "  redis %s %.2f/notif\n", substr($1,9), $3/n}' | sort -k3,3 -rn | head -25
  # COST_PG_STATEMENTS=1 (the server preloads pg_stat_statements, the postgres database has the extension):
  # calls, rows and backend time per delivered notification of the window's statements, largest first, and
  # plans per call (1.00: planned at every call, a custom plan; planning time counts with pg_stat_statements.track_planning on)
  [ -n "${COST_PG_STATEMENTS:-}" ] && psql -h 127.0.0.1 -U postgres -d postgres -qAtF' ' -c "select to_char(s.calls::float/$n,'0.000'), to_char(s.rows::float/$n,'990.00'), to_char(s.total_exec_time/$n*1000,'99990.0')||'us', to_char(s.total_plan_time/$n*1000,'9990.0')||'us', to_char(s.plans::float/greatest(s.calls,1),'0.00')||'p', left(regexp_replace(s.query,'\s+',' ','g'),150) from pg_stat_statements s join pg_database d on d.oid=s.dbid where d.datname='$db' order by s.total_exec_time desc limit ${COST_PG_STATEMENTS_TOP:-25}" | sed 's/^/  pg /'
  true
}

results=()
for T in $TARGETS; do
  if [ "$T" = service ]; then
    start_redis "$RP1"
    psql -h 127.0.0.1 -U postgres -d postgres -qc "drop database if exists $SVC_DB with (force)" >/dev/null 2>&1
    psql -h 127.0.0.1 -U postgres -d postgres -qc "create database $SVC_DB" >/dev/null
    # COST_SVC_SQL: run on the new service database before the start (e.g. ALTER DATABASE ... SET for auto_explain)
    [ -n "${COST_SVC_SQL:-}" ] && psql -h 127.0.0.1 -U postgres -d "$SVC_DB" -qc "${COST_SVC_SQL//@DB@/$SVC_DB}" >/dev/null
    export PORT ADMIN_TOKEN=bench-admin-token-0123456789abcdef ENCRYPTION_KEY="MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=" \
      DATABASE_URL=postgres://postgres@127.0.0.1:5432/$SVC_DB REDIS_URL=redis://127.0.0.1:$RP1 \
      APP_URL=http://127.0.0.1:$PORT PUBLIC_URL=http://127.0.0.1:$PORT RATE_LIMIT_PER_MINUTE=100000000 LOG_LEVEL=warn NODE_ENV=development
    # the service starts as npm start and the Procfile start it (scripts/service-env.mjs: its settings, an own
    # value in this environment winning); the pipeline, a naive one, with Bun's defaults (a BUN_JSC_useFTLJIT or
    # MIMALLOC_PURGE_HOLES_MIN_INTERVAL in the environment applies to both)
    mapfile -t svcenv < <(node --input-type=module -e 'import { SERVICE_ENV, withServiceEnv } from "./scripts/service-env.mjs"; const e = withServiceEnv(process.env); for (const k of Object.keys(SERVICE_ENV)) console.log(`${k}=${e[k]}`)')
    svc=()
    if [ "$START" = split ]; then
      node_modules/.bin/bun scripts/migrate.ts >/dev/null 2>&1 || (cd "$PROJECT" && npm run -s migrate >/dev/null 2>&1)
      for k in api channel-sender reconciler; do env "${svcenv[@]}" setsid node_modules/.bin/bun ${COST_BUN_FLAGS:-} scripts/start.ts --only $k >/tmp/cost-$DBBASE-svc-$k.log 2>&1 & svc+=($!); PIDS+=($!); done
    else
      node_modules/.bin/bun scripts/migrate.ts >/dev/null 2>&1
      env "${svcenv[@]}" setsid node_modules/.bin/bun ${COST_BUN_FLAGS:-} scripts/start.ts >/tmp/cost-$DBBASE-svc.log 2>&1 & svc+=($!); PIDS+=($!)
    fi
    for _ in $(seq 90); do curl -sf "http://127.0.0.1:$PORT/health" >/dev/null 2>&1 && break; sleep 1; done
    key=$(BASE_URL=http://127.0.0.1:$PORT ADMIN_TOKEN=$ADMIN_TOKEN "$BUN" "$PERF/bootstrap.ts") || { echo "bootstrap failed"; exit 1; }
    # warm-up: 2,000 requests, not measured
    "$BUN" "$PERF/rate.ts" --url "http://127.0.0.1:$PORT/v1/notifications" --key "$key" --rate 500 --duration 4 --label warm >/dev/null 2>&1
    line=$(measure service "http://127.0.0.1:$PORT" "$key" $SVC_DB "$RP1" "${svc[@]}"); echo "$line"
    results+=("$(echo "$line" | head -1)")
    for p in "${svc[@]}"; do kill -- -"$p" 2>/dev/null; done
  elif [ "$T" = floor ]; then
    RP3=$((RP1+2)); start_redis "$RP3"
    FLOOR2_PORT=$((PORT+200)) FLOOR2_REDIS_URL=redis://127.0.0.1:$RP3 FLOOR2_DB=$FLOOR_DB setsid "$BUN" "$PERF/batch-floor.ts" >/tmp/cost-$DBBASE-floor.log 2>&1 & fp=$!; PIDS+=($fp)
    for _ in $(seq 30); do curl -sf http://127.0.0.1:$((PORT+200))/health >/dev/null 2>&1 && break; sleep 1; done
    "$BUN" "$PERF/rate.ts" --url "http://127.0.0.1:$((PORT+200))/v1/notifications" --key none --rate 500 --duration 4 --label warm >/dev/null 2>&1
    line=$(measure floor "http://127.0.0.1:$((PORT+200))" none $FLOOR_DB "$RP3" "$fp"); echo "$line"
    results+=("$(echo "$line" | head -1)")
    kill -- -"$fp" 2>/dev/null
  else
    start_redis "$RP2"
    PIPE_PORT=$((PORT+100)) PIPE_REDIS_URL=redis://127.0.0.1:$RP2 PIPE_DB=$PIPE_DB_NAME setsid "$BUN" "$PERF/pipeline.ts" >/tmp/cost-$DBBASE-pipe.log 2>&1 & pp=$!; PIDS+=($pp)
    for _ in $(seq 30); do curl -sf http://127.0.0.1:$((PORT+100))/health >/dev/null 2>&1 && break; sleep 1; done
    "$BUN" "$PERF/rate.ts" --url "http://127.0.0.1:$((PORT+100))/v1/notifications" --key none --rate 500 --duration 4 --label warm >/dev/null 2>&1
    line=$(measure pipeline "http://127.0.0.1:$((PORT+100))" none $PIPE_DB_NAME "$RP2" "$pp"); echo "$line"
    results+=("$(echo "$line" | head -1)")
    kill -- -"$pp" 2>/dev/null
  fi
done
s=$(printf '%s\n' "${results[@]}" | grep '^service:' | grep -oE '[0-9.]+ ms/notif' | head -1 | grep -oE '^[0-9.]+')
p=$(printf '%s\n' "${results[@]}" | grep '^pipeline:' | grep -oE '[0-9.]+ ms/notif' | head -1 | grep -oE '^[0-9.]+')
idle=$(printf '%s\n' "${results[@]}" | grep '^service:' | grep -oE 'idle [0-9.]+ ms/s' | head -1 | grep -oE '[0-9.]+')
ratio=$( [ -n "$s" ] && [ -n "$p" ] && node -p "($p/$s).toFixed(2)" || echo n/a)
f=$(printf '%s\n' "${results[@]}" | grep '^floor:' | grep -oE '[0-9.]+ ms/notif' | head -1 | grep -oE '^[0-9.]+')
[ -n "$f" ] && [ -n "$s" ] && echo "floor: $f ms/notification, ours/floor $(node -p "($s/$f).toFixed(2)")"
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "cost: ours ${s:-n/a} ms/notification, pipeline ${p:-n/a} ms/notification, ratio $ratio, idle ${idle:-n/a} ms/s"
