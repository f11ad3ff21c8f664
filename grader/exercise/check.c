/* check.c - the grader's own verdict on an output: the double-precision reference, the
 * comparison, and hints that name the bug when the wrong elements form a pattern students make. */
#include "exercise/exercise.h"
#include "exercise/protocol.h"

#include <float.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int grader_reference(const struct grader_exercise *ex, int n, uint64_t seed, double **expected,
                     double **tol) {
    size_t in_count = ex->is_vector ? (size_t)n : (size_t)n * (size_t)n;
    size_t out_count = grader_output_count(ex, n);
    float *a = malloc(in_count * sizeof *a), *b = malloc(in_count * sizeof *b);
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
    clu_random_fill(a, in_count, seed, 0);
    clu_random_fill(b, in_count, seed, 1);
    if (ex->is_vector) {
        for (size_t i = 0; i < out_count; i++) {
            (*expected)[i] = (double)a[i] + (double)b[i];
            /* one rounding of the float sum */
            (*tol)[i] = FLT_EPSILON * (fabs((double)a[i]) + fabs((double)b[i])) + 1e-30;
        }
    } else {
        clu_ref_matmul(n, a, b, *expected, *tol);
        for (size_t i = 0; i < out_count; i++)
            (*tol)[i] = clu_dot_tolerance(n, (*tol)[i]);
    }
    free(a);
    free(b);
    return 0;
}

static int close_to(float got, double want, double tol) {
    return fabs((double)got - want) <= tol;
}

/* Fraction of elements where got(i,j) matches the reference at (j,i). */
static double transposed_share(int n, const float *got, const double *expected, const double *tol) {
    size_t hits = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            hits += close_to(got[(size_t)i * n + j], expected[(size_t)j * n + i],
                             tol[(size_t)j * n + i]);
    return (double)hits / ((double)n * n);
}

/* Fraction of elements where got matches B*A (the operands swapped). */
static double swapped_share(int n, uint64_t seed, const float *got) {
    size_t nn = (size_t)n * n;
    float *a = malloc(nn * sizeof *a), *b = malloc(nn * sizeof *b);
    double *ba = malloc(nn * sizeof *ba), *abs_ba = malloc(nn * sizeof *abs_ba);
    double share = 0.0;
    if (a && b && ba && abs_ba) {
        clu_random_fill(a, nn, seed, 0);
        clu_random_fill(b, nn, seed, 1);
        clu_ref_matmul(n, b, a, ba, abs_ba);
        size_t hits = 0;
        for (size_t i = 0; i < nn; i++)
            hits += close_to(got[i], ba[i], clu_dot_tolerance(n, abs_ba[i]));
        share = (double)hits / (double)nn;
    }
    free(a);
    free(b);
    free(ba);
    free(abs_ba);
    return share;
}

/* Matrix hints, from the positions of the wrong elements. */
static void matrix_hint(const struct grader_exercise *ex, int n, uint64_t seed, const float *got,
                        const double *expected, const double *tol, struct grader_diagnosis *d) {
    size_t nn = (size_t)n * n;
    int block = ex->block > 0 ? ex->block : 16;
    size_t zero = 0, wrong_in_first_block = 0, wrong_outside_first_block = 0;
    size_t wrong_on_diagonal = 0, wrong_off_diagonal = 0, off_diagonal = 0;
    int lowest_wrong_row = n, lowest_wrong_col = n;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            size_t k = (size_t)i * n + j;
            float g = got[k];
            zero += g == 0.0f;
            int diagonal = i / block == j / block;
            off_diagonal += !diagonal;
            if (close_to(g, expected[k], tol[k]))
                continue;
            wrong_on_diagonal += diagonal;
            wrong_off_diagonal += !diagonal;
            if (i < block && j < block)
                wrong_in_first_block++;
            else
                wrong_outside_first_block++;
            if (i < lowest_wrong_row)
                lowest_wrong_row = i;
            if (j < lowest_wrong_col)
                lowest_wrong_col = j;
        }
    /* the wrong elements lie in the last rows or the last columns only: a bound problem */
    int wrong_rows_tail = n - lowest_wrong_row, wrong_cols_tail = n - lowest_wrong_col;
    int tail = n % 16;
    if (zero == nn) {
        snprintf(d->hint, sizeof d->hint, "C is all zero: is the sum ever stored in C?");
    } else if (n > 1 && transposed_share(n, got, expected, tol) > 0.9) {
        snprintf(d->hint, sizeof d->hint,
                 "C is transposed: C(i,j) holds the value of C(j,i). Row i is get_global_id(0) "
                 "and C(i,j) is C[i*N + j]");
    } else if (n > 1 && swapped_share(n, seed, got) > 0.9) {
        snprintf(d->hint, sizeof d->hint,
                 "C holds B*A, not A*B: A's index walks a row (A[i*N + k]), B's a column "
                 "(B[k*N + j])");
    } else if (n > block && wrong_on_diagonal == 0 && wrong_off_diagonal > off_diagonal / 2) {
        snprintf(d->hint, sizeof d->hint,
                 "only the diagonal %dx%d blocks are right: A's block row and C's row come from "
                 "different group ids (the lecture's printed kernel has this bug: C's row is "
                 "dimension 0, so A's block must be too)",
                 block, block);
    } else if (n > block && wrong_in_first_block == 0 && wrong_outside_first_block > nn / 2) {
        snprintf(d->hint, sizeof d->hint,
                 "only the first %dx%d block is right: the tiles of A or B are taken from the "
                 "wrong block (which group id picks A's block row, which B's block column?)",
                 block, block);
    } else if (wrong_cols_tail == 1 || wrong_rows_tail == 1) {
        snprintf(d->hint, sizeof d->hint,
                 "only the last %s is wrong: look at a loop bound or an index off by one",
                 wrong_rows_tail == 1 && wrong_cols_tail == 1 ? "element"
                 : wrong_rows_tail == 1                       ? "row"
                                                              : "column");
    } else if (tail != 0 && (wrong_rows_tail <= tail || wrong_cols_tail <= tail)) {
        snprintf(d->hint, sizeof d->hint,
                 "only the last %d rows or columns are wrong, and N = %d is not a multiple of 16: "
                 "does the kernel assume it is?",
                 tail, n);
    }
}

void grader_diagnose(const struct grader_exercise *ex, int n, uint64_t seed, const float *got,
                     const double *expected, const double *tol, struct grader_diagnosis *d) {
    size_t count = grader_output_count(ex, n);
    memset(d, 0, sizeof *d);
    d->m = clu_compare(got, expected, tol, 0.0, count);
    for (size_t i = 0; i < count; i++)
        d->unwritten += isnan(got[i]) != 0;
    if (d->m.wrong == 0)
        return;
    if (d->unwritten == count) {
        snprintf(d->hint, sizeof d->hint,
                 "nothing was written: every element is still the NaN the grader put there "
                 "(not implemented yet?)");
    } else if (d->unwritten > 0) {
        snprintf(d->hint, sizeof d->hint,
                 "%zu elements were never written (still NaN): some work-items do not store "
                 "their result, or store it at the wrong index",
                 d->unwritten);
    } else if (!ex->is_vector) {
        matrix_hint(ex, n, seed, got, expected, tol, d);
    }
}

size_t grader_guard_damage(const float *guard, size_t count) {
    size_t damaged = 0;
    for (size_t i = 0; i < count; i++)
        damaged += memcmp(&guard[i], &(float){HARNESS_GUARD_VALUE}, sizeof(float)) != 0;
    return damaged;
}

size_t grader_freivalds(int n, const float *a, const float *b, const float *c, uint64_t seed) {
    size_t un = (size_t)n, bad = 0;
    double *x = malloc(un * sizeof *x), *bx = malloc(un * sizeof *bx),
           *row_abs_b = malloc(un * sizeof *row_abs_b);
    if (!x || !bx || !row_abs_b) {
        free(x), free(bx), free(row_abs_b);
        return un; /* no memory: counted as unchecked, so wrong */
    }
    uint64_t state = seed ^ 0xf2e1d0c3b4a59687ull;
    for (size_t j = 0; j < un; j++) { /* x of +-1 from a splitmix64 stream */
        state += 0x9e3779b97f4a7c15ull;
        uint64_t z = state;
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        x[j] = ((z ^ (z >> 31)) & 1) ? 1.0 : -1.0;
    }
    for (size_t k = 0; k < un; k++) {
        double sum = 0.0, abs_sum = 0.0;
        for (size_t j = 0; j < un; j++) {
            sum += (double)b[k * un + j] * x[j];
            abs_sum += fabs((double)b[k * un + j]);
        }
        bx[k] = sum;
        row_abs_b[k] = abs_sum;
    }
    for (size_t i = 0; i < un; i++) {
        double want = 0.0, scale = 0.0, got = 0.0;
        for (size_t k = 0; k < un; k++) {
            want += (double)a[i * un + k] * bx[k];
            scale += fabs((double)a[i * un + k]) * row_abs_b[k];
        }
        for (size_t j = 0; j < un; j++)
            got += (double)c[i * un + j] * x[j];
        /* the row's error is at most the sum of its elements' tolerances */
        double bound = 2.0 * (clu_dot_tolerance(n, scale) + un * clu_dot_tolerance(n, 0.0));
        if (!(fabs(got - want) <= bound)) /* NaN fails too */
            bad++;
    }
    free(x), free(bx), free(row_abs_b);
    return bad;
}

int grader_input_changed(const float *x, size_t count, uint64_t seed, uint64_t stream) {
    float *want = malloc(count * sizeof *want);
    if (!want)
        return 0;
    clu_random_fill(want, count, seed, stream);
    int changed = memcmp(x, want, count * sizeof *want) != 0;
    free(want);
    return changed;
}

/* Describe a wrong output: first wrong element, how many, the hint. */
void grader_describe_wrong(const struct grader_exercise *ex, int n,
                           const struct grader_diagnosis *d, char *buf, size_t size) {
    size_t count = grader_output_count(ex, n);
    int used;
    if (ex->is_vector)
        used = snprintf(buf, size,
                        "%zu of %zu elements wrong; first c[%zu]: expected %.7g, got "
                        "%.7g",
                        d->m.wrong, count, d->m.first, d->m.expected, (double)d->m.got);
    else
        used = snprintf(buf, size,
                        "%zu of %zu elements wrong; first C(%zu,%zu): expected %.7g, got %.7g",
                        d->m.wrong, count, d->m.first / (size_t)n, d->m.first % (size_t)n,
                        d->m.expected, (double)d->m.got);
    if (d->hint[0] && used > 0 && (size_t)used < size)
        snprintf(buf + used, size - (size_t)used, "\nhint: %s", d->hint);
}
