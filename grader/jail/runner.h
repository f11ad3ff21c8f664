/* runner.h - the jail wing's own: one running child's state, shared by the runner (run.c), the
 * start of a child in its jail (spawn.c) and the watch of its processes (watch.c). Nothing
 * outside jail/ includes it: jail.h is the wing's interface.
 */
#ifndef GRADER_JAIL_RUNNER_H
#define GRADER_JAIL_RUNNER_H

#include "jail/cgroup.h"
#include "jail/jail.h"

#include <sys/resource.h>
#include <sys/types.h>

/* The limits of a jailed child, prepared by the parent (the child only calls setrlimit). */
struct jail_plan {
    int active;
    uid_t uid; /* (uid_t)-1: keep the grader's */
    struct rlimit cpu, nproc, nofile, data;
    char **envp;
    const char *dir;                        /* its working folder */
    rlim_t fsize;                           /* no file larger than the folder may hold */
    int niceness;                           /* a program that may fork runs at low priority */
    const struct grader_cgroup_run *cgroup; /* the run's groups to enter (NULL: none) */
};

/* What tells a run starved by a busy machine from a run that is merely slow (starve.c). */
struct jail_starve {
    double cpu_seen, busy_wait;     /* CPU seconds its processes got; seconds some wanted a CPU */
    double cpu_last;                /* the CPU seconds at the last sample */
    double window_start;            /* the current window of samples (about a second) */
    double window_cpu, window_wait; /* its CPU seconds got and seconds wanted */
    int probes, probes_busy;  /* the grader's probes of the machine; those that found it busy */
    long long pressure_start; /* /proc/pressure/cpu "some" total at the start (us; -1: none) */
    int paused;               /* paused by its caller (grader_child_pause): never probed */
};

/* Everything about one running child, from its start to its cleanup. */
struct run_state {
    struct jail_plan jail;           /* its limits and uid (jail.active: a student's) */
    struct grader_limits limits;     /* what it may use (jailed): the watch holds it to them */
    const char *jail_dir;            /* its folder, watched for size (NULL: not jailed) */
    const char *out_path;            /* its output log: counted in the folder's budget, then cut */
    pid_t pid;                       /* the child, leader of a session of its own */
    double start, last_watch;        /* monotonic seconds */
    long long free_at_start;         /* free bytes of its folder's file system at the start */
    int exec_errno;                  /* why exec failed (0: it did not) */
    struct jail_starve starve;       /* whether a busy machine starved it */
    struct grader_cgroup_run cgroup; /* its groups, when cgroups are in force (mode NONE: not) */
    const struct grader_jail_done_when *done_when; /* (jail.h; NULL: none) */
    long long done_size;                           /* the report's size when last read */
};

/* Monotonic seconds. */
double jail_now(void);

/* ---------------------------------------------------------------- starting a child (spawn.c) */

/* Plan the jail (under js, when jail_dir is set) and fork the child; control (or NULL) holds the
 * child's ends of its command and reply pipes. 0, or -1 with result filled (it could not
 * start). */
int jail_spawn(const struct grader_jail_settings *js, char *const argv[], const char *out_path,
               const char *jail_dir, const int control[2], struct run_state *st,
               struct grader_run_result *result);
/* The environment jail_spawn made, freed. */
void jail_free_environment(struct jail_plan *jail);

/* ---------------------------------------------------------------- the watch (watch.c) */

/* Free bytes of the file system holding dir (-1 if unknown). */
long long jail_free_bytes(const char *dir);
/* Tasks (threads included) that uid runs now. */
long jail_tasks_of(uid_t uid);
/* Kill every process of uid and wait (up to 5 s) until none is still running or exiting. */
void jail_end_all_of(uid_t uid);
/* Calls visit(pid) for every process of the session sid; returns how many there were, sums
 * their CPU seconds (with those of the children they reaped) into *cpu and counts the processes
 * with a thread running or waiting for a CPU into *runnable (each may be NULL). */
int jail_each_in_session(pid_t sid, void (*visit)(pid_t pid), double *cpu, int *runnable);
/* The CPU seconds the live processes of session sid have had, every thread's to the nanosecond
 * (schedstat; a sandbox's processes included, which stay in the session), -1 if /proc cannot be
 * read. */
double jail_session_cpu(pid_t sid);
/* The seconds the live threads of session sid have waited, runnable, for a CPU that another task
 * held (schedstat's second field), -1 if /proc cannot be read. */
double jail_session_waited(pid_t sid);
/* Stop (SIGSTOP, or the freezer with control groups) or continue every process of the run. */
void jail_pause_run(struct run_state *st, int paused);

/* ---------------------------------------------------------------- a busy machine (starve.c) */

/* At the run's start: the machine's pressure, the first window. */
void jail_starve_start(struct run_state *st);
/* One sample of the CPU the child's processes got, and whether they wanted more; now and then,
 * while they look starved, a probe of the machine. */
void jail_sample_cpu(struct run_state *st, double interval);
/* Whether a run that hit its time limit was starved by a busy machine (may stop it a moment for
 * a last probe). */
int jail_starved(struct run_state *st);
/* 0, or LIMIT_DISK, LIMIT_OUTPUT or LIMIT_MEMORY when the run passed a limit rlimits cannot hold.
 */
int jail_over_limit(const struct run_state *st);
/* 1 when the run's report (st->done_when) ends with its tail (in its last JAIL_DONE_BYTES), read
 * where its size changed since the last look; a report that is no plain file of one link says
 * nothing. jail_spawn removes the report before each start. */
int jail_report_done(struct run_state *st);

#endif
