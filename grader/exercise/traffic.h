/* traffic.h - the memory traffic of a kernel (traffic.c), counted by oclgrind: what an exercise's
 * technique is checked against (grading) and what places a kernel on the roofline (the benchmark).
 */
#ifndef GRADER_EXERCISE_TRAFFIC_H
#define GRADER_EXERCISE_TRAFFIC_H

#include "exercise/exercise.h"
#include "jail/jail.h"

/* Global and local memory accesses per multiply-add of a kernel, counted by running it under
 * `oclgrind --inst-counts` (deterministic: the same on every machine). */
struct grader_traffic {
    double global_loads, global_stores; /* per multiply-add (i.e. divided by N^3) */
    double local_loads, local_stores;   /* per multiply-add */
    double load_bytes;                  /* bytes per global load instruction (4: a float) */
    /* per work-group, counted by the tiles plugin (grader/oclgrind/tiles.cpp says how; 0 when
     * not asked for): its barriers, and the tiles it really takes along k, whatever TSK says */
    double barriers, tiles;
    int n;         /* N of the counting run */
    char why[200]; /* reason when not counted */
};

/* Count the traffic of kernel_path for exercise ex with BLOCK block (0: the row's), or with
 * check the row's oclgrind tuning values (ex->check_tuning, which a caller's copy of the row may
 * set), at size s (small: oclgrind interprets), by running
 * `oclgrind --inst-counts <self> --harness ... --block B [--define NAME=VALUE]...` as a child
 * in workdir. With tiles_plugin (the built oclgrind-tiles.so, where the run can read it; NULL:
 * none) oclgrind loads it and t->barriers and t->tiles are counted too. prefix (NULL-terminated,
 * or NULL) goes before oclgrind: a sandbox; with jail_dir the run is jailed there under js (a
 * student's kernel; js and jail_dir NULL: not jailed). Returns 0, or -1 with t->why set. */
int grader_traffic(const char *self, const struct grader_exercise *ex, const char *kernel_path,
                   int block, int check, struct grader_size s, const char *workdir,
                   const char *tiles_plugin, struct grader_traffic *t, const char *const *prefix,
                   const struct grader_jail_settings *js, const char *jail_dir);

/* The tiles plugin's output (text, whole): its one line for the one launch into t->barriers and
 * t->tiles, per work-group. 0, or -1 with t->why set (no line, or more than one). */
int grader_tiles_parse(const char *text, struct grader_traffic *t);

/* The name of the tiles plugin, beside the grader's executable (the Makefile builds it there). */
#define GRADER_TILES_PLUGIN "oclgrind-tiles.so"

/* Flops per byte of global memory traffic (2 flops per multiply-add, 4 bytes per access). */
double grader_intensity(const struct grader_traffic *t);

#endif
