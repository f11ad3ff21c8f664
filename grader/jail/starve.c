/* starve.c - whether a run stopped at its time limit was starved by a busy machine (not graded,
 * graded again later) or was merely slow (a timeout, points lost).
 *
 * What the run's processes report cannot decide it alone: a process that ended takes its CPU
 * seconds along unless a live process of the run reaped it (cutime), and a program that forks
 * children spinning 8 ms each, reaped by the kernel (SIGCHLD ignored) or by init (orphans),
 * looks like a run that wanted a CPU and got none. Without control groups nothing counts those
 * seconds. So a run is starved only when three things agree:
 *   1. its own count: its processes wanted a CPU more than half of the time and were counted
 *      under a quarter of what they wanted (with control groups the kernel's count, the dead
 *      processes' too; without, the live processes' and the children they reaped);
 *   2. the machine's pressure, where the kernel keeps it (/proc/pressure/cpu): tasks waited for a
 *      CPU at least a quarter of the time;
 *   3. the grader's own probe: with every process of the run stopped (what it does cannot load
 *      the machine then), a thread of the grader that wants a CPU for a moment gets under a
 *      quarter of one, in most of the probes: one in each second the run looked starved, and one
 *      at the limit.
 * The probe is the one the student's code cannot bend: a starved run (a quarter of a CPU for all
 * its processes) means that one more task gets no more than that either, and a run that loads
 * the machine itself is stopped while the grader measures. */
#define _GNU_SOURCE
#include "jail/runner.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#define PROBE_EVERY   1.0  /* seconds of a window of samples */
#define PROBE_SECONDS 0.1  /* of each probe while the run looks starved */
#define LAST_PROBE    0.25 /* of the probe at the limit */
#define STARVED_SHARE 0.25 /* of a CPU: under it, starved */

/* The machine's CPU pressure: microseconds some task waited for a CPU since boot (-1: the kernel
 * keeps none). */
static long long cpu_pressure(void) {
    FILE *f = fopen("/proc/pressure/cpu", "re");
    if (!f)
        return -1;
    char line[256];
    long long total = -1;
    while (total < 0 && fgets(line, sizeof line, f)) {
        const char *at = strstr(line, "total=");
        if (!strncmp(line, "some ", 5) && at)
            sscanf(at + 6, "%lld", &total);
    }
    fclose(f);
    return total;
}

static double thread_cpu(void) {
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Stop the run, want a CPU for `seconds`, continue the run: whether this thread got under
 * STARVED_SHARE of a CPU (counted in the run's probes). */
static void probe(struct run_state *st, double seconds) {
    jail_pause_run(st, 1);
    /* SIGSTOP reaches a process on another CPU a moment later: wait (briefly) until none runs */
    int runnable = 1;
    for (double end = jail_now() + 0.05; runnable && jail_now() < end;) {
        runnable = 0;
        jail_each_in_session(st->pid, NULL, NULL, &runnable);
    }
    double wall = jail_now(), cpu = thread_cpu();
    while (jail_now() - wall < seconds)
        ;
    double share = (thread_cpu() - cpu) / (jail_now() - wall);
    jail_pause_run(st, 0);
    st->starve.probes++;
    st->starve.probes_busy += share < STARVED_SHARE;
}

void jail_starve_start(struct run_state *st) {
    memset(&st->starve, 0, sizeof st->starve);
    st->starve.window_start = st->start;
    st->starve.pressure_start = cpu_pressure();
}

void jail_sample_cpu(struct run_state *st, double interval) {
    struct jail_starve *v = &st->starve;
    double cpu = 0;
    int runnable = 0;
    jail_each_in_session(st->pid, NULL, &cpu, &runnable);
    double counted = st->cgroup.mode ? grader_cgroup_run_cpu_seconds(&st->cgroup) : -1;
    if (counted >= 0) /* the kernel's count, the ended processes' seconds included */
        cpu = counted;
    if (cpu > v->cpu_last) { /* a process that ended takes its seconds along: never negative */
        v->cpu_seen += cpu - v->cpu_last;
        v->window_cpu += cpu - v->cpu_last;
    }
    v->cpu_last = cpu;
    if (runnable) {
        v->busy_wait += interval;
        v->window_wait += interval;
    }
    double window = jail_now() - v->window_start;
    if (window < PROBE_EVERY)
        return;
    if (!v->paused && v->window_wait > 0.5 * window &&
        v->window_cpu < STARVED_SHARE * v->window_wait)
        probe(st, PROBE_SECONDS);
    v->window_start = jail_now();
    v->window_cpu = v->window_wait = 0;
}

int jail_starved(struct run_state *st) {
    struct jail_starve *v = &st->starve;
    double elapsed = jail_now() - st->start;
    if (v->busy_wait <= 0.5 * elapsed || v->cpu_seen >= STARVED_SHARE * v->busy_wait)
        return 0;
    long long pressure = cpu_pressure();
    if (v->pressure_start >= 0 && pressure >= 0 &&
        (double)(pressure - v->pressure_start) < 0.25e6 * elapsed)
        return 0;
    probe(st, LAST_PROBE);
    return 2 * v->probes_busy > v->probes;
}
