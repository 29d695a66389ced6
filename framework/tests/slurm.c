/* slurm.c — ci/slurm/ on a one-node Slurm cluster that the test starts itself. */
/* munged, slurmctld and slurmd run in a temporary directory; the fixture's
 * host-clock tests run as job arrays: four shards recorded into PostgreSQL
 * and merged, a task cancelled half-way, a list array refused. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "io/jsontree.h"
#include "history/connect.h"
#include "history/store.h"
#include "selftest.h"

extern char **environ;

/* The node and its feature: the GPU "model" ci/slurm/run-fleet.sh
 * selects (--constraint=MODEL), whose array it names perftest-MODEL. */
#define NODE "pgnode"
#define MODEL "localgpu"

/* Eight host-clock tests, two to a shard; host.host_threads waits while
 * PERFGATE_FIXTURE_HOLD names a file that does not exist (up to 30 s). */
#define TESTS "host.four_x_work_is_2x_faster:host.submit_clock:host.visible_devices:host.truth:" \
              "host.kept_workload_first:bl.ratio_claim:host.cleanups_run_after_a_pass:host.host_threads"

typedef struct cluster {
  char dir[64], fixture[4096], ci[4096];
  pid_t munged, ctld, slurmd;
} cluster;

static double now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void nap(void) { nanosleep(&(struct timespec){0, 100000000L}, NULL); }

/* The first line cmd prints (without its newline) into out[len]; "" when
 * it prints none. Returns cmd's exit code. */
static int first_line(const char *cmd, char *out, size_t len)
{
  out[0] = '\0';
  FILE *p = popen(cmd, "r");
  if (!p) return 128;
  if (!fgets(out, (int)len, p)) out[0] = '\0';
  out[strcspn(out, "\n")] = '\0';
  char rest[256];
  while (fgets(rest, sizeof rest, p)) {
  }
  int st = pclose(p);
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

/* The last line of file (at most 160 characters of it) into out[len], for
 * a skip's reason. */
static const char *tail_of(const char *file, char *out, size_t len)
{
  char cmd[300];
  snprintf(cmd, sizeof cmd, "grep -v '^ *$' '%s' 2>/dev/null | tail -n 1 | cut -c1-160", file);
  first_line(cmd, out, len);
  if (!out[0]) snprintf(out, len, "(%s is empty)", file);
  return out;
}

/* Starts argv in its own process group with its output in log; it dies
 * with this process (a harness that kills a hung test leaves no daemon). */
static pid_t spawn(char *const argv[], const char *log)
{
  pid_t parent = getpid();
  fflush(NULL);
  pid_t pid = fork();
  if (pid != 0) return pid;
  setpgid(0, 0);
  if (prctl(PR_SET_PDEATHSIG, SIGTERM) || getppid() != parent) _exit(127);
  int in = open("/dev/null", O_RDONLY), out = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (in < 0 || out < 0 || dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(out, 2) < 0) _exit(127);
  execvp(argv[0], argv);
  _exit(127);
}

/* 1 while pid runs (0 once it has exited, and it is reaped). */
static int running(pid_t *pid)
{
  int st;
  if (*pid <= 0) return 0;
  if (waitpid(*pid, &st, WNOHANG) != *pid) return 1;
  *pid = 0;
  return 0;
}

/* SIGTERM, then SIGKILL after 10 s; checks that it stopped on the first. */
static void stop(pid_t *pid, const char *what)
{
  if (*pid <= 0) return;
  kill(*pid, SIGTERM);
  for (int i = 0; i < 100 && running(pid); i++) nap();
  if (!ST_CHECKF(*pid == 0, "%s did not stop on SIGTERM within 10 s", what)) {
    kill(-*pid, SIGKILL);
    waitpid(*pid, NULL, 0);
    *pid = 0;
  }
}

/* A TCP port on 127.0.0.1 that nothing uses now, kept bound in *fd until
 * the caller closes it (so that two calls give two ports); 0 on failure. */
static int free_port(int *fd)
{
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  socklen_t n = sizeof a;
  *fd = socket(AF_INET, SOCK_STREAM, 0);
  if (*fd < 0 || bind(*fd, (struct sockaddr *)&a, sizeof a) || getsockname(*fd, (struct sockaddr *)&a, &n))
    return 0;
  return ntohs(a.sin_port);
}

/* The environment every Slurm command and task sees: this cluster's
 * configuration, the daemons' directories on PATH, and none of the
 * sharding or Slurm variables the runner itself may have been given. */
static void environment(const cluster *c)
{
  char conf[128], path[8192];
  for (int again = 1; again;) {
    again = 0;
    for (char **e = environ; *e; e++)
      if (!strncmp(*e, "SLURM_", 6) || !strncmp(*e, "GTEST_", 6) || !strncmp(*e, "PERFGATE_", 9) ||
          !strncmp(*e, "JOB_COMPLETION_INDEX=", 21)) {
        char name[256];
        snprintf(name, sizeof name, "%.*s", (int)strcspn(*e, "="), *e);
        unsetenv(name);
        again = 1;
        break;
      }
  }
  snprintf(conf, sizeof conf, "%s/slurm.conf", c->dir);
  setenv("SLURM_CONF", conf, 1);
  const char *p = getenv("PATH");
  snprintf(path, sizeof path, "%s:/usr/sbin:/sbin:/usr/local/sbin", p ? p : "/usr/bin:/bin");
  setenv("PATH", path, 1);
}

/* Writes slurm.conf and gres.conf: one node of this machine's CPUs with
 * four GPUs (links to /dev/null: Slurm sets CUDA_VISIBLE_DEVICES from
 * them, nothing opens them) and the feature MODEL. Returns 0 or -1. */
static int configure(const cluster *c, char *why, size_t len)
{
  int fd[2] = {-1, -1}, ctld = free_port(&fd[0]), slurmd = free_port(&fd[1]);
  close(fd[0]);
  close(fd[1]);
  if (!ctld || !slurmd) return snprintf(why, len, "no free TCP port on 127.0.0.1: %s", strerror(errno)), -1;
  cpu_set_t set;
  int cpus = sched_getaffinity(0, sizeof set, &set) ? 1 : CPU_COUNT(&set);
  char user[64], path[128];
  if (first_line("id -un", user, sizeof user) || !user[0]) return snprintf(why, len, "id -un failed"), -1;
  snprintf(path, sizeof path, "%s/slurm.conf", c->dir);
  FILE *f = fopen(path, "w");
  if (!f) return snprintf(why, len, "%s: %s", path, strerror(errno)), -1;
  const char *d = c->dir;
  fprintf(f,
          "ClusterName=perfgate\nSlurmctldHost=localhost(127.0.0.1)\n"
          "SlurmctldPort=%d\nSlurmdPort=%d\nSlurmUser=%s\nSlurmdUser=%s\n"
          "AuthType=auth/munge\nAuthInfo=socket=%s/munge.sock\nCredType=cred/munge\n"
          "StateSaveLocation=%s/state\nSlurmdSpoolDir=%s/spool\n"
          "SlurmctldPidFile=%s/slurmctld.pid\nSlurmdPidFile=%s/slurmd.pid\n"
          "SlurmctldLogFile=%s/slurmctld.log\nSlurmdLogFile=%s/slurmd.log\n"
          "ProctrackType=proctrack/linuxproc\nTaskPlugin=task/none\n"
          "SelectType=select/cons_tres\nSelectTypeParameters=CR_CPU\n"
          "MpiDefault=none\nReturnToService=2\nGresTypes=gpu\n"
          "NodeName=" NODE " NodeAddr=127.0.0.1 CPUs=%d Gres=gpu:4 Features=" MODEL " State=UNKNOWN\n"
          "PartitionName=pg Nodes=" NODE " Default=YES MaxTime=INFINITE State=UP\n",
          ctld, slurmd, user, user, d, d, d, d, d, d, d, cpus);
  if (fclose(f)) return snprintf(why, len, "%s: %s", path, strerror(errno)), -1;
  char cmd[1024];
  snprintf(cmd, sizeof cmd,
           "cd '%s' && mkdir state spool && for i in 0 1 2 3; do ln -s /dev/null gpu$i || exit 1; done && "
           "echo 'NodeName=" NODE " Name=gpu File=%s/gpu[0-3]' > gres.conf", d, d);
  if (st_shell(cmd)) return snprintf(why, len, "cannot write %s/gres.conf", d), -1;
  return 0;
}

/* The last lines of the daemons' logs, for a skip's reason. */
static void daemon_tails(const cluster *c, char *why, size_t len)
{
  char a[200], b[200], p1[128], p2[128];
  snprintf(p1, sizeof p1, "%s/slurmctld.log", c->dir);
  snprintf(p2, sizeof p2, "%s/slurmd.log", c->dir);
  size_t u = strlen(why);
  snprintf(why + u, len - u, ": slurmctld: %s; slurmd: %s", tail_of(p1, a, sizeof a), tail_of(p2, b, sizeof b));
}

/* Starts munged, slurmctld and slurmd in a new temporary directory and
 * waits (30 s at most) until the node is idle. Returns 0, or -1 with why
 * the cluster cannot run here; cluster_stop either way. */
static int cluster_start(cluster *c, char *why, size_t len)
{
  memset(c, 0, sizeof *c);
  if (geteuid() != 0)
    return snprintf(why, len, "not root: slurmd starts a job's tasks as their user, which needs root"), -1;
  static const char *const tools[] = {"munged", "slurmctld", "slurmd", "sbatch", "squeue", "scancel",
                                      "sinfo", "scontrol"};
  for (size_t i = 0; i < sizeof tools / sizeof tools[0]; i++) {
    char cmd[200], found[256];
    snprintf(cmd, sizeof cmd, "PATH=\"$PATH:/usr/sbin:/sbin:/usr/local/sbin\" command -v %s", tools[i]);
    if (first_line(cmd, found, sizeof found) || !found[0])
      return snprintf(why, len, "Slurm is not installed (no %s; .ci/run installs Debian's slurm-wlm and munge)",
                      tools[i]), -1;
  }
  if (!realpath(st_fixture, c->fixture))
    return snprintf(why, len, "%s: %s", st_fixture, strerror(errno)), -1;
  if (!ST_CHECKF(realpath("ci/slurm", c->ci), "ci/slurm: %s (run from the repository's root)", strerror(errno)))
    return snprintf(why, len, "no ci/slurm"), -1;
  snprintf(c->dir, sizeof c->dir, "/tmp/perfgate-slurm-XXXXXX");
  if (!mkdtemp(c->dir)) return snprintf(why, len, "mkdtemp: %s", strerror(errno)), -1;
  /* munged wants every directory above its socket searchable by all. */
  if (chmod(c->dir, 0755)) return snprintf(why, len, "chmod %s: %s", c->dir, strerror(errno)), -1;
  environment(c);

  char cmd[1024], key[128], sockpath[128], sock[140], pid[128], log[128], seed[128], out[128];
  snprintf(key, sizeof key, "%s/munge.key", c->dir);
  snprintf(cmd, sizeof cmd, "{ mungekey --create --keyfile='%s' || dd if=/dev/urandom of='%s' bs=1024 count=1; }"
                            " >/dev/null 2>&1 && chmod 400 '%s'", key, key, key);
  if (st_shell(cmd)) return snprintf(why, len, "cannot create a munge key in %s", c->dir), -1;
  snprintf(sockpath, sizeof sockpath, "%s/munge.sock", c->dir);
  snprintf(sock, sizeof sock, "--socket=%s", sockpath);
  snprintf(pid, sizeof pid, "--pid-file=%s/munged.pid", c->dir);
  snprintf(log, sizeof log, "--log-file=%s/munged.log", c->dir);
  snprintf(seed, sizeof seed, "--seed-file=%s/munged.seed", c->dir);
  snprintf(out, sizeof out, "%s/munged.out", c->dir);
  snprintf(cmd, sizeof cmd, "--key-file=%s", key);
  char *munged[] = {"munged", "--foreground", cmd, sock, pid, log, seed, NULL};
  c->munged = spawn(munged, out);
  struct stat sb;
  for (int i = 0; i < 100 && running(&c->munged) && stat(sockpath, &sb); i++) nap();
  if (stat(sockpath, &sb)) {
    char t[200];
    return snprintf(why, len, "munged did not start: %s", tail_of(out, t, sizeof t)), -1;
  }

  if (configure(c, why, len)) return -1;
  snprintf(out, sizeof out, "%s/slurmctld.out", c->dir);
  char *ctld[] = {"slurmctld", "-D", "-i", NULL};
  c->ctld = spawn(ctld, out);
  snprintf(out, sizeof out, "%s/slurmd.out", c->dir);
  char *slurmd[] = {"slurmd", "-D", "-N", NODE, NULL};
  c->slurmd = spawn(slurmd, out);
  char state[64] = "", reason[160] = "";
  for (double t0 = now(); now() - t0 < 30 && running(&c->ctld) && running(&c->slurmd); nap()) {
    first_line("sinfo -h -n " NODE " -o %t 2>/dev/null", state, sizeof state);
    if (!strcmp(state, "idle")) return 0;
    if (!strncmp(state, "inval", 5) || !strncmp(state, "drain", 5)) break; /* slurmctld refused it */
  }
  if (!c->ctld || !c->slurmd) {
    snprintf(why, len, "%s exited", !c->ctld ? "slurmctld" : "slurmd");
    daemon_tails(c, why, len);
  } else {
    first_line("sinfo -h -n " NODE " -o %E 2>/dev/null", reason, sizeof reason);
    snprintf(why, len, "the node is %s, not idle (%s)", state[0] ? state : "unknown to sinfo",
             reason[0] ? reason : "no reason given");
    if (!reason[0]) daemon_tails(c, why, len);
  }
  return -1;
}

/* Cancels what is left of the cluster's jobs, stops the daemons and
 * removes the directory. */
static void cluster_stop(cluster *c)
{
  if (c->ctld && c->slurmd) {
    st_shell("scancel --user=\"$(id -un)\" >/dev/null 2>&1");
    char left[64] = "x";
    for (double t0 = now(); now() - t0 < 30 && left[0]; nap()) first_line("squeue -h -o %i 2>/dev/null", left, sizeof left);
    ST_CHECKF(!left[0], "job %s still in the queue 30 s after scancel", left);
  }
  stop(&c->slurmd, "slurmd");
  stop(&c->ctld, "slurmctld");
  stop(&c->munged, "munged");
  if (c->dir[0]) st_rmtree(c->dir);
}

/* Starts a cluster and a PostgreSQL server; skips (returning -1) with the
 * reason when either cannot run here. */
static int begin(cluster *c, st_pg *pg)
{
  char why[600];
  pg->up = 0;
  pg->dir[0] = '\0';
  if (cluster_start(c, why, sizeof why)) {
    cluster_stop(c);
    st_skip("Slurm: %.280s", why);
    return -1;
  }
  if (st_pg_start(pg, why, sizeof why)) {
    st_pg_stop(pg);
    cluster_stop(c);
    st_skip("PostgreSQL: %.280s", why);
    return -1;
  }
  return 0;
}

static void end(cluster *c, st_pg *pg)
{
  st_pg_stop(pg);
  cluster_stop(c);
}

/* Whole file dir/name (malloc'd; "" when it cannot be read). */
static char *read_in(const char *dir, const char *name)
{
  char path[600];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  char *s = st_slurp(path);
  return s ? s : calloc(1, 1);
}

static int count_row(void *ctx, int n, const char *const *v)
{
  *(long *)ctx = n > 0 && v[0] ? strtol(v[0], NULL, 10) : -1;
  return 0;
}

/* The runs the history at uri holds that match where (SQL), or -1. */
static long runs(const char *uri, const char *where)
{
  perf__store *s = NULL;
  char err[600], sql[600];
  long n = -1;
  int rc = perf__connect_open(uri, 0, &s, err, sizeof err);
  snprintf(sql, sizeof sql, "SELECT count(*) FROM perfgate_runs WHERE %s", where);
  if (!rc) rc = perf__store_exec(s, &(perf__store_stmt){.sql = sql, .on_row = count_row, .ctx = &n}, err,
                                 sizeof err);
  ST_CHECKF(rc == 0, "%s: %s", sql, err);
  if (s) perf__store_close(s);
  return n;
}

/* Runs ci/slurm/run-fleet.sh for MODEL in the background with the
 * environment env, its output in dir/fleet.out and its exit code in
 * dir/fleet.rc once it ends. */
static void fleet(const cluster *c, const char *dir, const char *env)
{
  char cmd[16384];
  snprintf(cmd, sizeof cmd,
           "cd '%s' && { PERFTEST='%s' PERFGATE_OUT='%s/out' %s timeout 300 '%s/run-fleet.sh' " MODEL
           " >fleet.out 2>&1; echo $? >fleet.rc.tmp; mv fleet.rc.tmp fleet.rc; } </dev/null &",
           dir, c->fixture, dir, env, c->ci);
  ST_EQ(st_shell(cmd), 0);
}

/* The driver's exit code once dir/fleet.rc appears (120 s at most), or -1. */
static int fleet_code(const char *dir)
{
  char path[600];
  snprintf(path, sizeof path, "%s/fleet.rc", dir);
  for (double t0 = now(); now() - t0 < 120; nap()) {
    char *rc = st_slurp(path);
    if (rc) {
      int code = atoi(rc);
      free(rc);
      return code;
    }
  }
  ST_CHECKF(0, "ci/slurm/run-fleet.sh did not end within 120 s");
  return -1;
}

/* ci/slurm/run-fleet.sh submits ci/slurm/perftest.sbatch as a 4-task
 * array on the local "GPU model"; each task finds its shard in Slurm's
 * variables, says so and records it into PostgreSQL; the driver merges
 * the four reports. */
ST_TEST(slurm_array_of_four_records_and_merges)
{
  cluster c;
  st_pg pg;
  if (begin(&c, &pg)) return;
  char dir[128], env[1200], path[600];
  snprintf(dir, sizeof dir, "%s/run", c.dir);
  ST_EQ(mkdir(dir, 0755), 0);
  snprintf(env, sizeof env, "PERFGATE_HISTORY='%s' PERFGATE_ARGS='--filter=" TESTS
                            " --budget=0.2 --commit=slurm-c1 --verbose'", pg.uri);
  fleet(&c, dir, env);
  int code = fleet_code(dir);
  char *out = read_in(dir, "fleet.out");
  snprintf(path, sizeof path, "%s/out/" MODEL ".json", dir);
  char err[600];
  perf__jsontree_node *merged = perf__jsontree_read(path, err, sizeof err);
  ST_CHECKF(merged != NULL, "%s\n%s", err, out);
  const perf__jsontree_node *run = perf__jsontree_get(merged, "run"),
                            *shards = perf__jsontree_get(run, "shards");
  /* The driver's code is the merge's, the worst of the shards'; a
   * verdict on this busy machine may be INCONCLUSIVE (1), never 2. */
  int merged_code = (int)perf__jsontree_num(perf__jsontree_get(run, "exit_code"), -1);
  ST_CHECKF((code == 0 || code == 1) && code == merged_code, "exit %d, merged %d:\n%s", code, merged_code, out);
  ST_CHECKF(strstr(out, "perfgate: merged 4 reports") && strstr(out, "run-fleet.sh: " MODEL ": job "), "%s", out);
  ST_CHECKF(shards && shards->type == PERF__J_ARRAY && shards->n == 4, "%zu shards", shards ? shards->n : 0);
  const perf__jsontree_node *tests = perf__jsontree_get(merged, "tests");
  ST_CHECKF(tests && tests->type == PERF__J_ARRAY && tests->n == 8, "%zu tests", tests ? tests->n : 0);
  /* The shards' run id is the array's job id, which the driver names. */
  char job[32] = "";
  const char *j = strstr(out, "run-fleet.sh: " MODEL ": job ");
  if (j) j += strlen("run-fleet.sh: " MODEL ": job "), snprintf(job, sizeof job, "%.*s", (int)strcspn(j, ","), j);
  ST_CHECKF(job[0] >= '1' && job[0] <= '9', "no job id in:\n%s", out);
  int visible = 0;
  for (int k = 0; k < 4; k++) {
    char name[64], said[200];
    snprintf(name, sizeof name, "out/" MODEL "/task.%d.out", k);
    char *task = read_in(dir, name);
    snprintf(said, sizeof said, "perfgate: shard %d of 4 (from 0), from a Slurm job array's SLURM_ARRAY_TASK_ID", k);
    ST_CHECKF(strstr(task, said) && strstr(task, "perfgate: recorded run"), "task %d:\n%s", k, task);
    /* --gres=gpu:1 gave the task that prints it one of the node's four
     * GPUs: CUDA_VISIBLE_DEVICES is its index, 0 to 3. */
    const char *v = strstr(task, "| visible=");
    visible += v && v[10] >= '0' && v[10] <= '3' && v[11] == '\n';
    free(task);
    char where[300];
    snprintf(where, sizeof where, "commit_id = 'slurm-c1' AND origin = 'run' AND run_key = '%s' AND "
             "shard_index = %d AND shard_total = 4 AND argv LIKE '%%shard.%d.json%%'", job, k, k);
    ST_EQ(runs(pg.uri, where), 1);
  }
  ST_EQ(visible, 1);
  ST_EQ(runs(pg.uri, "commit_id = 'slurm-c1'"), 4);
  ST_EQ(runs(pg.uri, "origin = 'merge'"), 0);
  /* The whole run is there: the commit report does not call it
   * incomplete (it is undecided: no earlier commit to compare with). */
  st_run r;
  char args[600];
  snprintf(args, sizeof args, "--history='%s' --commit-report=slurm-c1", pg.uri);
  st_exec(&r, "", args);
  ST_CHECKF(r.status == 125 && !strstr(r.out, "INCOMPLETE") && strstr(r.out, "UNDECIDED"), "exit %d:\n%s",
            r.status, r.out);
  st_run_free(&r);
  perf__jsontree_free(merged);
  free(out);
  end(&c, &pg);
}

/* The shard (of 4) that runs host.host_threads, with the lines that say
 * it has begun that test in before[len], one per line: its shard line and
 * the result line (" name (") of each test it runs first; -1 when none. */
static int holding_shard(char *before, size_t len)
{
  for (int k = 0; k < 4; k++) {
    st_run r;
    char env[80];
    snprintf(env, sizeof env, "GTEST_TOTAL_SHARDS=4 GTEST_SHARD_INDEX=%d ", k);
    st_exec(&r, env, "--list --filter='" TESTS "'");
    int found = strstr(r.out, "host.host_threads\n") != NULL;
    snprintf(before, len, "perfgate: shard %d of 4 (from 0), from a Slurm job array\n", k);
    for (char *line = strtok(r.out, "\n"); found && line && strcmp(line, "host.host_threads");
         line = strtok(NULL, "\n")) {
      size_t u = strlen(before);
      snprintf(before + u, len - u, " %s (\n", line);
    }
    st_run_free(&r);
    if (found) return k;
  }
  return -1;
}

/* A task cancelled while its perftest waits in a test (on a file that
 * appears only afterwards, so that the kill is deterministic): it leaves
 * no report and no run in the history; the driver's merge exits 2 naming
 * the missing shard, and a merge that would record refuses too. */
ST_TEST(slurm_task_cancelled_half_way_leaves_the_run_incomplete)
{
  cluster c;
  st_pg pg;
  if (begin(&c, &pg)) return;
  char before[1024];
  int k = holding_shard(before, sizeof before);
  ST_CHECKF(k >= 0, "no shard runs host.host_threads");
  char dir[128], env[1400], name[64];
  snprintf(dir, sizeof dir, "%s/run", c.dir);
  ST_EQ(mkdir(dir, 0755), 0);
  snprintf(env, sizeof env, "PERFGATE_FIXTURE_HOLD='%s/go' PERFGATE_HISTORY='%s' PERFGATE_ARGS='--filter=" TESTS
                            " --budget=0.2 --commit=slurm-c2'", dir, pg.uri);
  fleet(&c, dir, env);
  /* Task k has begun and finished the tests before host.host_threads: it
   * is in that one, which waits for dir/go. */
  snprintf(name, sizeof name, "out/" MODEL "/task.%d.out", k);
  char *task = NULL;
  int waiting = 0;
  for (double t0 = now(); k >= 0 && now() - t0 < 60 && !waiting; nap()) {
    free(task);
    task = read_in(dir, name);
    waiting = 1;
    for (char *o = before; *o && waiting; o += strcspn(o, "\n") + 1) {
      char one[200];
      snprintf(one, sizeof one, "%.*s", (int)strcspn(o, "\n"), o);
      waiting = strstr(task, one) != NULL;
    }
  }
  ST_CHECKF(waiting, "task %d never reached host.host_threads:\n%s", k, task ? task : "");
  char job[64] = "", cmd[600];
  first_line("squeue -h -n perftest-" MODEL " -o %F | head -n 1", job, sizeof job);
  ST_CHECKF(job[0], "no job perftest-" MODEL " in the queue");
  snprintf(cmd, sizeof cmd, "scancel '%s_%d' && touch '%s/go'", job, k, dir);
  ST_EQ(st_shell(cmd), 0);

  int code = fleet_code(dir);
  char *out = read_in(dir, "fleet.out"), missing[80], left[120];
  snprintf(missing, sizeof missing, "--merge: shard %d of 4 is missing", k);
  snprintf(left, sizeof left, "task %s_%d left no report", job, k);
  ST_CHECKF(code == 2 && strstr(out, missing) && strstr(out, left) && !strstr(out, "perfgate: merged"),
            "exit %d:\n%s", code, out);
  free(task);
  task = read_in(dir, name);
  char said[200];
  snprintf(said, sizeof said, "shard %d of 4 (from 0), from a Slurm job array", k);
  ST_CHECKF(strstr(task, said) && strstr(task, "CANCELLED") && !strstr(task, "perfgate: recorded run"),
            "task %d:\n%s", k, task);
  snprintf(cmd, sizeof cmd, "%s/out/" MODEL ".json", dir);
  ST_CHECKF(access(cmd, F_OK) != 0, "%s was written", cmd);

  /* The history: the three shards that ended, none of the cancelled one;
   * a merge that would record the whole run refuses before recording. */
  char where[200];
  ST_EQ(runs(pg.uri, "commit_id = 'slurm-c2'"), 3);
  snprintf(where, sizeof where, "run_key = '%s' AND shard_total = 4 AND shard_index <> %d", job, k);
  ST_EQ(runs(pg.uri, where), 3);
  snprintf(where, sizeof where, "shard_index = %d OR argv LIKE '%%shard.%d.json%%'", k, k);
  ST_EQ(runs(pg.uri, where), 0);
  /* The commit report calls the run incomplete, never green, and exits
   * 125 (git bisect's skip). */
  st_run r;
  char args[1400];
  snprintf(args, sizeof args, "--history='%s' --commit-report=slurm-c2", pg.uri);
  st_exec(&r, "", args);
  ST_CHECKF(r.status == 125 && strstr(r.out, "INCOMPLETE") && strstr(r.out, "3 of 4 shards recorded"),
            "exit %d:\n%s", r.status, r.out);
  st_run_free(&r);
  st_run m;
  snprintf(args, sizeof args, "--history='%s' --merge='%s/all.json' %s/out/" MODEL "/shard.*.json", pg.uri, dir, dir);
  st_exec(&m, "", args);
  ST_CHECKF(m.status == 2 && strstr(m.out, missing) && !strstr(m.out, "recorded run"), "exit %d:\n%s", m.status, m.out);
  st_run_free(&m);
  ST_EQ(runs(pg.uri, "origin = 'merge'"), 0);
  free(task);
  free(out);
  end(&c, &pg);
}

/* An array given as a list: Slurm gives its tasks SLURM_ARRAY_TASK_MIN=1,
 * _MAX=9, _COUNT=3 and _STEP=1, which is no range of shards; each task's
 * perftest refuses (exit 2) and writes no report. And a model that no node
 * has: ci/slurm/run-fleet.sh cannot submit its array and exits 2. */
ST_TEST(slurm_list_array_and_an_unknown_model_are_refused)
{
  cluster c;
  char why[600];
  if (cluster_start(&c, why, sizeof why)) {
    cluster_stop(&c);
    st_skip("Slurm: %.280s", why);
    return;
  }
  char cmd[16384];
  snprintf(cmd, sizeof cmd,
           "cd '%s' && PERFTEST='%s' PERFGATE_ARGS='--filter=host.truth' timeout 120 sbatch --wait --quiet --array=1,4,9 "
           "--constraint=" MODEL " --output='%s/task.%%a.out' '%s/perftest.sbatch'",
           c.dir, c.fixture, c.dir, c.ci);
  ST_EQ(st_shell(cmd), 2); /* sbatch --wait: the highest of the tasks' codes */
  static const char *const task[] = {"1", "4", "9"};
  for (int i = 0; i < 3; i++) {
    char name[128], want[120];
    snprintf(name, sizeof name, "task.%s.out", task[i]);
    char *out = read_in(c.dir, name);
    snprintf(want, sizeof want, "is not a range (tasks 1..9, 3 of them, step 1; this is task %s)", task[i]);
    ST_CHECKF(strstr(out, want) && strstr(out, "--array=0-2"), "task %s:\n%s", task[i], out);
    free(out);
    snprintf(name, sizeof name, "%s/shard.%s.json", c.dir, task[i]);
    ST_CHECKF(access(name, F_OK) != 0, "%s was written", name);
  }
  snprintf(cmd, sizeof cmd, "cd '%s' && PERFTEST='%s' timeout 120 '%s/run-fleet.sh' nosuchgpu 2>&1; echo \"exit $?\"",
           c.dir, c.fixture, c.ci);
  FILE *p = popen(cmd, "r");
  char all[4096] = "", line[512];
  while (p && fgets(line, sizeof line, p)) strncat(all, line, sizeof all - strlen(all) - 1);
  ST_CHECK(p && pclose(p) == 0);
  ST_CHECKF(strstr(all, "run-fleet.sh: nosuchgpu: the array was not submitted") && strstr(all, "exit 2\n"), "%s", all);
  cluster_stop(&c);
}
