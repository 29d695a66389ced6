/* baselinedir.h — the baseline directory: reading, validating and updating it. */
/* Whether a command can read it; --check-baselines validates every file
 * without running a test; the updater creates, probes and locks it, and
 * clears what a dead updater left. */
#ifndef PERF_BASELINEDIR_H
#define PERF_BASELINEDIR_H

#include <stddef.h>
#include <stdio.h>

/* Whether a command that reads the baseline directory (a run,
 * --check-baselines, --print-baseline-file, --trend) can use dir, checked
 * before anything runs or is printed. A directory that does not exist is
 * a project with no baselines yet (*missing = 1: baseline checks are
 * skipped with a notice, --update-baselines creates it), unless must_exist
 * (--check-baselines of a directory named with --baseline-dir: a typo).
 * Returns 0, or PERF__EUSAGE with "cannot read the directory 'DIR': why"
 * in err[len] for a path that exists and is not a directory this process
 * can read and search, or a missing one that must exist; a symbolic link
 * to nothing exists (it is no project without baselines): PERF__EUSAGE
 * naming the link and its target. */
int perf__baselinedir_usable(const char *dir, int must_exist, int *missing, char *err,
                             size_t len);

/* Loads every *.yaml file of dir, in name order, with the baseline
 * loader's strict checks (schema, types, positions), printing one line per
 * valid file to out and a total (out NULL: nothing), with a note under a
 * host's file that has this host's name and is another machine's, or is
 * this host's under the name host files had before (baseline/machine.h). Returns 0 when all
 * are valid, or there is none, or dir is the default directory (not given)
 * and does not exist yet (each said on out); 2 after "who: file:line:column:
 * problem" on err for the first malformed or unreadable file, after a line
 * naming each file that looks like a baseline file but that no run reads
 * (x.yml, x.YAML: checked first, nothing else is read then), or after
 * perf__baselinedir_usable's message when dir cannot be used. who names the
 * command ("--check-baselines", "--update-baselines"). */
int perf__baselinedir_check(const char *dir, int given, const char *who, FILE *out, FILE *err);

/* Whether this host's baseline file in dir (baseline/machine.h) is another
 * machine's, for an update: its entries would be merged with this
 * machine's. Returns 2 after "who: PATH is another machine's baseline
 * file: ..." on err; 0 otherwise (a missing, own or malformed file:
 * perf__baselinedir_check says what is wrong with one). */
int perf__baselinedir_host_file(const char *dir, const char *who, FILE *err);

/* The lock file in each baseline directory. */
#define PERF__BASELINEDIR_LOCK_FILE ".perfgate.lock"

/* An exclusive flock on the lock file in the directory holding path, for
 * one updater's load-merge-save (a second updater waits for it, saying so
 * on stderr; the kernel drops the lock when its holder dies). Once held,
 * temporaries "path.tmp.PID" that an updater which died before its rename
 * left are removed (said on stdout). Returns the descriptor to pass to
 * perf__baselinedir_unlock, or -1 with the reason in err (the directory is
 * missing or not writable). */
int perf__baselinedir_lock(const char *path, char *err, size_t errlen);
/* Releases the lock (closes fd; -1 is ignored). Never fails. */
void perf__baselinedir_unlock(int fd);

/* Creates dir (and its missing parents) and checks that a file can be
 * created in it (created and removed again), so that an update that cannot
 * be written fails before it measures. Returns 0 or PERF__EIO with the
 * reason in err. */
int perf__baselinedir_probe(const char *dir, char *err, size_t errlen);

#endif
