-- bench/history_gen.sql: a generated perfgate history in PostgreSQL, rows
-- shaped as history/record.c writes them (schema 6; whole runs keep no report document), for bench/history-scale.sh.
--   psql -v gpus=10 -v g0=1 -v c0=1 -v c1=10000 -v total=10000 -f bench/history_gen.sql
-- Commits c0..c1 (of total), GPUs g0..g0+gpus-1; one run per commit and GPU,
-- the GPUs of a commit recorded one after another (ids interleave, as a CI
-- matrix's do). Each run: 67 FASTER claims, each with its two workloads:
-- 67 ratio + 134 median series = 201 series per GPU. Values: 0.5 % noise, a
-- pure function of (commit, GPU, claim, workload), so that a smaller history
-- of the same commits holds the same values; planted +5 % steps in claims 0,
-- 33 and 66's slower workload at commits total-200, -300 and -400.
-- The database must hold perfgate's tables (one recorded run makes them):
-- they are emptied and filled in one transaction, their keys and indexes
-- rebuilt after (with wal_level=minimal the load then writes no WAL).
\set ON_ERROR_STOP on
BEGIN;
TRUNCATE perfgate_reports, perfgate_workloads, perfgate_claims, perfgate_runs;
ALTER TABLE perfgate_claims DROP CONSTRAINT perfgate_claims_pkey;
ALTER TABLE perfgate_workloads DROP CONSTRAINT perfgate_workloads_pkey;
DROP INDEX perfgate_claims_test, perfgate_workloads_test, perfgate_runs_gpu, perfgate_runs_commit,
  perfgate_runs_shard;
-- The load's rows refer to runs that exist by construction: no per-row FK check.
SET LOCAL session_replication_role = replica;

-- Uniform in (0, 1) from a key and a stream.
CREATE FUNCTION pg_temp.u(k bigint, s bigint) RETURNS float8 IMMUTABLE LANGUAGE sql
  AS 'SELECT ((hashint8extended(k, s) & 1048575)::float8 + 0.5) / 1048576';
-- A workload's median (seconds): commit c, GPU g, claim s, role r (0 a, 1 b);
-- one expression (no FROM), so that PostgreSQL inlines it.
CREATE FUNCTION pg_temp.med(c int, g int, s int, r int, total int) RETURNS float8 IMMUTABLE
  LANGUAGE sql AS $$
  SELECT 1e-5 * (1 + s % 17) * (1 + 1.5 * r) * (1 + 0.3 * g)
    * (1 + 0.005 * sqrt(3) * (pg_temp.u(((c::bigint * 16 + g) * 128 + s) * 2 + r, 1)
         + pg_temp.u(((c::bigint * 16 + g) * 128 + s) * 2 + r, 2)
         + pg_temp.u(((c::bigint * 16 + g) * 128 + s) * 2 + r, 3)
         + pg_temp.u(((c::bigint * 16 + g) * 128 + s) * 2 + r, 4) - 2))
    * CASE WHEN r = 1 AND s % 33 = 0 AND c > total - 200 - 100 * (s / 33) THEN 1.05 ELSE 1 END $$;
CREATE TEMP TABLE grid AS
  SELECT (c - :c0) * :gpus + (g - :g0) + 1 AS id, c, g
  FROM generate_series(:c0, :c1) c, generate_series(:g0, :g0 + :gpus - 1) g;
-- Claim s's test and suite.
CREATE FUNCTION pg_temp.suite(s int) RETURNS text IMMUTABLE LANGUAGE sql
  AS $$ SELECT (ARRAY['gemm', 'reduce', 'scan', 'softmax', 'attention', 'copy', 'sort'])[s % 7 + 1] $$;
CREATE FUNCTION pg_temp.test(s int) RETURNS text IMMUTABLE LANGUAGE sql
  AS $$ SELECT pg_temp.suite(s) || '.variant_' || lpad(s::text, 3, '0') || '_fused_is_twice_as_fast' $$;
-- Rows in run order, as runs recorded one after another lie (the sort is on
-- narrow rows; the wide ones are made from them in that order).
SET LOCAL work_mem = '1GB';

INSERT INTO perfgate_runs (id, started, recorded, commit_id, commit_from, branch, gpu,
  gpu_fingerprint, driver, host, host_fingerprint, origin, exit_code, tests, passed, failed,
  skipped, claims, workloads, argv, perfgate, preflight, unfit, run_key, shard_index, shard_total)
SELECT id, to_char(t, 'YYYY-MM-DD"T"HH24:MI:SS"Z"'),
  to_char(t + interval '3 min', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'),
  md5('commit' || c) || left(md5('more' || c), 8), 'GITHUB_SHA', 'main', gpu,
  '{"name": "' || gpu || '", "uuid": "GPU-' || md5('gpu' || g) || '", "compute_capability": "9.0",'
  ' "sms": 132, "memory_gib": 79.6, "driver": "550.54.15", "cuda": "12.4", "max_sm_clock_mhz": 1980,'
  ' "max_memory_clock_mhz": 2619, "ecc": true, "persistence": true, "mig": false}',
  '550.54.15', 'AMD EPYC 9454 48-Core Processor',
  '{"name": "AMD EPYC 9454 48-Core Processor", "cpus": "16", "memory_gib": "125.7"}', 'run', 0,
  67, 67, 0, 0, 67, 134,
  '["build/perftest", "--history=postgresql://ci@perf-db/perfgate", "--json=perf-report.json",'
  ' "--markdown=perf-summary.md", "--junit=perf-junit.xml"]', '0.1.0',
  '[{"device": 0, "gpu": {"name": "' || gpu || '", "bus_id": "00000000:' || lpad(to_hex(g), 2, '0')
  || ':00.0", "sm_clock_mhz": 1980, "application_clock_mhz": 1980, "default_application_clock_mhz":'
  ' 1980, "max_clock_mhz": 1980, "clock_locked": true, "persistence": true, "ecc": true, "mig": false,'
  ' "other_processes": 0, "idle_processes": 0, "other_processes_named": [], "nvml_unavailable": null},'
  ' "host": {"cpus": 16, "usable_cpus": 16, "host_threads": 1, "perfgate_runs": 1, "load1": 0.4,'
  ' "other_cpu_use": 0.1, "steal_pct": 0, "quota_cpus": null, "throttled_ms": null, "window_s": 0.15,'
  ' "governor": "performance"}, "unfit": [], "seconds": 0.16}]', '',
  'gha-' || (1000000 + c) || '-' || g, 0, 1
FROM (SELECT id, c, g, timestamp '2026-01-01' + c * interval '20 min' AS t,
        COALESCE((ARRAY['NVIDIA H100 80GB HBM3', 'NVIDIA H200', 'NVIDIA A100-SXM4-80GB', 'NVIDIA L4',
          'NVIDIA L40S', 'NVIDIA A10G', 'NVIDIA GH200 480GB', 'NVIDIA B200',
          'NVIDIA RTX 6000 Ada Generation', 'Tesla T4'])[g], 'GPU ' || g) AS gpu
      FROM grid ORDER BY id) r;

INSERT INTO perfgate_claims (run_id, seq, test, kind, outcome, message, clock, threshold, ratio,
  ratio_lo, ratio_hi, confidence, a, b)
SELECT id, s, pg_temp.test(s), 'FASTER', 'PASS',
  'FASTER(fused, unfused, 2) at perftests/' || pg_temp.suite(s) || '.cu:' || (40 + s) || ': PASS',
  'events', 2, v, v * 0.985, v * 1.015, 0.99, 'fused', 'unfused'
FROM (SELECT id, s, pg_temp.med(c, g, s, 1, :total) / pg_temp.med(c, g, s, 0, :total) AS v
      FROM (SELECT id, c, g, s FROM grid, generate_series(0, 66) s ORDER BY id, s) k) x;

INSERT INTO perfgate_workloads (run_id, claim_seq, point, role, test, workload, clock, median_s,
  median_lo_s, median_hi_s, samples, iterations_per_sample)
SELECT id, s, -1, CASE r WHEN 0 THEN 'a' ELSE 'b' END, pg_temp.test(s),
  CASE r WHEN 0 THEN 'fused' ELSE 'unfused' END, 'events', v, v * 0.99, v * 1.01, 24 + s % 30,
  1 + (1000 / (1 + s % 17))
FROM (SELECT id, s, r, pg_temp.med(c, g, s, r, :total) AS v
      FROM (SELECT id, c, g, s, r FROM grid, generate_series(0, 66) s, generate_series(0, 1) r
            ORDER BY id, s, r) k) x;

-- perfgate's keys and indexes, as history/schema.c makes them.
ALTER TABLE perfgate_claims ADD PRIMARY KEY (run_id, seq);
ALTER TABLE perfgate_workloads ADD PRIMARY KEY (run_id, claim_seq, point, role);
CREATE INDEX perfgate_runs_gpu ON perfgate_runs (gpu, started);
CREATE INDEX perfgate_claims_test ON perfgate_claims (test);
CREATE INDEX perfgate_workloads_test ON perfgate_workloads (test);
CREATE INDEX perfgate_runs_commit ON perfgate_runs (commit_id, gpu);
CREATE INDEX perfgate_runs_shard ON perfgate_runs (run_key, gpu, shard_index);
SELECT setval(pg_get_serial_sequence('perfgate_runs', 'id'), max(id)) FROM perfgate_runs;
COMMIT;
