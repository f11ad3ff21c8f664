/* scale.c - the rule for slow rows of `grader --bench` (measure.h): how long bench_repeat takes
 * for runs of a given length, and the size a row is timed at so that its timing stays within the
 * budget. Pure arithmetic, so that the unit tests can hold it to random sizes and times.
 */
#include "bench/measure.h"

#include <math.h>

double bench_repeat_cost(double run_seconds, int warmup) {
    double t = run_seconds;
    if (!(t > 0))
        return 0;
    /* bench_repeat with runs that never agree within BENCH_SPREAD stops at the first of:
     * BENCH_MAX_TIMED seconds timed (less than one run past it), BENCH_MAX_REPEATS runs once
     * BENCH_MIN_TIMED is timed (less than one run past that), BENCH_HARD_CAP runs; and never
     * before BENCH_MIN_REPEATS runs. Each bound grows with t, so the cost does too: a row whose
     * runs turn out shorter than predicted never takes longer (the exact count would not do:
     * 3 runs of 3.4 s stop at 10.2 s, 4 runs of 3.3 s go on to 13.2 s). */
    double timed = fmin(fmin(BENCH_MAX_TIMED + t, fmax(BENCH_MAX_REPEATS * t, BENCH_MIN_TIMED + t)),
                        BENCH_HARD_CAP * t);
    return warmup * t + fmax(BENCH_MIN_REPEATS * t, timed);
}

/* The cost of the whole timing at size m, predicted from the probe by m^3. */
static double cost_at(int m, int probe_n, double probe_seconds, int warmup) {
    double ratio = (double)m / probe_n;
    return bench_repeat_cost(probe_seconds * ratio * ratio * ratio, warmup);
}

int bench_plan_size(int n, int probe_n, double probe_seconds, int warmup, double budget, int step,
                    int smallest) {
    if (budget <= 0 || probe_n <= 0 || cost_at(n, probe_n, probe_seconds, warmup) <= budget)
        return n;
    if (step < 1)
        step = 1;
    /* the cost grows with m, but not smoothly (bench_repeat's caps): try each candidate, the
     * largest first; there are at most n / step of them */
    for (int m = (n - 1) / step * step; m >= smallest && m >= step; m -= step)
        if (cost_at(m, probe_n, probe_seconds, warmup) <= budget)
            return m;
    return 0;
}

void bench_scale_stats(struct clu_stats *s, int n, int timed_n) {
    if (timed_n <= 0 || timed_n == n)
        return;
    /* the time the same GFLOP/s takes at n: the work grows as n^3 */
    double ratio = (double)n / timed_n, scale = ratio * ratio * ratio;
    s->min *= scale;
    s->median *= scale;
    s->max *= scale;
}
