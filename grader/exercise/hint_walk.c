/* hint_walk.c - hints of how a kernel walks A and B, for a C of any shape (hint_walk.h): models
 * of the sum tried on a sample of the wrong elements, each with loops of its own over the inputs
 * drawn again from the seed. hint.c calls it where its square patterns say nothing. */
#include "exercise/hint_walk.h"
#include "exercise/exercise.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int grader_close_to(float got, double want, double tol) {
    return fabs((double)got - want) <= tol;
}

#define MODEL_SAMPLES 64 /* wrong elements (numbers, not NaN) each model is tried on */

/* The wrong elements that are numbers, up to MODEL_SAMPLES spread over C: their indices into
 * picked; how many. */
static int sample_wrong(size_t count, const float *got, const double *expected, const double *tol,
                        size_t *picked) {
    size_t wrong = 0;
    for (size_t e = 0; e < count; e++)
        wrong += !grader_close_to(got[e], expected[e], tol[e]) && isfinite(got[e]);
    size_t step = wrong > MODEL_SAMPLES ? wrong / MODEL_SAMPLES : 1, seen = 0;
    int taken = 0;
    for (size_t e = 0; e < count && taken < MODEL_SAMPLES; e++)
        if (!grader_close_to(got[e], expected[e], tol[e]) && isfinite(got[e]) && seen++ % step == 0)
            picked[taken++] = e;
    return taken;
}

/* How A or B is read in a model: element (row r, k) of A at r*row + k*col; B's (k, column c) at
 * k*row + c*col. */
struct walk {
    long row, col;
};

/* The share of the samples a model explains: got(i,j) = the sum over k < terms of
 * A[i*a.row + k*a.col] * B[k*b.row + j*b.col], a sample whose reads leave A or B not counted
 * (its C is a NaN or the guard's, mostly); -1 where fewer than half can be evaluated. */
static double model_share(struct grader_size s, const float *a, const float *b, struct walk wa,
                          struct walk wb, int terms, const float *got, const double *tol,
                          const size_t *picked, int samples) {
    long a_count = (long)s.m * s.k, b_count = (long)s.k * s.n;
    int evaluated = 0, matched = 0;
    for (int p = 0; p < samples; p++) {
        long i = (long)(picked[p] / (size_t)s.n), j = (long)(picked[p] % (size_t)s.n);
        long last_a = i * wa.row + (long)(terms - 1) * wa.col,
             last_b = (terms - 1) * wb.row + j * wb.col;
        long first_a = i * wa.row, first_b = j * wb.col;
        if (terms > 0 &&
            (last_a >= a_count || last_b >= b_count || first_a >= a_count || first_b >= b_count))
            continue;
        double sum = 0.0;
        for (long k = 0; k < terms; k++)
            sum += (double)a[i * wa.row + k * wa.col] * b[k * wb.row + j * wb.col];
        evaluated++;
        matched += grader_close_to(got[picked[p]], sum, tol[picked[p]]);
    }
    return 2 * evaluated < samples ? -1.0 : (double)matched / evaluated;
}

/* C(i,j) the running total of row i's (or column j's) right values up to it: a work-item that
 * walks a row (or a column) of C and never resets its sum. 1 with the hint when over 90% of the
 * wrong elements are that total (within the summed tolerances). */
static int accumulated_hint(struct grader_size s, const float *got, const double *expected,
                            const double *tol, char *hint, size_t size) {
    size_t wrong = 0, along_row = 0, along_column = 0;
    for (long i = 0; i < s.m; i++) {
        double total = 0.0, slack = 0.0;
        for (long j = 0; j < s.n; j++) {
            size_t e = (size_t)(i * s.n + j);
            total += expected[e], slack += tol[e];
            int bad = !grader_close_to(got[e], expected[e], tol[e]);
            wrong += bad;
            along_row += bad && grader_close_to(got[e], total, slack);
        }
    }
    for (long j = 0; j < s.n; j++) {
        double total = 0.0, slack = 0.0;
        for (long i = 0; i < s.m; i++) {
            size_t e = (size_t)(i * s.n + j);
            total += expected[e], slack += tol[e];
            along_column += !grader_close_to(got[e], expected[e], tol[e]) &&
                            grader_close_to(got[e], total, slack);
        }
    }
    int row = along_row * 10 > wrong * 9, column = along_column * 10 > wrong * 9;
    if (wrong == 0 || (!row && !column))
        return 0;
    snprintf(hint, size,
             "C(i,j) holds the sum of %s: the sum is never set back to 0 for the next element "
             "(float tmp = 0.0f belongs inside the loop over %s, before the loop over k)",
             row ? "C(i,0) .. C(i,j), the row's right values up to it"
                 : "C(0,j) .. C(i,j), the column's right values up to it",
             row ? "j" : "i");
    return 1;
}

/* Hints from how the kernel walks A and B, for a C of any shape, tried on a sample of the wrong
 * elements: a sum never reset between elements, the sum stops early (a loop over K, or over its
 * tiles, that leaves out the last partial tile), or A or B is read with another row length or
 * transposed. */
int grader_walk_hint(struct grader_size s, uint64_t seed, const float *got, const double *expected,
                     const double *tol, char *hint, size_t size) {
    size_t count = (size_t)s.m * s.n, a_count = (size_t)s.m * s.k, b_count = (size_t)s.k * s.n;
    if (accumulated_hint(s, got, expected, tol, hint, size))
        return 1;
    size_t picked[MODEL_SAMPLES];
    int samples = sample_wrong(count, got, expected, tol, picked), found = 0;
    float *a = samples > 0 ? malloc(a_count * sizeof *a) : NULL;
    float *b = samples > 0 ? malloc(b_count * sizeof *b) : NULL;
    if (!a || !b) {
        free(a);
        free(b);
        return 0;
    }
    clu_random_fill(a, a_count, seed, 0);
    clu_random_fill(b, b_count, seed, 1);
    const struct walk right_a = {s.k, 1}, right_b = {s.n, 1};
    /* the sum of only the first terms of each, the same count for (nearly) every element: each
     * sample's running sum compared at every count, O(samples x K) */
    int *matches = calloc((size_t)s.k + 1, sizeof *matches), terms = -1;
    for (int p = 0; matches && p < samples; p++) {
        size_t i = picked[p] / (size_t)s.n, j = picked[p] % (size_t)s.n;
        double sum = 0.0;
        for (int k = 0; k < s.k; k++) {
            matches[k] += grader_close_to(got[picked[p]], sum, tol[picked[p]]);
            sum += (double)a[i * (size_t)s.k + (size_t)k] * b[(size_t)k * s.n + j];
        }
    }
    for (int k = 0; matches && k < s.k; k++)
        if (matches[k] * 10 > samples * 9 && (terms < 0 || matches[k] > matches[terms]))
            terms = k;
    free(matches);
    if (terms == 0)
        snprintf(hint, size,
                 "C(i,j) holds none of its K = %d terms: the loop over K (or over K's tiles) never "
                 "runs. A tile loop's bound K / TS is 0 when K is less than the tile: round it up, "
                 "(K + TS - 1) / TS, and guard the last tile's loads",
                 s.k);
    else if (terms > 0)
        snprintf(hint, size,
                 "C(i,j) holds the sum of only its first %d of K = %d terms (k < %d): the loop "
                 "over K stops early. Where K is not a multiple of the tile, the last partial tile "
                 "must be loaded and summed too: a tile loop's bound rounds up, (K + TS - 1) / TS, "
                 "its loads guarded",
                 terms, s.k, terms);
    found = terms >= 0;
    /* A or B read with another row length, or transposed (a model that is the right one at
     * this shape is skipped: it explains nothing) */
    const struct {
        struct walk a, b;
        const char *text;
    } models[] = {
        {{1, s.m}, right_b, "A is read down a column (A[k*M + i]) where row i of A is A[i*K + k]"},
        {{s.n, 1},
         right_b,
         "A's rows are read N apart (A[i*N + k]) where a row of A holds K floats (A[i*K + k])"},
        {{s.m, 1},
         right_b,
         "A's rows are read M apart (A[i*M + k]) where a row of A holds K floats (A[i*K + k])"},
        {right_a, {1, s.k}, "B is read along a row (B[j*K + k]) where column j of B is B[k*N + j]"},
        {right_a,
         {s.k, 1},
         "B's rows are read K apart (B[k*K + j]) where a row of B holds N floats (B[k*N + j])"},
        {right_a,
         {s.m, 1},
         "B's rows are read M apart (B[k*M + j]) where a row of B holds N floats (B[k*N + j])"},
    };
    for (size_t m = 0; m < sizeof models / sizeof *models && !found; m++) {
        if ((models[m].a.row == right_a.row && models[m].a.col == right_a.col &&
             models[m].b.row == right_b.row && models[m].b.col == right_b.col))
            continue;
        if (model_share(s, a, b, models[m].a, models[m].b, s.k, got, tol, picked, samples) > 0.9) {
            snprintf(hint, size,
                     "the wrong elements that are numbers are each what C(i,j) is when %s",
                     models[m].text);
            found = 1;
        }
    }
    free(a);
    free(b);
    return found;
}
