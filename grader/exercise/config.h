/* config.h - what a grading run grades and under which limits: a plan made from the exercise table
 * and an instructor's config files (config.c). The table stays as compiled; the plan holds its own
 * copy of every row, which a config may change.
 */
#ifndef GRADER_EXERCISE_CONFIG_H
#define GRADER_EXERCISE_CONFIG_H

#include "exercise/exercise.h"
#include "jail/jail.h"

#include <stddef.h>

/* What each student's task asks a Slurm cluster for (make batch ENGINE=slurm; the grader itself
 * ignores it). Text values hold only letters, digits and _ . : , = - (they go into sbatch's
 * options). */
struct grader_slurm {
    char partition[64]; /* slurm.partition: "" the cluster's default partition */
    char gres[64];      /* slurm.gres, such as gpu:1: "" none */
    int time_minutes;   /* slurm.time_minutes: the task's time limit (GRADER_SLURM_MINUTES) */
    int memory_mb;      /* slurm.memory_mb: the task's memory (GRADER_SLURM_MEMORY_MB) */
    int cpus;           /* slurm.cpus: the task's CPUs (GRADER_SLURM_CPUS) */
};
/* a student's whole grading is stopped at 30 minutes (make batch's STUDENT_TIMEOUT): its task
 * gets 10 more to unpack and publish */
#define GRADER_SLURM_MINUTES   40
#define GRADER_SLURM_MEMORY_MB 4096
#define GRADER_SLURM_CPUS      2

struct grader_plan {
    struct grader_exercise rows[GRADER_MAX_EXERCISES]; /* the table's rows, as configs set them */
    int row_count;                                     /* grader_exercise_count */
    int chosen[GRADER_MAX_EXERCISES]; /* rows an `exercises` key named (indices), in its order */
    int chosen_count;                 /* 0: no config named any */
    double timeout;                   /* seconds per run of a student's kernel or program */
    double perf_ratio;                /* full performance points at this fraction of the speed */
    struct grader_limits limits;      /* what a student's processes may use */
    struct grader_slurm slurm;        /* make batch ENGINE=slurm's request per student */
};

/* The plan before any config: every row of the table, none chosen, the given timeout and
 * limits, GRADER_PERF_RATIO. */
void grader_plan_init(struct grader_plan *plan, double timeout, const struct grader_limits *limits);

/* Apply an instructor's config file to plan: lines `key = value`, # comments. Keys: exercises
 * (comma-separated ids: the ones to grade), timeout, perf_ratio, cpu_seconds, processes,
 * open_files, memory_mb, disk_mb, and per exercise ID.sizes (comma-separated), ID.host_n,
 * ID.memcheck_n, ID.perf_n, ID.points.per_size|host|memcheck|perf|technique|cuda_per_size|vendor,
 * ID.vendor_ratios (a row timed against the vendors: fractions of the vendor's speed, ascending),
 * ID.quiz.QUESTION (points), and slurm.partition, slurm.gres, slurm.time_minutes, slurm.memory_mb,
 * slurm.cpus (make batch ENGINE=slurm). A later file builds on an earlier one. Returns 0, or -1
 * with "FILE:LINE: what" in err and plan unchanged. */
int grader_load_config(const char *path, struct grader_plan *plan, char *err, size_t err_size);

#endif
