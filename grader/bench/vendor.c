/* vendor.c - the vendor rows of the benchmark: each vendor's SGEMM (common/clu_vendor.h) timed on
 * the same A and B as the workbook's kernels, after one warm-up call (CLBlast tunes and compiles
 * on its first), and its product checked like every other one.
 */
#include "bench/bench.h"
#include "clu_vendor.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define VENDOR_SAMPLES 256 /* random elements checked, besides the four corners */

/* splitmix64: the sample positions, the same on every run of a given N. */
static uint64_t vendor_random(uint64_t *state) {
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

int bench_check_product(int n, const float *a, const float *b, const float *c, char *why,
                        size_t why_size) {
    size_t un = (size_t)n;
    int every = un * un <= VENDOR_SAMPLES + 4;
    size_t count = every ? un * un : VENDOR_SAMPLES + 4;
    uint64_t state = 0x76656E646F72ull ^ (uint64_t)un; /* "vendor" */
    for (size_t s = 0; s < count; s++) {
        size_t i, j;
        if (every) {
            i = s / un;
            j = s % un;
        } else if (s < 4) {
            i = (s & 1) ? un - 1 : 0;
            j = (s & 2) ? un - 1 : 0;
        } else {
            i = (size_t)(vendor_random(&state) % un);
            j = (size_t)(vendor_random(&state) % un);
        }
        double want = 0.0;
        if (!grader_element_right(n, a, b, c, i, j, &want)) {
            snprintf(why, why_size, "wrong result at C(%zu,%zu): expected %.9g got %.9g", i, j,
                     want, (double)c[i * un + j]);
            return -1;
        }
    }
    return 0;
}

struct vendor_run {
    struct clu_vendor_gemm *gemm;
    char *why;
    size_t why_size;
};

static int vendor_run(void *ctx, double *seconds) {
    struct vendor_run *r = ctx;
    return clu_vendor_launch(r->gemm, seconds, r->why, r->why_size);
}

int bench_vendor(enum clu_vendor_id id, const struct clu_env *env, int n, const float *a,
                 const float *b, struct clu_stats *stats, char *library, size_t library_size,
                 char *why, size_t why_size) {
    memset(stats, 0, sizeof *stats);
    struct vendor_run r = {NULL, why, why_size};
    if (clu_vendor_prepare(id, env, n, n, n, a, b, &r.gemm, library, library_size, why, why_size) !=
        0)
        return 1;
    int result = 1;
    float *c = malloc((size_t)n * (size_t)n * sizeof *c);
    if (!c)
        snprintf(why, why_size, "out of memory for C (N = %d)", n);
    else if (bench_repeat(vendor_run, &r, 1, stats) == 0 &&
             clu_vendor_read(r.gemm, c, why, why_size) == 0 &&
             bench_check_product(n, a, b, c, why, why_size) == 0)
        result = 0;
    free(c);
    clu_vendor_release(r.gemm);
    if (result != 0)
        memset(stats, 0, sizeof *stats);
    return result;
}
