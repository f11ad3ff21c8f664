/* hint.c - what a wrong output says: the comparison with the reference, and hints that name the
 * bug when the wrong elements form a pattern students make. */
#include "exercise/exercise.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
