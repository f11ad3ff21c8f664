/* cgroup.h - the kernel's own accounting for a student's runs: a control group per student (all
 * of its runs, one equal CPU weight) and a child group per run (a memory limit that counts what
 * rlimits and the resident-memory watch miss, memfd and shmem pages; a task limit that binds root
 * too; its CPU time, the dead processes' too; freezing and killing every process of the run
 * wherever it went).
 *
 * Works on cgroup v2 and on cgroup v1, with whichever of the controllers cpu, memory and pids
 * (v1: cpu, cpuacct, memory, pids, freezer) the grader's group has: each one in force is used,
 * and each one missing leaves its job to the caller's other fences (memory: RLIMIT_DATA and the
 * watch; pids: RLIMIT_NPROC under the run's uid; cpu: a session of its own per run; v1 cpuacct:
 * the watch's count of CPU time; v1 freezer: SIGSTOP). A v2 group counts CPU time and freezes
 * and kills with no controller at all. Groups are made under the grader's current group of each
 * hierarchy, so limits set outside still hold. Where no group can be made (not root,
 * /sys/fs/cgroup read-only, GRADER_CGROUPS=none) the open call says why and the caller keeps its
 * other fences (uid, rlimits, watch). GRADER_CGROUPS=v1 or v2 allows that version only (tests);
 * else v2 is used unless it lacks the memory controller and a v1 memory hierarchy has it. */
#ifndef GRADER_CGROUP_H
#define GRADER_CGROUP_H

#include <stddef.h>

#define GRADER_CGROUP_NONE 0
#define GRADER_CGROUP_V1   1
#define GRADER_CGROUP_V2   2

/* controllers, as bits */
#define GRADER_CGROUP_HAS_CPU     1u
#define GRADER_CGROUP_HAS_CPUACCT 2u
#define GRADER_CGROUP_HAS_MEMORY  4u
#define GRADER_CGROUP_HAS_PIDS    8u
#define GRADER_CGROUP_HAS_FREEZER 16u

#define GRADER_CGROUP_TREES 5   /* v1: one hierarchy per controller at most */
#define GRADER_CGROUP_PATH  384 /* a group's folder */

/* One hierarchy the groups live in (v2: the only one). */
struct grader_cgroup_tree {
    char home[GRADER_CGROUP_PATH];  /* the grader's group when opened: where it goes back */
    char group[GRADER_CGROUP_PATH]; /* the student's group, under home */
    unsigned controllers;           /* GRADER_CGROUP_HAS_* bits handled in this hierarchy */
};

/* A student's group: every run of one student lives under it. */
struct grader_cgroup_student {
    int mode;                                             /* GRADER_CGROUP_NONE, _V1 or _V2 */
    int tree_count;                                       /* hierarchies in use */
    struct grader_cgroup_tree trees[GRADER_CGROUP_TREES]; /* v1: cpu, cpuacct... (deduplicated) */
    char v2_outer[GRADER_CGROUP_PATH]; /* v2: the group the grader left for a leaf */
    char v2_enabled[48];               /* v2: "-cpu -pids": what it enabled there */
    char missing[640];                 /* why controllers are not in force ("": all are) */
    int has_memsw;                     /* v1: memory.memsw.* (swap accounting) */
    unsigned runs_made;                /* names the run groups run-1, run-2... */
};

/* One run's groups, a child of the student's in each hierarchy. */
struct grader_cgroup_run {
    int mode;                                          /* the student's mode; NONE: not open */
    int tree_count;                                    /* as the student's */
    char dir[GRADER_CGROUP_TREES][GRADER_CGROUP_PATH]; /* the run's group in each hierarchy */
    unsigned controllers[GRADER_CGROUP_TREES];         /* as the student's trees */
    int procs_fd[GRADER_CGROUP_TREES];                 /* cgroup.procs of each, opened in advance */
};

/* Make the student's group clmm-<label>-<pid> (equal CPU weight) and move the calling process
 * into it (v2: into its leaf <group>/grader; runs are its siblings). 0 when in force, or -1 with
 * the reason ("cgroups: ...") in why; s is then mode NONE and needs no close. */
int grader_cgroup_student_open(struct grader_cgroup_student *s, const char *label, char *why,
                               size_t why_size);

/* "cgroup v2", "cgroup v1" or "none". */
const char *grader_cgroup_mode(const struct grader_cgroup_student *s);

/* The GRADER_CGROUP_HAS_* bits in force for the student's runs (0 for mode NONE). */
unsigned grader_cgroup_in_force(const struct grader_cgroup_student *s);

/* What the groups do, for the "Containment:" line: into used, e.g. "memory, CPU time, freezing"
 * ("" for mode NONE); into fallback what the runs get instead of each missing controller and why
 * it is missing ("" when none is). */
void grader_cgroup_describe(const struct grader_cgroup_student *s, char *used, size_t used_size,
                            char *fallback, size_t fallback_size);

/* Move the calling process back to the groups it was in at open, remove the student's groups
 * (close its runs first). Nothing for mode NONE. */
void grader_cgroup_student_close(struct grader_cgroup_student *s);

/* A run's group under the student's: memory_bytes (memory and swap; <= 0: none) and processes
 * (tasks, threads too; <= 0: none) as limits, its cgroup.procs files opened for
 * grader_cgroup_run_enter. 0, or -1 with why (r is then closed). */
int grader_cgroup_run_open(struct grader_cgroup_student *s, struct grader_cgroup_run *r,
                           long long memory_bytes, long processes, char *why, size_t why_size);

/* In a child between fork and exec, before it gives up root: moves the calling process into the
 * run's groups. Async-signal-safe (write(2) only). 0, or -1 with errno. */
int grader_cgroup_run_enter(const struct grader_cgroup_run *r);

/* CPU seconds the run's processes used so far (the dead ones too); -1 if unknown. */
double grader_cgroup_run_cpu_seconds(const struct grader_cgroup_run *r);

/* Whether the memory limit was met: 0 no, 1 it was reached (allocations failed or had to
 * reclaim), 2 a process was killed for it (the OOM killer). */
int grader_cgroup_run_memory_hit(const struct grader_cgroup_run *r);

/* Bytes the run's processes hold now (memfd and shmem pages too); -1 if unknown. */
long long grader_cgroup_run_memory_bytes(const struct grader_cgroup_run *r);

/* Processes in the run's group now (zombies not counted); -1 if unknown. */
long grader_cgroup_run_processes(const struct grader_cgroup_run *r);

/* Stop (frozen 1) or continue (0) every process of the run; returns when they are stopped. Uses
 * the freezer, or SIGSTOP/SIGCONT of each process where there is none. */
void grader_cgroup_run_freeze(const struct grader_cgroup_run *r, int frozen);

/* SIGKILL every process of the run, those that forked or double-forked away too; waits up to
 * 5 s until the group is empty. */
void grader_cgroup_run_kill(struct grader_cgroup_run *r);

/* Kill, remove the run's groups and close its files. Nothing for a run not open. */
void grader_cgroup_run_close(struct grader_cgroup_run *r);

#endif
