/* clu_matrix.c - seeded random inputs, the double-precision reference and the comparison. */
#include "clu.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* splitmix64 (clu_random_next): tiny, fast, and identical on every platform, so the grader and a
 * student's program derive the same matrices from the same seed. */
void clu_random_start(struct clu_random *r, uint64_t seed, uint64_t stream) {
    r->state = seed ^ (stream * 0xD1B54A32D192ED03ull);
    (void)clu_random_next(r); /* (the stream's first draw is skipped, as it always was) */
}

/* A fill in parts (64 MB of A at N = 4096 took 40 ms on one core, and the timed comparison fills
 * 10 such matrices a round on a GPU). splitmix64 is a counter: element i of a stream is the state
 * at its start plus i + 1 steps, so the parts need nothing of each other and the values are the
 * same however many threads run. */
#define FILL_PART_MIN (1u << 20)

struct fill {
    float *x;                /* the array */
    struct clu_random start; /* the stream's state before x[0] */
};

static void fill_part(void *ctx, size_t lo, size_t hi, size_t part) {
    (void)part;
    struct fill *f = ctx;
    struct clu_random r = f->start;
    clu_random_skip(&r, lo);
    for (size_t i = lo; i < hi; i++)
        f->x[i] = clu_random_next(&r);
}

void clu_random_fill(float *x, size_t n, uint64_t seed, uint64_t stream) {
    struct fill f = {x, {0}};
    clu_random_start(&f.start, seed, stream);
    clu_parallel_for(n, FILL_PART_MIN, fill_part, &f);
}

static void fill_bits(float *x, size_t n, uint32_t bits) {
    for (size_t i = 0; i < n; i++)
        memcpy(&x[i], &bits, sizeof bits);
}

void clu_fill_unwritten(float *x, size_t n) {
    fill_bits(x, n, CLU_UNWRITTEN_BITS);
}

void clu_fill_past_end(float *x, size_t n) {
    fill_bits(x, n, CLU_PAST_END_BITS);
}

enum clu_nan_kind clu_nan_kind(float x) {
    uint32_t bits;
    memcpy(&bits, &x, sizeof bits);
    if ((bits & 0x7f800000u) != 0x7f800000u || (bits & 0x007fffffu) == 0)
        return CLU_NOT_NAN;
    if (bits == CLU_UNWRITTEN_BITS)
        return CLU_UNWRITTEN;
    if ((bits & 0x7fffffffu) == (CLU_UNWRITTEN_BITS | CLU_QUIET_BIT) ||
        (bits & 0x7fffffffu) == CLU_UNWRITTEN_BITS) /* (a negated fill: a sign flip) */
        return CLU_FROM_UNWRITTEN;
    if (((bits & 0x7fffffffu) | CLU_QUIET_BIT) == (CLU_PAST_END_BITS | CLU_QUIET_BIT))
        return CLU_PAST_END;
    return CLU_COMPUTED_NAN;
}

/* The reference's rows in parts: at N = 1024 a check of every element costs 2^30 multiply-adds in
 * double, a second on one core. */
#define GEMM_PART_MIN ((size_t)1 << 22) /* multiply-adds */

struct gemm {
    int n, k;              /* C's columns, the inner dimension */
    const float *a, *b;    /* the inputs */
    double *ref, *abs_ref; /* the outputs (abs_ref may be NULL) */
};

static void gemm_rows(void *ctx, size_t lo, size_t hi, size_t part) {
    (void)part;
    const struct gemm *g = ctx;
    size_t n = (size_t)g->n, k = (size_t)g->k;
    for (size_t i = lo; i < hi; i++) {
        double *crow = g->ref + i * n;
        double *arow = g->abs_ref ? g->abs_ref + i * n : NULL;
        for (size_t j = 0; j < n; j++) {
            crow[j] = 0.0;
            if (arow)
                arow[j] = 0.0;
        }
        /* i-k-j order walks B and C by rows, which keeps the reference fast enough for N = 1024 */
        for (size_t kk = 0; kk < k; kk++) {
            double aik = g->a[i * k + kk];
            const float *brow = g->b + kk * n;
            for (size_t j = 0; j < n; j++)
                crow[j] += aik * brow[j];
            if (arow) {
                double abs_aik = fabs(aik);
                for (size_t j = 0; j < n; j++)
                    arow[j] += abs_aik * fabs((double)brow[j]);
            }
        }
    }
}

void clu_ref_gemm(int m, int n, int k, const float *a, const float *b, double *ref,
                  double *abs_ref) {
    struct gemm g = {n, k, a, b, ref, abs_ref};
    size_t row_work = (size_t)(n > 0 ? n : 1) * (size_t)(k > 0 ? k : 1);
    clu_parallel_for((size_t)(m > 0 ? m : 0), GEMM_PART_MIN / row_work, gemm_rows, &g);
}

void clu_sequential_matmul(int n, const float *a, const float *b, float *c) {
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            float tmp = 0.0f;
            for (int k = 0; k < n; k++)
                tmp += a[(size_t)i * n + k] * b[(size_t)k * n + j];
            c[(size_t)i * n + j] = tmp;
        }
}

void clu_ref_matmul(int n, const float *a, const float *b, double *ref, double *abs_ref) {
    clu_ref_gemm(n, n, n, a, b, ref, abs_ref);
}

double clu_dot_tolerance(int n, double abs_scale) {
    const double u = FLT_EPSILON / 2.0; /* unit round-off of float */
    double nu = (double)n * u;
    double gamma = nu < 0.5 ? nu / (1.0 - nu) : 1.0;
    return 2.0 * gamma * abs_scale + 1e-30;
}

struct clu_mismatch clu_compare(const float *got, const double *expected, const double *tol,
                                double tol_all, size_t count) {
    struct clu_mismatch m = {0, 0, 0.0, 0.0f, 0.0};
    for (size_t i = 0; i < count; i++) {
        double err = fabs((double)got[i] - expected[i]);
        double limit = tol ? tol[i] : tol_all;
        if (isnan(err))
            err = INFINITY;
        if (err > m.max_err)
            m.max_err = err;
        if (!(err <= limit)) {
            if (m.wrong == 0) {
                m.first = i;
                m.expected = expected[i];
                m.got = got[i];
            }
            m.wrong++;
        }
    }
    return m;
}
