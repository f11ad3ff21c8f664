/* measure.h - what `grader --bench` measures, shared by bench_command.c (the command line, the
 * rows, the table) and measure.c (the measuring). Private to bench/.
 */
#ifndef BENCH_MEASURE_H
#define BENCH_MEASURE_H

#include "bench/bench.h"
#include "exercise/tuning.h"

#include <limits.h>

#define BENCH_MAX_DEVICES 8
#define BENCH_MAX_SIZES   8
#define BENCH_MAX_ROWS    32
#define TRAFFIC_N         32 /* size of the oclgrind counting runs (it interprets every access) */

struct bench_figure {
    int done;           /* 1: measured */
    struct clu_stats s; /* seconds (at the row's N: scaled when timed_n is smaller) */
    char note[200];     /* why not measured, or what it was (library, options) */
    int timed_n;        /* the N actually timed: the row's N, or a smaller one (scaled) */
    double full_s;      /* when scaled: the seconds the whole timing at N would have taken */
};

struct bench_row {
    const char *kind;                 /* baseline | kernel | vendor */
    char name[120];                   /* the lecture's case name, with its tuning values if any */
    char key[48];                     /* bench.csv's key (csv.h): ex:04_local_B, vendor:clblast */
    const struct grader_exercise *ex; /* kernel rows: the exercise */
    char kernel[PATH_MAX];            /* kernel rows: its kernel.cl (the reference's or yours) */
    int yours;                        /* kernel rows: the student's kernel (--submission) */
    int block;                        /* kernel rows: BLOCK */
    char tuning[80];                  /* kernel rows: "TS=32 WPT=8", "BLOCK=8" (tiles), or "" */
    struct grader_values tuned;       /* kernel rows: a tuning file's values (variant's storage) */
    struct grader_variant variant;    /* kernel rows: what it is built and launched with */
    char options[400];                /* kernel rows: the build options, "-DTS=32 -DWPT=8" */
    const char *step; /* the exercise's id when the row is it at its table's values, else NULL */
    struct grader_traffic traffic; /* kernel rows, counted once */
    int traffic_done;              /* 1: traffic counted */
    struct bench_figure at[BENCH_MAX_SIZES][BENCH_MAX_DEVICES];
};

struct bench_device {
    char name[520];        /* device (platform) */
    char device_name[256]; /* the device alone (CL_DEVICE_NAME): its tuning file's name */
    char driver[200];      /* driver and platform versions */
    int is_cpu;            /* CL_DEVICE_TYPE_CPU */
    int spec_index;        /* index for clu_env_open */
    struct bench_peak peak;
    int peak_done;
};

struct bench {
    const char *root, *out, *self;
    const char *tuning; /* the folder of make tune's files (--tuning; default results/tuning) */
    char peak_source[PATH_MAX]; /* the root's BENCH_PEAK_SOURCE */
    int sizes[BENCH_MAX_SIZES], size_count;
    struct bench_device devices[BENCH_MAX_DEVICES];
    int device_count;
    struct bench_row rows[BENCH_MAX_ROWS];
    int row_count;
    int vendor, traffic, plots;
    int failures;           /* reference kernels that gave a wrong result */
    const char *submission; /* --submission: a student's tree whose kernels get rows of their own */
    const char *only;       /* --ex: the one exercise whose kernels are measured (NULL: all) */
    double budget;          /* seconds a row's timing may take at full N (--budget; 0: no limit) */
    struct bench_progress *progress; /* the progress line on stderr (progress.c) */
};

/* The OpenCL devices into b->devices: every one, or only the one spec (--device, $DEVICE)
 * selects. Returns 0, or -1 when there is none. */
int bench_find_devices(struct bench *b, const char *spec);

/* Every row on every device at N = b->sizes[si], the devices' peaks on the first call; each
 * row a step of the progress line. */
void bench_measure_size(struct bench *b, int si);

/* The steps of every bench_measure_size call (rows on the host and on each device, each device's
 * peak), in the order they run: their count, and each one's N into step_n (when not NULL). */
int bench_steps(const struct bench *b, int *step_n);

/* The memory traffic of each kernel row, counted under oclgrind. The counts are the same on every
 * machine, so they are kept in build/bench-traffic/ and reused while the kernel source is
 * unchanged (also where oclgrind is not installed, if the folder was copied from a machine where
 * it is). */
void bench_count_traffic(struct bench *b);

/* ---------------------------------------------------------------- slow rows (scale.c) */

/* A row whose whole timing at N would take longer than the budget (a sequential loop of minutes,
 * a kernel with one work-item per row of C on a GPU at N = 4096) is timed at a smaller N that
 * fits it, and its times scaled by (N / that)^3: the GFLOP/s is the one measured at the smaller
 * N, and the table, bench.csv and the plots say so. The size comes from probe runs: one run (after
 * a warm-up) at BENCH_PROBE_N, then at twice that while a run there is predicted under
 * BENCH_PROBE_RUN seconds, each prediction from the last probe scaled by N^3. */
#define BENCH_BUDGET    20.0 /* seconds, the default of --budget */
#define BENCH_PROBE_N   256  /* the first probe's size; a row at N up to this is never probed */
#define BENCH_PROBE_RUN 1.0  /* seconds: probe at a larger size while one run there is shorter */
#define BENCH_STEP      64   /* a smaller N is a multiple of this (and of the row's own multiple) */

/* The most seconds bench_repeat can take, warm-up included, when every run lasts run_seconds
 * (the spread of the runs never settling below BENCH_SPREAD); it never falls as runs lengthen. */
double bench_repeat_cost(double run_seconds, int warmup);

/* The size to time a row at, from a probe run of probe_seconds at probe_n: n itself when
 * bench_repeat_cost of its predicted run there (probe_seconds x (n / probe_n)^3) is within
 * budget, else the largest multiple of step below n whose predicted cost is within it, no smaller
 * than `smallest`; 0 when none is (too slow to time here). A budget <= 0 sets no limit (n). */
int bench_plan_size(int n, int probe_n, double probe_seconds, int warmup, double budget, int step,
                    int smallest);

/* Times measured at timed_n made times at n: each multiplied by (n / timed_n)^3, so that
 * 2 n^3 / median is the GFLOP/s measured at timed_n. */
void bench_scale_stats(struct clu_stats *s, int n, int timed_n);

/* ---------------------------------------------------------------- progress (progress.c) */

/* The seconds the steps left will take: each step left at size left_n[i] as long as the mean of
 * the steps done at that size, or, where none was, the mean at the nearest size done scaled by
 * N^3 and at most cap seconds. Steps of size 0 (a device's peak: the same at every N) go by
 * those alone. -1 when a step left has nothing like it done yet (nothing to go by). */
double bench_eta(const int *done_n, const double *done_s, int done, const int *left_n, int left,
                 double cap);

/* A duration for people: "less than 1 s", "45 s", "3 min 05 s", "2 h 10 min". */
void bench_duration_text(char *buf, size_t size, double seconds);

/* The progress line of step `step` (1-based) of `total`, starting now, with the seconds left
 * (this step included; < 0: not known yet): "row 3 of 14, 11 after it, about 4 min 10 s left:
 * <what>" ("less than 1 s left" without the "about"). */
void bench_progress_text(char *buf, size_t size, int step, int total, double eta, const char *what);

/* The progress line on stderr: bench_progress_start before the first step with every step's N in
 * order (total of them), then bench_progress_step as each begins (what it is) and
 * bench_progress_end after the last. On a terminal the line is rewritten in place and cleared
 * before anything else is printed (bench_progress_clear); elsewhere one line per step. */
void bench_progress_start(struct bench *b, const int *step_n, int total);
void bench_progress_step(struct bench *b, const char *what);
void bench_progress_clear(struct bench *b);
void bench_progress_end(struct bench *b);

#endif
