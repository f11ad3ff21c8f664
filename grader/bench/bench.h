/* bench.h - `grader --bench` (`make bench`): the lecture's GFLOP/s table measured on this
 * machine, for every OpenCL device: the sequential C baseline, each reference solution, the
 * blocked kernel at several block sizes, vendor SGEMMs, each device's measured peak and
 * bandwidth, and the memory traffic of each kernel counted by oclgrind. A row too slow to time at
 * N within a budget is timed at a smaller N and scaled (measure.h); a progress line on stderr
 * says which row runs and about how long the rest will take.
 *
 * Outputs (in the results folder): bench.md (the table), bench.csv (one row per case x device x N)
 * and SVG plots made with gnuplot.
 */
#ifndef BENCH_H
#define BENCH_H

#include "exercise/exercise.h"
#include "exercise/traffic.h"
#include "jail/jail.h"
#include "clu_vendor.h"

/* ---------------------------------------------------------------- repeats (bench_command.c) */

#define BENCH_MIN_REPEATS 3    /* never fewer timed runs */
#define BENCH_MAX_REPEATS 50   /* stop here once BENCH_MIN_TIMED is reached, spread or not */
#define BENCH_HARD_CAP    4000 /* never more (kernels of microseconds reaching BENCH_MIN_TIMED) */
#define BENCH_MIN_TIMED   0.05 /* seconds of timed work to reach before stopping */
#define BENCH_MAX_TIMED   10.0 /* stop once this much is timed (after BENCH_MIN_REPEATS runs) */
#define BENCH_SPREAD      0.05 /* stop when (max - min) / median of the runs is below this */

/* One timed run: 0 with its duration in *seconds, or -1 (after printing why). */
typedef int (*bench_run_fn)(void *ctx, double *seconds);

/* `warmup` untimed runs (code generation, caches), then at least BENCH_MIN_REPEATS timed runs,
 * and more until BENCH_MIN_TIMED seconds are timed and the spread is below BENCH_SPREAD, or
 * BENCH_MAX_REPEATS runs (with BENCH_MIN_TIMED reached), BENCH_MAX_TIMED seconds or
 * BENCH_HARD_CAP runs are reached. Returns 0, or -1 if a run failed. */
int bench_repeat(bench_run_fn run, void *ctx, int warmup, struct clu_stats *stats);

/* Seconds on a monotonic clock, for wall-clock timing around a finish (vendor libraries). */
double bench_now(void);

/* ---------------------------------------------------------------- vendor SGEMM (vendor.c) */

/* Check a product C = A*B (row-major N x N) at the four corners and sampled elements (every one
 * for small N) against double-precision dot products within clu_dot_tolerance. Returns 0, or -1
 * with "wrong result at C(i,j): expected x got y" in why. Used for every benchmarked product. */
int bench_check_product(int n, const float *a, const float *b, const float *c, char *why,
                        size_t why_size);

/* Times C = A*B (row-major N x N floats) with a vendor's SGEMM (common/clu_vendor.h: CLBlast on
 * env's device, OpenBLAS on the host, cuBLAS in FP32 on the first CUDA device), after one warm-up
 * call. Returns 0 when timed (stats filled, the product checked against a double-precision
 * reference at sampled elements), 1 when skipped or wrong, with a one-line reason in why (e.g.
 * "libopenblas.so.0 not found: apt-get install libopenblas0"). `library` receives what ran: the
 * library's name and version where it tells them (and the CUDA device for cuBLAS). */
int bench_vendor(enum clu_vendor_id id, const struct clu_env *env, int n, const float *a,
                 const float *b, struct clu_stats *stats, char *library, size_t library_size,
                 char *why, size_t why_size);

/* ---------------------------------------------------------------- device peaks (peak.c) */

struct bench_peak {
    double gflops; /* FP32 multiply-add throughput measured by our own kernel (2 flops each) */
    double gbytes; /* global memory bandwidth, GB/s (1e9 bytes), measured by a copy kernel */
    char why[200]; /* reason when a figure could not be measured (figure left 0) */
};

/* The peak kernels' source, under the workbook's root. */
#define BENCH_PEAK_SOURCE "grader/bench/peak.cl"

/* Measure the device's FP32 peak and memory bandwidth with the project's own small kernels, read
 * from source_path (the root's BENCH_PEAK_SOURCE); build and first launch outside the timed
 * region, bench_repeat for the rest. Returns 0 if both figures were measured, -1 otherwise (why
 * set). */
int bench_measure_peak(const struct clu_env *env, const char *source_path, struct bench_peak *peak);

/* ---------------------------------------------------------------- plots (plot.c) */

/* From results/bench.csv (its columns in csv.h) make, with gnuplot, in out_dir:
 * bench-bars.svg (GFLOP/s of each case, one bar group per device, at the largest N measured, log
 * scale, like the lecture's slide), bench-sizes.svg (GFLOP/s against N per case and device, when
 * more than one N was measured; otherwise not written), bench-steps.svg (GFLOP/s of each step of
 * the workbook, 01 on, one line per device, CLBlast and the vendor BLAS as horizontal lines; not
 * written when no step was measured), and bench-roofline-<k>.svg for each device
 * k (0, 1, ...) that has peak and bandwidth rows: the roofline min(peak, bandwidth * intensity)
 * with each kernel that has a flops_per_byte value placed at (intensity, GFLOP/s). Returns the
 * number of plots written, or -1 with a one-line reason in why (gnuplot missing, bad CSV). */
int bench_plot(const char *csv_path, const char *out_dir, char *why, size_t why_size);

/* `grader --bench [--n N] [--sweep] [--device SPEC] [--out DIR] [--root DIR] [--budget SECONDS]
 * [--no-vendor] [--no-traffic] [--no-plots] [--replot CSV]`. Returns the exit status. */
int bench_main(int argc, char **argv, const char *self);

#endif
