/* cgroup_run.c - a run's control group under its student's (see cgroup.h): made with its memory
 * and task limits, entered by the child between fork and exec, read for the CPU time and memory
 * of the run, frozen to pause it, killed whole and removed at its end. */
#define _GNU_SOURCE /* kill with sys/types */
#include "jail/cgroup_fs.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int grader_cgroup_run_open(struct grader_cgroup_student *s, struct grader_cgroup_run *r,
                           long long memory_bytes, long processes, char *why, size_t why_size) {
    memset(r, 0, sizeof *r);
    for (int t = 0; t < GRADER_CGROUP_TREES; t++)
        r->procs_fd[t] = -1;
    if (s->mode == GRADER_CGROUP_NONE) {
        cgroup_say(why, why_size, "cgroups: the student has no group");
        return -1;
    }
    char name[32], memory[32], tasks[32];
    snprintf(name, sizeof name, "run-%u", ++s->runs_made);
    if (memory_bytes > 0)
        snprintf(memory, sizeof memory, "%lld", memory_bytes);
    else
        snprintf(memory, sizeof memory, s->mode == GRADER_CGROUP_V2 ? "max" : "-1");
    if (processes > 0)
        snprintf(tasks, sizeof tasks, "%ld", processes);
    else
        snprintf(tasks, sizeof tasks, "max");
    r->mode = s->mode;
    for (int t = 0; t < s->tree_count; t++) {
        const char *dir = r->dir[t];
        unsigned has = r->controllers[t] = s->trees[t].controllers;
        char procs[CGROUP_FILE_PATH];
        if (cgroup_join(r->dir[t], sizeof r->dir[t], s->trees[t].group, name) != 0 ||
            mkdir(dir, 0755) != 0) {
            cgroup_say(why, why_size, "cgroups: cannot make %s/%s: %s", s->trees[t].group, name,
                       strerror(errno));
            grader_cgroup_run_close(r);
            return -1;
        }
        r->tree_count = t + 1;
        int failed = 0;
        if (r->mode == GRADER_CGROUP_V2) {
            /* swap counts as memory: none at all, or memory.max would not bound it */
            if (has & GRADER_CGROUP_HAS_MEMORY)
                failed = cgroup_put(dir, "memory.max", memory) != 0 ||
                         (cgroup_put(dir, "memory.swap.max", "0") != 0 && errno != ENOENT);
            if (!failed && (has & GRADER_CGROUP_HAS_PIDS))
                failed = cgroup_put(dir, "pids.max", tasks) != 0;
        } else {
            /* memsw bounds memory plus swap, and may never be below the memory limit: set after */
            if (has & GRADER_CGROUP_HAS_MEMORY)
                failed =
                    cgroup_put(dir, "memory.limit_in_bytes", memory) != 0 ||
                    (s->has_memsw && cgroup_put(dir, "memory.memsw.limit_in_bytes", memory) != 0);
            if (!failed && (has & GRADER_CGROUP_HAS_PIDS))
                failed = cgroup_put(dir, "pids.max", tasks) != 0;
        }
        if (!failed && cgroup_join(procs, sizeof procs, dir, "cgroup.procs") == 0)
            r->procs_fd[t] = open(procs, O_WRONLY | O_CLOEXEC);
        if (failed || r->procs_fd[t] < 0) {
            cgroup_say(why, why_size, "cgroups: cannot set up %s: %s", dir, strerror(errno));
            grader_cgroup_run_close(r);
            return -1;
        }
    }
    return 0;
}

int grader_cgroup_run_enter(const struct grader_cgroup_run *r) {
    for (int t = 0; t < r->tree_count; t++)
        if (r->procs_fd[t] >= 0 && write(r->procs_fd[t], "0", 1) != 1)
            return -1;
    return 0;
}

/* The run's group in the hierarchy holding controller bit, or NULL. */
static const char *run_dir(const struct grader_cgroup_run *r, unsigned bit) {
    for (int t = 0; t < r->tree_count; t++)
        if (r->controllers[t] & bit)
            return r->dir[t];
    return NULL;
}

double grader_cgroup_run_cpu_seconds(const struct grader_cgroup_run *r) {
    const char *dir = run_dir(r, GRADER_CGROUP_HAS_CPUACCT);
    if (!dir)
        return -1;
    if (r->mode == GRADER_CGROUP_V2) {
        long long usec = cgroup_get_keyed(dir, "cpu.stat", "usage_usec");
        return usec < 0 ? -1 : 1e-6 * (double)usec;
    }
    long long nsec = cgroup_get_number(dir, "cpuacct.usage");
    return nsec < 0 ? -1 : 1e-9 * (double)nsec;
}

int grader_cgroup_run_memory_hit(const struct grader_cgroup_run *r) {
    const char *dir = run_dir(r, GRADER_CGROUP_HAS_MEMORY);
    if (!dir)
        return 0;
    if (r->mode == GRADER_CGROUP_V2) {
        if (cgroup_get_keyed(dir, "memory.events", "oom_kill") > 0)
            return 2;
        return cgroup_get_keyed(dir, "memory.events", "max") > 0 ||
               cgroup_get_keyed(dir, "memory.events", "oom") > 0;
    }
    if (cgroup_get_keyed(dir, "memory.oom_control", "oom_kill") > 0)
        return 2;
    return cgroup_get_number(dir, "memory.failcnt") > 0 ||
           cgroup_get_number(dir, "memory.memsw.failcnt") > 0;
}

long long grader_cgroup_run_memory_bytes(const struct grader_cgroup_run *r) {
    const char *dir = run_dir(r, GRADER_CGROUP_HAS_MEMORY);
    if (!dir)
        return -1;
    return cgroup_get_number(dir, r->mode == GRADER_CGROUP_V2 ? "memory.current"
                                                              : "memory.usage_in_bytes");
}

/* Sends sig to every process of the run; returns how many there were (-1: unknown). The list
 * is the freezer's where there is one: what kill froze is what it signals (every hierarchy holds
 * every process of the run: it enters them all). */
static long signal_all(const struct grader_cgroup_run *r, int sig) {
    char path[CGROUP_FILE_PATH];
    const char *dir = run_dir(r, GRADER_CGROUP_HAS_FREEZER);
    if (!dir && r->tree_count > 0)
        dir = r->dir[0];
    if (!dir || cgroup_join(path, sizeof path, dir, "cgroup.procs") != 0)
        return -1;
    FILE *f = fopen(path, "re");
    if (!f)
        return -1;
    long count = 0, pid;
    while (fscanf(f, "%ld", &pid) == 1) {
        if (sig && pid > 0)
            kill((pid_t)pid, sig);
        count++;
    }
    fclose(f);
    return count;
}

long grader_cgroup_run_processes(const struct grader_cgroup_run *r) {
    return r->mode == GRADER_CGROUP_NONE ? -1 : signal_all(r, 0);
}

/* Whether the run's freezer says it is frozen (v1 freezer.state, v2 cgroup.events). */
static int is_frozen(const struct grader_cgroup_run *r, const char *dir) {
    if (r->mode == GRADER_CGROUP_V2)
        return cgroup_get_keyed(dir, "cgroup.events", "frozen") == 1;
    char state[32];
    return cgroup_get(dir, "freezer.state", state, sizeof state) > 0 &&
           !strncmp(state, "FROZEN", 6);
}

/* Freezes or thaws, waiting up to `wait` seconds for frozen; 0, or -1 where no freezer works
 * (every process was then sent SIGSTOP or SIGCONT). */
static int freeze_within(const struct grader_cgroup_run *r, int frozen, double wait) {
    const char *dir = run_dir(r, GRADER_CGROUP_HAS_FREEZER);
    int done = 0;
    if (dir && r->mode == GRADER_CGROUP_V2)
        done = cgroup_put(dir, "cgroup.freeze", frozen ? "1" : "0") == 0;
    else if (dir)
        done = cgroup_put(dir, "freezer.state", frozen ? "FROZEN" : "THAWED") == 0;
    if (!done) {
        signal_all(r, frozen ? SIGSTOP : SIGCONT);
        return -1;
    }
    for (double end = cgroup_now() + wait; frozen && !is_frozen(r, dir) && cgroup_now() < end;)
        cgroup_pause();
    return 0;
}

void grader_cgroup_run_freeze(const struct grader_cgroup_run *r, int frozen) {
    if (r->mode != GRADER_CGROUP_NONE)
        freeze_within(r, frozen, CGROUP_WAIT_SECONDS);
}

void grader_cgroup_run_kill(struct grader_cgroup_run *r) {
    if (r->mode == GRADER_CGROUP_NONE)
        return;
    double end = cgroup_now() + CGROUP_WAIT_SECONDS;
    if (r->mode == GRADER_CGROUP_V2 && cgroup_put(r->dir[0], "cgroup.kill", "1") == 0) {
        while (signal_all(r, 0) > 0 && cgroup_now() < end)
            cgroup_pause();
        return;
    }
    /* frozen, nothing can fork between the listing and the kill; thawed, the killed go */
    while (signal_all(r, 0) > 0 && cgroup_now() < end) {
        freeze_within(r, 1, 0.5);
        signal_all(r, SIGKILL);
        freeze_within(r, 0, 0);
        if (signal_all(r, 0) > 0)
            cgroup_pause();
    }
}

void grader_cgroup_run_close(struct grader_cgroup_run *r) {
    if (r->mode == GRADER_CGROUP_NONE)
        return;
    grader_cgroup_run_kill(r);
    for (int t = 0; t < r->tree_count; t++) {
        if (r->procs_fd[t] >= 0)
            close(r->procs_fd[t]);
        r->procs_fd[t] = -1;
        cgroup_remove_group(r->dir[t]);
    }
    r->mode = GRADER_CGROUP_NONE;
    r->tree_count = 0;
}
