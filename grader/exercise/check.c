/* check.c - the grader's own verdict on an output: the double-precision reference, the guard
 * zone, Freivalds' check and the untouched inputs. What a wrong output says (the comparison and
 * the hints) is in hint.c. */
#include "exercise/exercise.h"
#include "exercise/protocol.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A vector element's tolerance: one rounding of the float sum a + b. */
static double sum_tolerance(float a, float b) {
    return FLT_EPSILON * (fabs((double)a) + fabs((double)b)) + 1e-30;
}

int grader_reference(const struct grader_exercise *ex, struct grader_size s, uint64_t seed,
                     double **expected, double **tol) {
    size_t a_count = grader_a_count(ex, s), b_count = grader_b_count(ex, s);
    size_t out_count = grader_output_count(ex, s);
    float *a = malloc(a_count * sizeof *a), *b = malloc(b_count * sizeof *b);
    *expected = malloc(out_count * sizeof **expected);
    *tol = malloc(out_count * sizeof **tol);
    if (!a || !b || !*expected || !*tol) {
        free(a);
        free(b);
        free(*expected);
        free(*tol);
        *expected = *tol = NULL;
        return -1;
    }
    clu_random_fill(a, a_count, seed, 0);
    clu_random_fill(b, b_count, seed, 1);
    if (ex->is_vector) {
        for (size_t i = 0; i < out_count; i++) {
            (*expected)[i] = (double)a[i] + (double)b[i];
            (*tol)[i] = sum_tolerance(a[i], b[i]);
        }
    } else {
        clu_ref_gemm(s.m, s.n, s.k, a, b, *expected, *tol);
        for (size_t i = 0; i < out_count; i++)
            (*tol)[i] = clu_dot_tolerance(s.k, (*tol)[i]);
    }
    free(a);
    free(b);
    return 0;
}

/* The checks below run in parts on threads (clu_parallel_for): at N = 4096 a timed round checks 5
 * outputs of 64 MB on each side, and on a GPU machine one core took 3.5 s an exercise for them. */
#define CHECK_PART_MIN ((size_t)1 << 20) /* elements or multiply-adds a part at least */

struct vector_check {
    uint64_t seed;               /* the inputs' */
    const float *c;              /* the output */
    int wrong[CLU_PARALLEL_MAX]; /* per part: an element was wrong */
};

static void vector_part(void *ctx, size_t lo, size_t hi, size_t part) {
    struct vector_check *v = ctx;
    struct clu_random a, b;
    clu_random_start(&a, v->seed, 0);
    clu_random_start(&b, v->seed, 1);
    clu_random_skip(&a, lo);
    clu_random_skip(&b, lo);
    for (size_t i = lo; i < hi; i++) {
        float x = clu_random_next(&a), y = clu_random_next(&b);
        /* (a NaN fails: the comparison is false) */
        if (!(fabs((double)v->c[i] - ((double)x + (double)y)) <= sum_tolerance(x, y))) {
            v->wrong[part] = 1;
            return;
        }
    }
}

int grader_vector_right(const struct grader_exercise *ex, struct grader_size s, uint64_t seed,
                        const float *c) {
    struct vector_check v = {seed, c, {0}};
    size_t parts = clu_parallel_for(grader_output_count(ex, s), CHECK_PART_MIN, vector_part, &v);
    for (size_t t = 0; t < parts; t++)
        if (v.wrong[t])
            return 0;
    return 1;
}

size_t grader_guard_damage(const float *guard, size_t count) {
    size_t damaged = 0;
    for (size_t i = 0; i < count; i++)
        damaged += memcmp(&guard[i], &(float){HARNESS_GUARD_VALUE}, sizeof(float)) != 0;
    return damaged;
}

size_t grader_input_guard_damage(const float *guard, size_t count) {
    size_t damaged = 0;
    for (size_t i = 0; i < count; i++)
        damaged += memcmp(&guard[i], &(uint32_t){CLU_PAST_END_BITS}, sizeof(float)) != 0;
    return damaged;
}

/* An input's element x[at]: from the array, or, without one, drawn from (seed, stream) as
 * clu_random_fill would have (a check then needs no 64 MB copy of A and B at N = 4096, with its
 * page faults, at every timed launch it checks). */
struct input_row {
    const float *x;      /* the array, or NULL */
    struct clu_random r; /* without it: the stream, moved to the row's start */
};

static void input_row_at(struct input_row *row, const float *x, uint64_t seed, uint64_t stream,
                         size_t at) {
    row->x = x ? x + at : NULL;
    if (!x) {
        clu_random_start(&row->r, seed, stream);
        clu_random_skip(&row->r, at);
    }
}

/* The row's next element (a column's: stride apart, stride - 1 of them skipped) */
static inline float input_next(struct input_row *row, size_t stride) {
    if (row->x) {
        float v = *row->x;
        row->x += stride;
        return v;
    }
    float v = clu_random_next(&row->r);
    clu_random_skip(&row->r, stride - 1);
    return v;
}

static int element_right(int n, const float *a, const float *b, uint64_t inputs, const float *c,
                         size_t i, size_t j, double *want) {
    size_t un = (size_t)n;
    struct input_row row, col;
    input_row_at(&row, a, inputs, 0, i * un);
    input_row_at(&col, b, inputs, 1, j);
    double sum = 0.0, scale = 0.0;
    for (size_t k = 0; k < un; k++) {
        double term = (double)input_next(&row, 1) * (double)input_next(&col, un);
        sum += term;
        scale += fabs(term);
    }
    if (want)
        *want = sum;
    return fabs((double)c[i * un + j] - sum) <= clu_dot_tolerance(n, scale);
}

int grader_element_right(int n, const float *a, const float *b, const float *c, size_t i, size_t j,
                         double *want) {
    return element_right(n, a, b, 0, c, i, j, want);
}

int grader_element_right_drawn(int n, uint64_t inputs, const float *c, size_t i, size_t j) {
    return element_right(n, NULL, NULL, inputs, c, i, j, NULL);
}

/* Freivalds' check in two passes over rows: Bx and the rows' scales of B, then each row of C
 * against A(Bx). */
struct freivalds {
    size_t m, n, k;               /* C is m x n, the inner dimension k */
    const float *a, *b, *c;       /* the inputs (NULL: drawn from inputs) and the output */
    uint64_t inputs;              /* A's and B's seed, where they are drawn */
    const double *x;              /* the random vector of +-1 */
    double *bx, *row_abs_b;       /* B x and each row of B's sum of magnitudes */
    size_t bad[CLU_PARALLEL_MAX]; /* per part: the rows that failed */
};

static void freivalds_bx(void *ctx, size_t lo, size_t hi, size_t part) {
    (void)part;
    struct freivalds *f = ctx;
    for (size_t k = lo; k < hi; k++) {
        struct input_row row;
        input_row_at(&row, f->b, f->inputs, 1, k * f->n);
        double sum = 0.0, abs_sum = 0.0;
        for (size_t j = 0; j < f->n; j++) {
            double v = (double)input_next(&row, 1);
            sum += v * f->x[j];
            abs_sum += fabs(v);
        }
        f->bx[k] = sum;
        f->row_abs_b[k] = abs_sum;
    }
}

static void freivalds_rows(void *ctx, size_t lo, size_t hi, size_t part) {
    struct freivalds *f = ctx;
    for (size_t i = lo; i < hi; i++) {
        struct input_row row;
        input_row_at(&row, f->a, f->inputs, 0, i * f->k);
        double want = 0.0, scale = 0.0, got = 0.0;
        for (size_t k = 0; k < f->k; k++) {
            double v = (double)input_next(&row, 1);
            want += v * f->bx[k];
            scale += fabs(v) * f->row_abs_b[k];
        }
        for (size_t j = 0; j < f->n; j++)
            got += (double)f->c[i * f->n + j] * f->x[j];
        /* the row's error is at most the sum of its elements' tolerances */
        double bound = 2.0 * (clu_dot_tolerance((int)f->k, scale) +
                              (double)f->n * clu_dot_tolerance((int)f->k, 0.0));
        if (!(fabs(got - want) <= bound)) /* NaN fails too */
            f->bad[part]++;
    }
}

static size_t freivalds(struct grader_size s, const float *a, const float *b, uint64_t inputs,
                        const float *c, uint64_t seed) {
    size_t m = (size_t)s.m, n = (size_t)s.n, kk = (size_t)s.k, bad = 0;
    double *x = malloc(n * sizeof *x), *bx = malloc(kk * sizeof *bx),
           *row_abs_b = malloc(kk * sizeof *row_abs_b);
    if (!x || !bx || !row_abs_b) {
        free(x), free(bx), free(row_abs_b);
        return m; /* no memory: counted as unchecked, so wrong */
    }
    uint64_t state = seed ^ 0xf2e1d0c3b4a59687ull;
    for (size_t j = 0; j < n; j++) { /* x of +-1 from a splitmix64 stream */
        state += 0x9e3779b97f4a7c15ull;
        uint64_t z = state;
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        x[j] = ((z ^ (z >> 31)) & 1) ? 1.0 : -1.0;
    }
    struct freivalds f = {m, n, kk, a, b, c, inputs, x, bx, row_abs_b, {0}};
    clu_parallel_for(kk, CHECK_PART_MIN / (n ? n : 1), freivalds_bx, &f);
    size_t parts = clu_parallel_for(m, CHECK_PART_MIN / (n + kk ? n + kk : 1), freivalds_rows, &f);
    for (size_t t = 0; t < parts; t++)
        bad += f.bad[t];
    free(x), free(bx), free(row_abs_b);
    return bad;
}

size_t grader_freivalds(struct grader_size s, const float *a, const float *b, const float *c,
                        uint64_t seed) {
    return freivalds(s, a, b, 0, c, seed);
}

size_t grader_freivalds_drawn(struct grader_size s, uint64_t inputs, const float *c,
                              uint64_t seed) {
    return freivalds(s, NULL, NULL, inputs, c, seed);
}

int grader_input_changed(const float *x, size_t count, uint64_t seed, uint64_t stream) {
    struct clu_random r;
    clu_random_start(&r, seed, stream);
    for (size_t i = 0; i < count; i++) {
        float want = clu_random_next(&r);
        if (memcmp(&x[i], &want, sizeof want) != 0)
            return 1;
    }
    return 0;
}
