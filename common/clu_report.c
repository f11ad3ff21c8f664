/* clu_report.c - the result lines every host program prints, worded the same everywhere. */
#include "clu.h"

#include <stdio.h>

static void print_kernel_line(const struct clu_stats *stats, double flops) {
    double gflops = stats->median > 0 ? flops / stats->median * 1e-9 : 0.0;
    printf("kernel: median %.3f ms (min %.3f, max %.3f over %d runs)  %.2f GFLOP/s\n",
           stats->median * 1e3, stats->min * 1e3, stats->max * 1e3, stats->count, gflops);
}

void clu_print_timing(const struct clu_env *env, int n, const struct clu_stats *stats,
                      double flops) {
    printf("device: %s (%s)  N: %d\n", env->device_name, env->platform_name, n);
    print_kernel_line(stats, flops);
}

void clu_print_timing_gemm(const struct clu_env *env, int m, int n, int k,
                           const struct clu_stats *stats, double flops) {
    printf("device: %s (%s)  M x N x K: %d x %d x %d\n", env->device_name, env->platform_name, m, n,
           k);
    print_kernel_line(stats, flops);
}

int clu_print_verification(const struct clu_mismatch *m, size_t count, int width) {
    if (m->wrong == 0) {
        printf("verification: PASS (max error %.2g, all %zu elements within tolerance)\n",
               m->max_err, count);
        return 0;
    }
    if (width > 0)
        printf("verification: FAIL (%zu of %zu wrong; first C(%zu,%zu): expected %.6g, got %.6g)\n",
               m->wrong, count, m->first / (size_t)width, m->first % (size_t)width, m->expected,
               (double)m->got);
    else
        printf("verification: FAIL (%zu of %zu wrong; first [%zu]: expected %.6g, got %.6g)\n",
               m->wrong, count, m->first, m->expected, (double)m->got);
    return 1;
}
