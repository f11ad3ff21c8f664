/* clu_matrix.c - seeded random inputs, the double-precision reference and the comparison. */
#include "clu.h"

#include <float.h>
#include <pthread.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* splitmix64 (clu_random_next): tiny, fast, and identical on every platform, so the grader and a
 * student's program derive the same matrices from the same seed. */
void clu_random_start(struct clu_random *r, uint64_t seed, uint64_t stream) {
    r->state = seed ^ (stream * 0xD1B54A32D192ED03ull);
    (void)clu_random_next(r); /* (the stream's first draw is skipped, as it always was) */
}

/* One part of a fill: n values from a generator's state (splitmix64 is a counter: element i of a
 * stream is the state at its start plus i + 1 steps, so the parts need nothing of each other). */
struct fill_part {
    float *x;
    size_t n;
    struct clu_random r;
};

static void *fill_part(void *arg) {
    struct fill_part *p = arg;
    for (size_t i = 0; i < p->n; i++)
        p->x[i] = clu_random_next(&p->r);
    return NULL;
}

/* Large fills in parts on threads of their own (64 MB of A at N = 4096 took 40 ms on one core,
 * and the timed comparison fills 10 such matrices a round on a GPU); the same values either way.
 * A thread that cannot start (a jail's limit on processes) leaves its part to this one. */
#define FILL_PARTS    8
#define FILL_PART_MIN (1u << 20)

void clu_random_fill(float *x, size_t n, uint64_t seed, uint64_t stream) {
    struct clu_random r;
    clu_random_start(&r, seed, stream);
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    size_t parts = n / FILL_PART_MIN;
    if (parts > FILL_PARTS)
        parts = FILL_PARTS;
    if (cpus > 0 && parts > (size_t)cpus)
        parts = (size_t)cpus;
    if (parts < 2) {
        struct fill_part whole = {x, n, r};
        fill_part(&whole);
        return;
    }
    struct fill_part part[FILL_PARTS];
    pthread_t thread[FILL_PARTS];
    int started[FILL_PARTS] = {0};
    for (size_t t = 0; t < parts; t++) {
        size_t lo = n * t / parts, hi = n * (t + 1) / parts;
        part[t] = (struct fill_part){x + lo, hi - lo, {r.state + 0x9E3779B97F4A7C15ull * lo}};
        if (t > 0)
            started[t] = pthread_create(&thread[t], NULL, fill_part, &part[t]) == 0;
    }
    fill_part(&part[0]);
    for (size_t t = 1; t < parts; t++) {
        if (started[t])
            pthread_join(thread[t], NULL);
        else
            fill_part(&part[t]);
    }
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

void clu_ref_gemm(int m, int n, int k, const float *a, const float *b, double *ref,
                  double *abs_ref) {
    size_t mn = (size_t)m * (size_t)n;
    for (size_t i = 0; i < mn; i++) {
        ref[i] = 0.0;
        if (abs_ref)
            abs_ref[i] = 0.0;
    }
    /* i-k-j order walks B and C by rows, which keeps the reference fast enough for N = 1024 */
    for (int i = 0; i < m; i++) {
        double *crow = ref + (size_t)i * n;
        double *arow = abs_ref ? abs_ref + (size_t)i * n : NULL;
        for (int kk = 0; kk < k; kk++) {
            double aik = a[(size_t)i * k + kk];
            const float *brow = b + (size_t)kk * n;
            for (int j = 0; j < n; j++)
                crow[j] += aik * brow[j];
            if (arow) {
                double abs_aik = fabs(aik);
                for (int j = 0; j < n; j++)
                    arow[j] += abs_aik * fabs((double)brow[j]);
            }
        }
    }
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
