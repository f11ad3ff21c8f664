/* measure_repeat.c - the repeat protocol of every figure `grader --bench` measures (measure.h):
 * warm-up runs outside the timed ones, then runs until enough work is timed and the spread is
 * small, or a cap is reached. */
#define _DEFAULT_SOURCE /* clock_gettime */
#include "bench/measure.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---------------------------------------------------------------- repeats */

double bench_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int bench_repeat(bench_run_fn run, void *ctx, int warmup, struct clu_stats *stats) {
    memset(stats, 0, sizeof *stats);
    for (int i = 0; i < warmup; i++) {
        double ignored;
        if (run(ctx, &ignored) != 0)
            return -1;
    }
    double *samples = malloc(sizeof(double) * BENCH_HARD_CAP);
    double *copy = malloc(sizeof(double) * BENCH_HARD_CAP);
    if (!samples || !copy) {
        free(samples);
        free(copy);
        return -1;
    }
    double total = 0.0;
    int count = 0, status = 0;
    while (count < BENCH_HARD_CAP) {
        if (run(ctx, &samples[count]) != 0) {
            status = -1;
            break;
        }
        total += samples[count++];
        if (count < BENCH_MIN_REPEATS)
            continue;
        if (total >= BENCH_MAX_TIMED)
            break;
        if (total < BENCH_MIN_TIMED)
            continue; /* short kernels: repeat until 50 ms of work are timed */
        memcpy(copy, samples, sizeof(double) * (size_t)count);
        struct clu_stats s = clu_stats_of(copy, count);
        if (count >= BENCH_MAX_REPEATS ||
            (s.median > 0 && (s.max - s.min) / s.median < BENCH_SPREAD))
            break;
    }
    *stats = clu_stats_of(samples, count);
    free(samples);
    free(copy);
    return status;
}
