/* measure.h - what `grader --bench` measures, shared by bench.c (the command line, the rows, the
 * table) and measure.c (the measuring). Private to bench/.
 */
#ifndef BENCH_MEASURE_H
#define BENCH_MEASURE_H

#include "bench/bench.h"

#include <limits.h>

#define BENCH_MAX_DEVICES 8
#define BENCH_MAX_SIZES   8
#define BENCH_MAX_ROWS    24
#define TRAFFIC_N         32 /* size of the oclgrind counting runs (it interprets every access) */

struct bench_figure {
    int done;           /* 1: measured */
    struct clu_stats s; /* seconds */
    char note[200];     /* why not measured, or what it was (library, options) */
};

struct bench_row {
    const char *kind;                 /* baseline | kernel | vendor */
    char name[80];                    /* the lecture's case name */
    char key[48];                     /* bench.csv's key (csv.h): ex:04_local_B, vendor:clblast */
    const struct grader_exercise *ex; /* kernel rows: the exercise */
    int block;                        /* kernel rows: BLOCK */
    struct grader_traffic traffic;    /* kernel rows, counted once */
    int traffic_done;                 /* 1: traffic counted */
    struct bench_figure at[BENCH_MAX_SIZES][BENCH_MAX_DEVICES];
};

struct bench_device {
    char name[520];   /* device (platform) */
    char driver[200]; /* driver and platform versions */
    int is_cpu;       /* CL_DEVICE_TYPE_CPU */
    int spec_index;   /* index for clu_env_open */
    struct bench_peak peak;
    int peak_done;
};

struct bench {
    const char *root, *out, *self;
    char peak_source[PATH_MAX]; /* the root's BENCH_PEAK_SOURCE */
    int sizes[BENCH_MAX_SIZES], size_count;
    struct bench_device devices[BENCH_MAX_DEVICES];
    int device_count;
    struct bench_row rows[BENCH_MAX_ROWS];
    int row_count;
    int vendor, traffic, plots;
    int failures; /* reference kernels that gave a wrong result */
};

/* The OpenCL devices into b->devices: every one, or only the one spec (--device, $DEVICE)
 * selects. Returns 0, or -1 when there is none. */
int bench_find_devices(struct bench *b, const char *spec);

/* Every row on every device at N = b->sizes[si], the devices' peaks on the first call. */
void bench_measure_size(struct bench *b, int si);

/* The memory traffic of each kernel row, counted under oclgrind. The counts are the same on every
 * machine, so they are kept in build/bench-traffic/ and reused while the kernel source is
 * unchanged (also where oclgrind is not installed, if the folder was copied from a machine where
 * it is). */
void bench_count_traffic(struct bench *b);

#endif
