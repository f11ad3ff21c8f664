/* baselines.c - what a handout's grading times beside a student's kernel where it has no
 * reference solution to time it against: the lecture's sequential loop and OpenBLAS at the same N,
 * both in the grader's own process (trusted code: the student's kernel runs only in its jailed
 * harness). Their figures score nothing; they tell a student where the kernel stands with what a
 * student has. CLBlast and cuBLAS would need the device in this process: `make bench` has them.
 */
#include "grade/internal.h"
#include "grade/timing_protocol.h"
#include "clu_vendor.h"

#include <math.h>
#include <stdlib.h>

/* Above SEQUENTIAL_MAX_N the loop is timed there and scaled by N^3 (seconds each). */
#define SEQUENTIAL_MAX_N 512
#define OPENBLAS_RUNS    5     /* timed runs of OpenBLAS */
#define RUN_SECONDS      0.020 /* each at least this long */

/* Whether 16 elements of C drawn from seed are A*B's (grader_element_right's tolerance). */
static int product_right(int n, const float *a, const float *b, const float *c, uint64_t seed) {
    for (int s = 0; s < 16; s++) {
        uint64_t pick = grader_derive_seed(seed, "baseline check", s) % ((uint64_t)n * n);
        if (!grader_element_right(n, a, b, c, pick / (size_t)n, pick % (size_t)n, NULL))
            return 0;
    }
    return 1;
}

/* The fastest of three runs of the loop at n (one where a run takes a quarter second). */
static double sequential_seconds(int n, const float *a, const float *b, float *c) {
    double best = 0.0;
    for (int run = 0; run < 3 && best < 0.25; run++) {
        double start = grade_timing_now();
        clu_sequential_matmul(n, a, b, c);
        double took = grade_timing_now() - start;
        best = run == 0 || took < best ? took : best;
    }
    return best;
}

/* OpenBLAS's median launch at n, or 0 with why: OPENBLAS_RUNS runs of 20 ms or more each (as
 * many launches as fill one), after one untimed launch. */
static double openblas_seconds(int n, const float *a, const float *b, float *c, uint64_t seed,
                               char *library, size_t library_size, char *why, size_t why_size) {
    struct clu_vendor_gemm *g = NULL;
    if (clu_vendor_prepare(CLU_OPENBLAS, NULL, n, n, n, a, b, &g, library, library_size, why,
                           why_size) != 0)
        return 0.0;
    double seconds[OPENBLAS_RUNS], one = 0.0;
    int failed = clu_vendor_launch(g, &one, why, why_size) != 0; /* (untimed: its warm-up) */
    int launches = one > 0 && one < RUN_SECONDS ? (int)(RUN_SECONDS / one) + 1 : 1;
    for (int i = 0; i < OPENBLAS_RUNS && !failed; i++) {
        double start = grade_timing_now();
        for (int l = 0; l < launches && !failed; l++)
            failed = clu_vendor_launch(g, &one, why, why_size) != 0;
        seconds[i] = (grade_timing_now() - start) / launches;
    }
    if (!failed && clu_vendor_read(g, c, why, why_size) == 0 && !product_right(n, a, b, c, seed))
        snprintf(why, why_size, "its product was wrong");
    clu_vendor_release(g);
    return failed || why[0] ? 0.0 : clu_stats_of(seconds, OPENBLAS_RUNS).median;
}

void grade_baselines_text(const struct grader_config *cfg, int n, double mine_seconds, char *out,
                          size_t size) {
    size_t count = (size_t)n * (size_t)n;
    float *a = malloc(count * sizeof *a), *b = malloc(count * sizeof *b),
          *c = malloc(count * sizeof *c);
    if (!a || !b || !c) {
        grade_appendf(out, size, "\n(no baselines: out of memory at N = %d)", n);
        free(a), free(b), free(c);
        return;
    }
    uint64_t seed = grader_derive_seed(cfg->seed, "baselines", n);
    clu_random_fill(a, count, seed, 1);
    clu_random_fill(b, count, seed, 2);
    double flops = 2.0 * (double)n * n * n;
    /* the loop at most at SEQUENTIAL_MAX_N: its time grows as N^3 */
    int at = n < SEQUENTIAL_MAX_N ? n : SEQUENTIAL_MAX_N;
    double seq = sequential_seconds(at, a, b, c) * pow((double)n / at, 3.0);
    grade_appendf(out, size,
                  "\nthe lecture's sequential loop (one thread, in the grader's own process%s): "
                  "%.3f ms  %.2f GFLOP/s: yours at %.1fx its speed",
                  at < n ? "; timed at N = 512, scaled by N^3" : "", seq * 1e3, flops / seq * 1e-9,
                  seq / mine_seconds);
    char library[200] = "", why[200] = "";
    double blas = openblas_seconds(n, a, b, c, seed, library, sizeof library, why, sizeof why);
    if (blas > 0)
        grade_appendf(out, size,
                      "\n%s, in the grader's own process: %.3f ms  %.2f GFLOP/s: yours at %.2fx "
                      "its speed",
                      library, blas * 1e3, flops / blas * 1e-9, blas / mine_seconds);
    else
        grade_appendf(out, size, "\nOpenBLAS not timed: %s", why);
    free(a), free(b), free(c);
}
