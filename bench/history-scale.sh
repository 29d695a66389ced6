#!/usr/bin/env bash
# The history at scale (issue 34, item 6). A benchmark: it prints figures and
# asserts nothing about time. On a private PostgreSQL server in /tmp:
#  1. WRITERS (64) shard processes of the fixture binary record one run
#     (--run-id, GTEST_TOTAL_SHARDS/GTEST_SHARD_INDEX) into a fresh history at
#     once: shards recorded, lost, wall time (and the same without --history);
#  2. a history of GPUS x COMMITS runs (10 x 10000), 201 series per GPU
#     (bench/history_gen.sql): load time, size per run;
#  3. --commit-report for the newest commit; --trend --gpu --last for one
#     GPU's newest 100, 300, 1000 commits, and the same read and analysed
#     apart (bench/history_trend.c); --trend on the whole history (every
#     GPU, every commit), stopped after TREND_TIMEOUT s (60);
#  4. EXPLAIN ANALYZE of the reads, with and without the indexes they use;
#  5. the same history copied into SQLite: its size, --commit-report, and
#     again without the index perfgate_runs_shard (stopped after TREND_TIMEOUT s).
# Usage: make BUILD=build all build/fixture-perftest && BUILD=build bash bench/history-scale.sh
# Needs the PostgreSQL server (initdb, pg_ctl) and psql. As root the server
# runs as postgres (or nobody). Knobs: WRITERS, GPUS, COMMITS, WINDOWS, TREND_TIMEOUT,
# SQLITE=0 (no SQLite copy), KEEP=1 (keep the data directory).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${BUILD:-build}" && pwd)
writers=${WRITERS:-64} gpus=${GPUS:-10} commits=${COMMITS:-10000} timeout_s=${TREND_TIMEOUT:-60}
windows=${WINDOWS:-100 300 1000}
if [ ! -x "$build/perftest" ] || [ ! -x "$build/fixture-perftest" ]; then
  echo "history-scale: build $build/perftest and $build/fixture-perftest first" >&2
  exit 2
fi
bin=
for d in "$(pg_config --bindir 2>/dev/null || true)" /usr/lib/postgresql/*/bin; do
  [ -x "$d/initdb" ] && bin=$d && break
done
[ -n "$bin" ] || { echo "history-scale: no PostgreSQL server (initdb) found" >&2; exit 2; }

dir=$(mktemp -d /tmp/perfgate-scale-XXXXXX)
as=()
if [ "$(id -u)" = 0 ]; then
  user=nobody
  id -u postgres >/dev/null 2>&1 && user=postgres
  as=(runuser -u "$user" --)
  chown "$user" "$dir"
fi
cleanup() {
  "${as[@]}" "$bin/pg_ctl" -D "$dir/data" -m immediate stop >/dev/null 2>&1 || true
  [ -n "${KEEP:-}" ] || rm -rf "$dir"
}
trap cleanup EXIT
# wal_level=minimal: the generated history is loaded without WAL (its tables
# are emptied in the load's transaction); commits are fsynced as by default.
"${as[@]}" "$bin/initdb" -D "$dir/data" -U perfgate --auth=trust -E UTF8 --no-sync >"$dir/initdb.log" 2>&1
"${as[@]}" "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 -o "-k $dir -p 5432 \
  -c listen_addresses='' -c max_wal_size=8GB -c wal_level=minimal -c max_wal_senders=0" start >/dev/null
uri() { echo "postgresql:///$1?host=$dir&port=5432&user=perfgate"; }
sql() { psql -X -q -At -v ON_ERROR_STOP=1 "host=$dir port=5432 user=perfgate dbname=$1" "${@:2}"; }
since() { awk -v a="$1" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.2f", b - a }'; }
# A database with perfgate's tables (schema 5): one recorded run makes them.
newdb() {
  sql postgres -c "CREATE DATABASE $1"
  "$build/fixture-perftest" --filter=host.truth --history="$(uri "$1")" --commit=init >/dev/null 2>&1
}
cd "$dir" # no git repository here: --commit-report orders by recording
echo "history-scale: $(nproc) CPUs, $(date -u +%F), $("$bin/postgres" --version), data in $dir"

echo "== 1. $writers shard processes record one run into one history at once"
sql postgres -c "CREATE DATABASE shards"
mkdir -p "$dir/w"
shards() { # the fixture's tests but the crashing ones, GTEST-sharded; extra args: "$@"
  local t0=$EPOCHREALTIME
  for i in $(seq 0 $((writers - 1))); do
    GTEST_TOTAL_SHARDS=$writers GTEST_SHARD_INDEX=$i "$build/fixture-perftest" \
      --filter='*-crash.*:worker.*' --budget=0.2 --commit=c1 --run-id=scale-1 "$@" >"$dir/w/$i.log" 2>&1 &
  done
  wait # the fixture's tests fail on purpose: the exit codes say nothing here
  since "$t0"
}
wall=$(shards --history="$(uri shards)")
said=$(grep -l "recorded run" "$dir"/w/*.log | wc -l)
read -r runs distinct <<<"$(sql shards -F' ' -c "SELECT count(*), count(DISTINCT shard_index) FROM perfgate_runs WHERE run_key = 'scale-1'")"
echo "recorded: $runs runs ($distinct distinct shards, $said processes said so), lost: $((writers - distinct)), wall $wall s"
echo "without --history: wall $(shards) s; server log errors: $(grep -c ERROR "$dir/server.log" || true)"

echo "== 2. a history of $gpus GPUs x $commits commits, 201 series per GPU"
newdb hist
t0=$EPOCHREALTIME
sql hist -v gpus="$gpus" -v g0=1 -v c0=1 -v c1="$commits" -v total="$commits" -f "$here/bench/history_gen.sql" >/dev/null
echo "generated in $(since "$t0") s"
t0=$EPOCHREALTIME
sql hist -c "VACUUM ANALYZE"
echo "VACUUM ANALYZE in $(since "$t0") s"
sql hist -F' ' -c "SELECT t, pg_size_pretty(pg_total_relation_size(t)), pg_size_pretty(pg_indexes_size(t)),
  pg_total_relation_size(t) / (SELECT count(*) FROM perfgate_runs) FROM unnest(ARRAY['perfgate_runs',
  'perfgate_claims', 'perfgate_workloads']::regclass[]) t" | awk '{ s += $NF; print "  " $0 " bytes per run" }
  END { printf "total %.1f KB per run\n", s / 1024 }'
sql hist -c "SELECT count(*) || ' runs, ' || (SELECT count(*) FROM perfgate_claims) || ' claims, '
  || (SELECT count(*) FROM perfgate_workloads) || ' workloads' FROM perfgate_runs"

gpu=$(sql hist -c "SELECT gpu FROM perfgate_runs WHERE id = 1")
echo "== 3. the reports ($gpu: the first GPU)"
newest=$(sql hist -c "SELECT commit_id FROM perfgate_runs ORDER BY id DESC LIMIT 1")
last=$(sql hist -c "SELECT max(id) FROM perfgate_runs")
timed() { /usr/bin/time -f "%e s wall, %M KB max RSS, exit %x" "$@" 2>&1 >"$dir/out.txt" | tail -1 || true; }
cc -std=c11 -O2 -I"$here/framework/src" -I"$here/framework/include" "$here/bench/history_trend.c" \
  "$build/libperfgate.a" -lsqlite3 -lm -ldl -lpthread -o "$dir/history-trend"
trend() { "$dir/history-trend" "$@"; }
echo "--commit-report=$newest (each GPU's newest 200 commits up to it): $(timed "$build/perftest" \
  --history="$(uri hist)" --commit-report="$newest")"
sed -n '2,3p' "$dir/out.txt"
for n in $windows; do
  echo "-- --trend --gpu='$gpu' --last=$n: $(timed "$build/perftest" --history="$(uri hist)" --trend \
    --gpu="$gpu" --last="$n")"
  sed -n '2,3p' "$dir/out.txt"
  echo "  the same read, then analysed: $(trend "$(uri hist)" "$gpu" "$n" 0)"
done
echo "--trend on the whole history (exit 124: stopped): $(timed timeout "$timeout_s" "$build/perftest" \
  --history="$(uri hist)" --trend)"

echo "== 4. the reads (EXPLAIN ANALYZE)"
read -r lo hi <<<"$(sql hist -F' ' -c "SELECT min(id), max(id) FROM (SELECT id FROM perfgate_runs
  WHERE gpu = '$gpu' ORDER BY id DESC LIMIT 1000) x")"
runs_q="SELECT id, gpu, commit_id, started FROM perfgate_runs r WHERE id <= $last
  AND (r.run_key IS NULL OR NOT EXISTS (SELECT 1 FROM perfgate_runs n WHERE n.run_key = r.run_key
  AND n.gpu = r.gpu AND n.shard_index = r.shard_index AND n.id > r.id AND n.id <= $last))"
cols="run_id, test, workload, clock, sweep_param, sweep_value, median_s, median_lo_s, median_hi_s"
at_commit="SELECT gpu, failed, run_key, shard_index, shard_total FROM perfgate_runs WHERE commit_id = '$newest' ORDER BY id"
explain() { # title, then psql's -c arguments (the last one's plan is shown)
  echo "-- $1"
  sql hist "${@:2}" | grep -E "Scan|Join|Sort |Unique|Execution Time|ERROR" | sed 's/^/  /'
}
explain "series.c: $gpu's runs" -c "EXPLAIN ANALYZE $runs_q AND gpu = '$gpu' ORDER BY gpu, id"
explain "series.c: every GPU's runs" -c "EXPLAIN ANALYZE $runs_q ORDER BY gpu, id"
explain "series.c: the workloads of $gpu's newest 1000 runs by id range (ids $lo..$hi: every GPU's)" \
  -c "EXPLAIN ANALYZE SELECT $cols FROM perfgate_workloads WHERE run_id >= $lo AND run_id <= $hi"
explain "the same, only that GPU's runs (as --gpu reads them)" -c "EXPLAIN ANALYZE SELECT $cols FROM perfgate_workloads
  WHERE run_id IN (SELECT id FROM perfgate_runs WHERE id >= $lo AND id <= $hi AND gpu = '$gpu')"
explain "commitreport.c: the runs at the commit" -c "EXPLAIN ANALYZE $at_commit"
explain "the same without perfgate_runs_commit" -c "BEGIN" -c "DROP INDEX perfgate_runs_commit" \
  -c "EXPLAIN ANALYZE $at_commit" -c "ROLLBACK"
explain "commitreport.c: the GPUs" -c "EXPLAIN ANALYZE SELECT DISTINCT gpu FROM perfgate_runs ORDER BY gpu"
explain "series.c: every GPU's runs without perfgate_runs_shard (stopped after $timeout_s s)" -c "BEGIN" \
  -c "SET LOCAL statement_timeout = '${timeout_s}s'" -c "DROP INDEX perfgate_runs_shard" \
  -c "EXPLAIN ANALYZE $runs_q ORDER BY gpu, id" -c "ROLLBACK" 2>&1 || true

[ "${SQLITE:-1}" = 1 ] || exit 0
echo "== 5. the same history in SQLite"
# Filled through staging tables that leave the NULL columns out (CSV has no
# NULL); the indexes made after.
runs_c="id, started, recorded, commit_id, commit_from, branch, gpu, gpu_fingerprint, driver, host,
  host_fingerprint, origin, exit_code, tests, passed, failed, skipped, claims, workloads, argv, perfgate,
  preflight, unfit, run_key, shard_index, shard_total"
claims_c="run_id, seq, test, kind, outcome, message, clock, threshold, ratio, ratio_lo, ratio_hi, confidence, a, b"
works_c="run_id, claim_seq, point, role, test, workload, clock, median_s, median_lo_s, median_hi_s,
  samples, iterations_per_sample"
csv() { echo "|psql -X -q -c 'COPY (SELECT ${2//$'\n'/ } FROM $1 ORDER BY 1, 2) TO STDOUT (FORMAT csv)'"; }
db=$dir/hist.db
"$build/fixture-perftest" --filter=host.truth --history="$db" --commit=init >/dev/null 2>&1
t0=$EPOCHREALTIME
PGHOST=$dir PGPORT=5432 PGUSER=perfgate PGDATABASE=hist sqlite3 "$db" >/dev/null <<SQL
PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF;
DELETE FROM perfgate_workloads; DELETE FROM perfgate_claims; DELETE FROM perfgate_runs;
DROP INDEX perfgate_runs_gpu; DROP INDEX perfgate_runs_commit;
DROP INDEX perfgate_claims_test; DROP INDEX perfgate_workloads_test; DROP INDEX perfgate_runs_shard;
CREATE TEMP TABLE r($runs_c); CREATE TEMP TABLE c($claims_c); CREATE TEMP TABLE w($works_c);
.import --csv "$(csv perfgate_runs "$runs_c")" r
.import --csv "$(csv perfgate_claims "$claims_c")" c
.import --csv "$(csv perfgate_workloads "$works_c")" w
INSERT INTO perfgate_runs ($runs_c) SELECT * FROM r;
INSERT INTO perfgate_claims ($claims_c) SELECT * FROM c;
INSERT INTO perfgate_workloads ($works_c) SELECT * FROM w;
CREATE INDEX perfgate_runs_gpu ON perfgate_runs (gpu, started);
CREATE INDEX perfgate_claims_test ON perfgate_claims (test);
CREATE INDEX perfgate_workloads_test ON perfgate_workloads (test);
CREATE INDEX perfgate_runs_commit ON perfgate_runs (commit_id, gpu);
CREATE INDEX perfgate_runs_shard ON perfgate_runs (run_key, gpu, shard_index);
ANALYZE;
SQL
echo "copied in $(since "$t0") s; $(du -m "$db" | cut -f1) MB, $(( $(stat -c %s "$db") / $(sqlite3 "$db" "SELECT count(*) FROM perfgate_runs") )) bytes per run"
echo "--commit-report=$newest: $(timed "$build/perftest" --history="$db" --commit-report="$newest")"
echo "--trend --gpu='$gpu' --last=1000: $(timed "$build/perftest" --history="$db" --trend --gpu="$gpu" --last=1000)"
echo "  the same read, then analysed: $(trend "$db" "$gpu" 1000 0)"
sqlite3 "$db" "DROP INDEX perfgate_runs_shard"
echo "--commit-report without perfgate_runs_shard (exit 124: stopped): $(timed timeout "$timeout_s" \
  "$build/perftest" --history="$db" --commit-report="$newest")"
