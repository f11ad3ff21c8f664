/* test_hint.c - unit tests (cmocka) of the hints that need the inputs or the tiles: C = A*B^T,
 * the first or the last term of each sum missing, and the three ways a blocked kernel mixes up
 * the group ids of its tiles. Each wrong C is built here from A and B drawn from the run's seed,
 * with loops of this file's own (not the grader's products), and must get its hint and no other.
 * The NaNs of C are told apart by their bits: never written (the grader's fill), computed from
 * that fill, or computed. A rectangular C (11's M x N x K) gets the hints of how A and B are
 * walked: the sum of only its first terms (the last partial tile dropped), B's rows read K apart,
 * A read down its columns. The older hints are tested in test_grader.c.
 *
 * Sizes and seeds are drawn from a seed chosen at run time and printed at the start and in every
 * failure; set TEST_HINT_SEED=<seed> to repeat a run.
 */
#define _GNU_SOURCE /* mkdtemp */
#include "grader.h"

#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "testkit.h"

static char g_tmp[64];

static int group_setup(void **state) {
    (void)state;
    return testkit_start("test_hint", "TEST_HINT_SEED", g_tmp, sizeof g_tmp);
}

static int group_teardown(void **state) {
    (void)state;
    grader_remove_tree(g_tmp);
    return 0;
}

/* One diagnosis: the exercise, the inputs, the reference and the output under test. */
struct run {
    const struct grader_exercise *ex;
    int n;
    uint64_t seed;
    float *a, *b, *got;
    double *expected, *tol;
    struct grader_diagnosis d;
};

static void run_open(struct run *r, const char *id, int n, uint64_t seed) {
    size_t nn = (size_t)n * n;
    memset(r, 0, sizeof *r);
    r->ex = grader_find_exercise(id);
    CHECK(r->ex != NULL, "no exercise %s", id);
    r->n = n;
    r->seed = seed;
    r->a = malloc(nn * sizeof *r->a);
    r->b = malloc(nn * sizeof *r->b);
    r->got = malloc(nn * sizeof *r->got);
    CHECK(r->a && r->b && r->got, "out of memory");
    clu_random_fill(r->a, nn, seed, 0); /* the inputs the harness gives the kernel */
    clu_random_fill(r->b, nn, seed, 1);
    CHECK(grader_reference(r->ex, grader_square(n), seed, &r->expected, &r->tol) == 0,
          "no reference");
}

static void run_close(struct run *r) {
    free(r->a);
    free(r->b);
    free(r->got);
    free(r->expected);
    free(r->tol);
}

static float A(const struct run *r, int i, int k) {
    return r->a[(size_t)i * r->n + k];
}

static float B(const struct run *r, int k, int j) {
    return r->b[(size_t)k * r->n + j];
}

/* The sum over k in [from, to) of A(i,k) * B(k,j), or of A(i,k) * B(j,k) when b_transposed. */
static double dot(const struct run *r, int i, int j, int from, int to, int b_transposed) {
    double sum = 0.0;
    for (int k = from; k < to; k++)
        sum += (double)A(r, i, k) * (b_transposed ? B(r, j, k) : B(r, k, j));
    return sum;
}

/* The hint names want, and none of the other patterns' names. */
static void expect_hint(const struct run *r, const char *pattern, const char *want) {
    static const char *const names[] = {
        "A*B^T",
        "lacks the last term",
        "lacks the first term",
        "B*A",
        "transposed",
        "A's block row J times B's block column I",
        "A's block row J times B's block column J",
        "A's block row I times B's block column I",
        "only the first",
        "only the last",
    };
    CHECK(r->d.m.wrong > 0, "%s at N=%d: nothing wrong", pattern, r->n);
    CHECK(strstr(r->d.hint, want) != NULL, "%s at N=%d, seed %" PRIu64 ": hint \"%s\" lacks \"%s\"",
          pattern, r->n, r->seed, r->d.hint, want);
    for (size_t k = 0; k < sizeof names / sizeof *names; k++)
        CHECK(strstr(want, names[k]) != NULL || strstr(r->d.hint, names[k]) == NULL,
              "%s at N=%d, seed %" PRIu64 ": hint \"%s\" names \"%s\" too", pattern, r->n, r->seed,
              r->d.hint, names[k]);
}

static void diagnose(struct run *r) {
    grader_diagnose(r->ex, grader_square(r->n), r->seed, r->got, r->expected, r->tol, &r->d);
}

/* An odd size, so no pattern lines up with the tiles by chance; one round at a graded size. */
static int draw_size(struct rng *g, int round) {
    return round == 0 ? 257 : (int)rng_range(g, 8, 60) | 1;
}

static void test_b_transposed(void **state) {
    (void)state;
    struct rng g = rng_for("b_transposed");
    for (int round = 0; round < 3; round++) {
        struct run r;
        run_open(&r, round == 2 ? "02_per_row" : "01_per_element", draw_size(&g, round),
                 rng_next(&g));
        for (int i = 0; i < r.n; i++)
            for (int j = 0; j < r.n; j++)
                r.got[(size_t)i * r.n + j] = (float)dot(&r, i, j, 0, r.n, 1);
        diagnose(&r);
        expect_hint(&r, "A*B^T", "C holds A*B^T, not A*B: B's index walks a row of B");
        run_close(&r);
    }
}

/* A loop over k that stops one short (last) or starts one late (first). */
static void test_missing_term(void **state) {
    (void)state;
    struct rng g = rng_for("missing_term");
    for (int round = 0; round < 6; round++) {
        struct run r;
        int last = round % 2;
        run_open(&r, round < 4 ? "02_per_row" : "03_private_A", draw_size(&g, round / 2),
                 rng_next(&g));
        for (int i = 0; i < r.n; i++)
            for (int j = 0; j < r.n; j++)
                r.got[(size_t)i * r.n + j] =
                    (float)(last ? dot(&r, i, j, 0, r.n - 1, 0) : dot(&r, i, j, 1, r.n, 0));
        diagnose(&r);
        if (last)
            expect_hint(&r, "k < N-1", "lacks the last term of its sum, A(i,N-1)*B(N-1,j)");
        else
            expect_hint(&r, "k = 1", "lacks the first term of its sum, A(i,0)*B(0,j)");
        run_close(&r);
    }
}

/* 05 with A's block row taken from C's block column (a_from_column) and B's block column from
 * C's block row (b_from_row): C's block (I,J) is A's block row (J or I) times B's block column
 * (I or J), element for element. */
static void test_tile_sources(void **state) {
    (void)state;
    static const struct {
        int a_from_column, b_from_row;
        const char *holds;
    } sources[] = {
        {1, 1, "A's block row J times B's block column I, the block that belongs at (J,I)"},
        {1, 0, "A's block row J times B's block column J"},
        {0, 1, "A's block row I times B's block column I"},
    };
    struct rng g = rng_for("tile_sources");
    for (size_t s = 0; s < sizeof sources / sizeof *sources; s++)
        for (int round = 0; round < 2; round++) {
            struct run r;
            run_open(&r, "05_blocked_16x16", round == 0 ? 48 : 16 * (int)rng_range(&g, 2, 13),
                     rng_next(&g));
            int n = r.n, bl = r.ex->block;
            for (int i = 0; i < n; i++)
                for (int j = 0; j < n; j++) {
                    int row = (sources[s].a_from_column ? j : i) / bl * bl + i % bl;
                    int col = (sources[s].b_from_row ? i : j) / bl * bl + j % bl;
                    r.got[(size_t)i * n + j] = (float)dot(&r, row, col, 0, n, 0);
                }
            diagnose(&r);
            expect_hint(&r, "mixed-up group ids", sources[s].holds);
            CHECK(strncmp(r.d.hint, "only the diagonal blocks are right: ", 36) == 0,
                  "N=%d: hint \"%s\" does not start with the diagonal", n, r.d.hint);
            run_close(&r);
        }
}

/* Only the diagonal blocks right, the others from no source the hints know: the bare hint. */
static void test_diagonal_only(void **state) {
    (void)state;
    struct rng g = rng_for("diagonal_only");
    struct run r;
    run_open(&r, "05_blocked_16x16", 16 * (int)rng_range(&g, 2, 6), rng_next(&g));
    int n = r.n, bl = r.ex->block;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            size_t k = (size_t)i * n + j;
            r.got[k] = (float)(i / bl == j / bl ? r.expected[k] : r.expected[k] + 1.0);
        }
    diagnose(&r);
    expect_hint(&r, "diagonal only", "only the diagonal 16x16 blocks are right");
    run_close(&r);
}

/* ---------------------------------------------------------------- unwritten or computed NaN */

static uint32_t bits_of(float x) {
    uint32_t b;
    memcpy(&b, &x, sizeof b);
    return b;
}

/* The fill is one NaN that no arithmetic returns: every operation on it, on other NaNs and on
 * numbers, computed here at run time (volatile: nothing folded by the compiler), gives anything
 * but those bits; a copy keeps them. */
static void test_nan_kinds(void **state) {
    (void)state;
    struct rng g = rng_for("nan_kinds");
    float fill;
    clu_fill_unwritten(&fill, 1);
    CHECK(bits_of(fill) == CLU_UNWRITTEN_BITS && isnan(fill), "the fill is 0x%08x",
          (unsigned)bits_of(fill));
    CHECK(clu_nan_kind(fill) == CLU_UNWRITTEN, "the fill is not unwritten");
    float copy[4];
    clu_fill_unwritten(copy, 4);
    memcpy(&copy[1], &copy[0], sizeof copy[0]);
    CHECK(clu_nan_kind(copy[1]) == CLU_UNWRITTEN && clu_nan_kind(copy[3]) == CLU_UNWRITTEN,
          "a copied fill is no longer the fill");
    volatile float zero = 0.0f, inf = INFINITY, minus_one = -1.0f, vfill = fill;
    const float made[] = {zero / zero, inf - inf, zero * inf, sqrtf(minus_one), NAN, -NAN};
    for (size_t m = 0; m < sizeof made / sizeof *made; m++)
        CHECK(clu_nan_kind(made[m]) == CLU_COMPUTED_NAN, "NaN %zu (0x%08x) is not computed", m,
              (unsigned)bits_of(made[m]));
    CHECK(clu_nan_kind(-vfill) == CLU_FROM_UNWRITTEN, "-fill is 0x%08x", (unsigned)bits_of(-vfill));
    for (int round = 0; round < 1000; round++) {
        volatile float x = (float)rng_range(&g, -1000, 1000) / 7.0f;
        volatile float nan = made[rng_range(&g, 0, (long)(sizeof made / sizeof *made) - 1)];
        const float results[] = {vfill + x,   x - vfill,         vfill * x,
                                 x / vfill,   fmaf(x, vfill, x), sqrtf(vfill),
                                 vfill + nan, nan * x,           x / zero - x / zero};
        for (size_t k = 0; k < sizeof results / sizeof *results; k++) {
            enum clu_nan_kind kind = clu_nan_kind(results[k]);
            CHECK(kind == CLU_FROM_UNWRITTEN || kind == CLU_COMPUTED_NAN,
                  "operation %zu on x = %g gave 0x%08x, kind %d: arithmetic made the fill", k,
                  (double)x, (unsigned)bits_of(results[k]), (int)kind);
        }
        CHECK(clu_nan_kind(x) == CLU_NOT_NAN && clu_nan_kind(inf) == CLU_NOT_NAN, "%g is a NaN",
              (double)x);
    }
}

/* The guard after A and B: its bits are a kind of their own, copied or through arithmetic
 * (never C's unwritten fill), and a C holding some of them, at random places among right and
 * unwritten elements, gets the hint that the kernel reads past the end of A or B. */
static void test_past_end(void **state) {
    (void)state;
    struct rng g = rng_for("past_end");
    float guard, fill;
    clu_fill_past_end(&guard, 1);
    clu_fill_unwritten(&fill, 1);
    CHECK(bits_of(guard) == CLU_PAST_END_BITS && isnan(guard) &&
              clu_nan_kind(guard) == CLU_PAST_END,
          "the guard is 0x%08x, kind %d", (unsigned)bits_of(guard), (int)clu_nan_kind(guard));
    volatile float vguard = guard;
    for (int round = 0; round < 200; round++) {
        volatile float x = (float)rng_range(&g, -1000, 1000) / 7.0f;
        const float results[] = {vguard * x, x + vguard, fmaf(vguard, x, x), -vguard, x / vguard};
        for (size_t k = 0; k < sizeof results / sizeof *results; k++) {
            enum clu_nan_kind kind = clu_nan_kind(results[k]);
            CHECK(kind == CLU_PAST_END || kind == CLU_COMPUTED_NAN,
                  "operation %zu on the guard gave 0x%08x, kind %d", k,
                  (unsigned)bits_of(results[k]), (int)kind);
        }
    }
    for (int round = 0; round < 6; round++) {
        struct run r;
        run_open(&r, "01_per_element", draw_size(&g, round), rng_next(&g));
        size_t count = (size_t)r.n * r.n, past = 0, unwritten = 0;
        for (size_t k = 0; k < count; k++) {
            long pick = rng_range(&g, 0, 3); /* 0: read past the end, 1: unwritten, else right */
            volatile float product = vguard * (float)r.expected[k];
            r.got[k] = pick == 0 ? product : pick == 1 ? fill : (float)r.expected[k];
            past += pick == 0 && clu_nan_kind(r.got[k]) == CLU_PAST_END;
            unwritten += pick == 1;
        }
        diagnose(&r);
        CHECK(r.d.nan.past_end == past && r.d.nan.unwritten == unwritten,
              "round %d: counted %zu past the end, %zu unwritten; planted %zu, %zu", round,
              r.d.nan.past_end, r.d.nan.unwritten, past, unwritten);
        CHECK((past > 0) == (strstr(r.d.hint, "reads past the end of A or B") != NULL),
              "round %d: %zu past the end, hint \"%s\"", round, past, r.d.hint);
        CHECK(strstr(r.d.hint, "reads C before storing") == NULL, "round %d: hint \"%s\"", round,
              r.d.hint);
        run_close(&r);
    }
}

/* C with elements never written, computed as NaN from C's own unwritten value, and computed as
 * NaN from nothing, at random places: each counted apart, and the hint says what each one is and
 * never that a computed NaN was not written. */
static void test_nan_hints(void **state) {
    (void)state;
    struct rng g = rng_for("nan_hints");
    volatile float zero = 0.0f;
    float fill;
    clu_fill_unwritten(&fill, 1);
    for (int round = 0; round < 12; round++) {
        struct run r;
        run_open(&r, "01_per_element", draw_size(&g, round), rng_next(&g));
        size_t count = (size_t)r.n * r.n, want[3] = {0, 0, 0};
        for (size_t k = 0; k < count; k++)
            r.got[k] = (float)r.expected[k];
        int mix = round % 4; /* 0: all computed, 1: all unwritten, 2, 3: a mix */
        for (size_t k = 0; k < count; k++) {
            long pick = mix == 0 ? 2 : mix == 1 ? 0 : rng_range(&g, 0, 5);
            if (pick > 2 && mix == 2)
                continue; /* a right element */
            if (pick > 2)
                pick = 2;
            volatile float from = fill;
            r.got[k] = pick == 0 ? fill : pick == 1 ? from + (float)k : zero / zero;
            /* (hardware that does not pass a NaN's payload on makes a computed one of the sum) */
            if (pick == 1 &&
                (bits_of(r.got[k]) & 0x7fffffffu) != (CLU_UNWRITTEN_BITS | CLU_QUIET_BIT))
                pick = 2;
            want[pick]++;
        }
        diagnose(&r);
        CHECK(r.d.nan.unwritten == want[0] && r.d.unwritten == want[0] &&
                  r.d.nan.from_unwritten == want[1] && r.d.nan.computed == want[2],
              "round %d at N=%d: counted %zu unwritten, %zu from it, %zu computed; planted %zu, "
              "%zu, %zu",
              round, r.n, r.d.nan.unwritten, r.d.nan.from_unwritten, r.d.nan.computed, want[0],
              want[1], want[2]);
        const char *never = "never written", *nothing = "nothing was written",
                   *computed = "NaN the kernel computed", *reads = "reads C before storing";
        CHECK((want[0] == count) == (strstr(r.d.hint, nothing) != NULL),
              "round %d: %zu of %zu unwritten, hint \"%s\"", round, want[0], count, r.d.hint);
        CHECK((want[0] > 0 && want[0] < count) == (strstr(r.d.hint, never) != NULL),
              "round %d: %zu of %zu unwritten, hint \"%s\"", round, want[0], count, r.d.hint);
        CHECK((want[2] > 0) == (strstr(r.d.hint, computed) != NULL),
              "round %d: %zu computed, hint \"%s\"", round, want[2], r.d.hint);
        CHECK((want[1] > 0) == (strstr(r.d.hint, reads) != NULL),
              "round %d: %zu from the fill, hint \"%s\"", round, want[1], r.d.hint);
        run_close(&r);
    }
}

/* The timed rounds' cheap check of a vector (grader_vector_right) says right exactly where the
 * reference's own tolerances do: the float sum is right, one element moved past its tolerance or
 * made a NaN at a random place is wrong. */
static void test_vector_right(void **state) {
    (void)state;
    struct rng rng = rng_for("vector right");
    const struct grader_exercise *ex = grader_find_exercise("00_vadd");
    CHECK(ex != NULL, "no row 00_vadd");
    for (int round = 0; round < 10; round++) { /* (the last two in parts on threads) */
        int n = (int)rng_range(&rng, 1, round < 8 ? 200000 : 3000000);
        uint64_t seed = rng_next(&rng);
        struct grader_size s = grader_square(n);
        size_t count = (size_t)n;
        float *a = malloc(count * sizeof *a), *b = malloc(count * sizeof *b),
              *c = malloc(count * sizeof *c);
        double *expected, *tol;
        CHECK(a && b && c && grader_reference(ex, s, seed, &expected, &tol) == 0, "out of memory");
        clu_random_fill(a, count, seed, 0);
        clu_random_fill(b, count, seed, 1);
        for (size_t i = 0; i < count; i++)
            c[i] = a[i] + b[i];
        CHECK(grader_vector_right(ex, s, seed, c) == 1, "n %d: the float sum called wrong", n);
        size_t at = (size_t)rng_range(&rng, 0, n - 1);
        float kept = c[at];
        c[at] = (float)(expected[at] + 3.0 * tol[at] + 1e-6);
        CHECK(grader_vector_right(ex, s, seed, c) == 0,
              "n %d: element %zu moved past its tolerance "
              "called right",
              n, at);
        c[at] = NAN;
        CHECK(grader_vector_right(ex, s, seed, c) == 0, "n %d: a NaN at %zu called right", n, at);
        c[at] = kept;
        CHECK(grader_vector_right(ex, s, seed ^ 1, c) == 0,
              "n %d: another seed's inputs called right", n);
        free(a);
        free(b);
        free(c);
        free(expected);
        free(tol);
    }
}

/* A rectangular C made by a wrong walk: the sum over k < terms of A[i*ar + k*ac] * B[k*br + j*bc]
 * (every index inside A and B at the sizes drawn), diagnosed as 11's. */
static void walked(const char *pattern, struct grader_size s, uint64_t seed, int terms, long ar,
                   long ac, long br, long bc, const char *want) {
    const struct grader_exercise *ex = grader_find_exercise("11_any_size");
    size_t a_count = (size_t)s.m * s.k, b_count = (size_t)s.k * s.n, c_count = (size_t)s.m * s.n;
    float *a = malloc(a_count * sizeof *a), *b = malloc(b_count * sizeof *b);
    float *got = malloc(c_count * sizeof *got);
    double *expected = NULL, *tol = NULL;
    CHECK(ex && a && b && got, "no 11, or out of memory");
    clu_random_fill(a, a_count, seed, 0);
    clu_random_fill(b, b_count, seed, 1);
    CHECK(grader_reference(ex, s, seed, &expected, &tol) == 0, "no reference");
    for (long i = 0; i < s.m; i++)
        for (long j = 0; j < s.n; j++) {
            double sum = 0.0;
            for (long k = 0; k < terms; k++)
                sum += (double)a[i * ar + k * ac] * b[k * br + j * bc];
            got[i * s.n + j] = (float)sum;
        }
    struct grader_diagnosis d;
    grader_diagnose(ex, s, seed, got, expected, tol, &d);
    CHECK(d.m.wrong > 0, "%s at %dx%dx%d: nothing wrong", pattern, s.m, s.n, s.k);
    CHECK(strstr(d.hint, want) != NULL,
          "%s at %dx%dx%d, seed %" PRIu64 ": hint \"%s\" lacks \"%s\"", pattern, s.m, s.n, s.k,
          seed, d.hint, want);
    free(a);
    free(b);
    free(got);
    free(expected);
    free(tol);
}

static void test_walks(void **state) {
    (void)state;
    struct rng g = rng_for("walks");
    for (int round = 0; round < 4; round++) {
        /* odd sizes, K > 16 and not a multiple of the tile; K < N for B read K apart */
        struct grader_size s = {(int)rng_range(&g, 3, 70), (int)rng_range(&g, 40, 90),
                                (int)rng_range(&g, 17, 39) | 1};
        uint64_t seed = rng_next(&g);
        int tile = round % 2 ? 16 : 8, full = s.k / tile * tile;
        char want[120];
        snprintf(want, sizeof want, "holds the sum of only its first %d of K = %d terms", full,
                 s.k);
        walked("the last partial tile dropped", s, seed, full, s.k, 1, s.n, 1, want);
        walked("B read K apart", s, seed, s.k, s.k, 1, s.k, 1,
               "B's rows are read K apart (B[k*K + j])");
        walked("A down its columns", s, seed, s.k, 1, s.m, s.n, 1,
               "A is read down a column (A[k*M + i])");
    }
    for (int round = 0; round < 3; round++) { /* a sum never reset along a row of C */
        struct grader_size s = {(int)rng_range(&g, 2, 60) | 1, (int)rng_range(&g, 2, 60) | 1, 0};
        s.k = round == 2 ? s.n : (int)rng_range(&g, 1, 80);
        const struct grader_exercise *ex =
            grader_find_exercise(round == 2 ? "04_local_B" : "11_any_size");
        uint64_t seed = rng_next(&g);
        double *expected = NULL, *tol = NULL;
        s.m = round == 2 ? s.n : s.m;
        CHECK(grader_reference(ex, s, seed, &expected, &tol) == 0, "no reference");
        float *got = malloc((size_t)s.m * s.n * sizeof *got);
        CHECK(got != NULL, "out of memory");
        for (int i = 0; i < s.m; i++) {
            double total = 0.0;
            for (int j = 0; j < s.n; j++)
                got[(size_t)i * s.n + j] = (float)(total += expected[(size_t)i * s.n + j]);
        }
        struct grader_diagnosis d;
        grader_diagnose(ex, s, seed, got, expected, tol, &d);
        CHECK(strstr(d.hint, "C(i,0) .. C(i,j)") && strstr(d.hint, "never set back to 0"),
              "a sum never reset at %dx%dx%d (%s), seed %" PRIu64 ": hint \"%s\"", s.m, s.n, s.k,
              ex->id, seed, d.hint);
        free(got);
        free(expected);
        free(tol);
    }
    struct grader_size one = {1, 1, 1}; /* 1x1x1: no tile at all, C = 0 */
    walked("no tile", one, rng_next(&g), 0, 1, 1, 1, 1, "holds none of its K = 1 terms");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_b_transposed), cmocka_unit_test(test_missing_term),
        cmocka_unit_test(test_tile_sources), cmocka_unit_test(test_diagonal_only),
        cmocka_unit_test(test_nan_kinds),    cmocka_unit_test(test_nan_hints),
        cmocka_unit_test(test_past_end),     cmocka_unit_test(test_vector_right),
        cmocka_unit_test(test_walks),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
