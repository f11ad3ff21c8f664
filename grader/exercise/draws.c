/* draws.c - the sizes of the runs under oclgrind (the memory check, the technique's count, the
 * host program's second run), drawn afresh at every grading from a seed the caller mixes
 * (grade_exercise.c): a kernel cannot behave at sizes it can predict and differently elsewhere.
 *
 * The budget. oclgrind interprets every work-item, at about 5 to 15 us per multiply-add under
 * its checks, so each row's memcheck_n caps what a draw may cost: the multiply-adds of the
 * costlier of its two builds (the defaults and the smaller oclgrind values), each dimension
 * padded to whole tiles, at most memcheck_n^3 (a vector: memcheck_n elements). The caps in
 * table.c hold the reference's slowest build at the largest draw to about 8 s under oclgrind's
 * checks on the workbook's 2-core CI VM (AMD EPYC, load 4 from parallel builds, 2026-12): 01 at
 * N = 96 4.7 to 8.6 s, 02 at 128 10.9 s (so 112), 04 at 96 6.4 to 9.8 s (577 MB), 05 at 96 6.1 s,
 * 07 and 08 at 96 6.8 to 9.6 s, 09 and 10 at 128 5.4 to 8.6 s (their graded tile: nothing
 * smaller), 11 at 80 x 80 x 80 (padded 128 x 128 x 80) 12.3 s (so 88^3 padded), 13 at 100^3
 * (padded 128^3) 7.3 s, vadd at 2^20 14.5 s (so 2^19). The technique's count (--inst-counts)
 * is about 5 times faster than a checked run.
 *
 * The draws. Two per grading. A square row draws one N from the lower half of its valid sizes
 * up to the cap and one from the upper half, so a kernel must behave over the whole range (it
 * can know the range, never the two points). A rectangular row draws one shape with N below M
 * and K and one with N above both (M against K at random), three distinct sizes each up to 2
 * times the cap, within the budget: over the two, K is above and below N and M above N at
 * every grading. Which of the two comes first (the host program's run takes
 * the first) is drawn too. */
#include "exercise/exercise.h"

#include <math.h>

/* splitmix64: a small stream from the caller's seed, the same seed the same draws. */
static uint64_t next(uint64_t *s) {
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static int round_up(int x, int step) {
    return step > 1 ? (x + step - 1) / step * step : x;
}

/* The smallest size from n up that the build allows, or n where none does within reach. */
static int smallest_valid(const struct grader_exercise *ex, int check, int n) {
    for (int v = n; v > 0 && v <= n + 4096; v++)
        if (grader_size_valid_at(ex, check, v))
            return v;
    return n;
}

struct grader_size grader_check_valid(const struct grader_exercise *ex, int check,
                                      struct grader_size s) {
    struct grader_size z = {smallest_valid(ex, check, s.m), smallest_valid(ex, check, s.n),
                            smallest_valid(ex, check, s.k)};
    if (!ex->rectangular) /* a square build runs at N x N x N */
        z.m = z.k = z.n;
    return z;
}

double grader_check_cost_at(const struct grader_exercise *ex, int check, struct grader_size s) {
    struct grader_size z = grader_check_valid(ex, check, s);
    if (ex->is_vector)
        return (double)z.n;
    /* a work-group computes a whole tile of C (and takes k a tile at a time): the part of a tile
     * past C's edge is interpreted as well */
    struct grader_variant v = grader_variant_of(ex, 0, check);
    int tn = ex->c_tile[0] ? grader_variant_value(&v, ex->c_tile[0]) : 0;
    int tm = ex->c_tile[1] ? grader_variant_value(&v, ex->c_tile[1]) : 0;
    int tk = grader_variant_value(&v, "TSK");
    return (double)round_up(z.m, tm) * (double)round_up(z.n, tn) * (double)round_up(z.k, tk);
}

double grader_check_cost(const struct grader_exercise *ex, struct grader_size s) {
    double graded = grader_check_cost_at(ex, 0, s), smaller = grader_check_cost_at(ex, 1, s);
    return graded > smaller ? graded : smaller;
}

double grader_check_budget(const struct grader_exercise *ex) {
    double cap = ex->memcheck_n > 0 ? (double)ex->memcheck_n : 1.0;
    return ex->is_vector ? cap : cap * cap * cap;
}

/* Whether n is a draw of a square row: valid for the oclgrind values, within the budget, and
 * for a column of B in local memory a work-group of a few items (its group is the largest
 * divisor of N up to GRADER_GROUP_LIMIT: no prime sizes there). */
static int square_candidate(const struct grader_exercise *ex, int n) {
    return grader_size_valid_at(ex, 1, n) && (ex->shape != SHAPE_ROWS_GROUPED || n % 4 == 0) &&
           grader_check_cost(ex, grader_square(n)) <= grader_check_budget(ex);
}

/* The index-th candidate of a square row from 2 up to the cap (0 where there is none). */
static int square_at(const struct grader_exercise *ex, int index) {
    for (int n = 2, seen = 0; n <= ex->memcheck_n; n++)
        if (square_candidate(ex, n) && seen++ == index)
            return n;
    return 0;
}

static void square_draws(const struct grader_exercise *ex, uint64_t *s,
                         struct grader_size out[GRADER_CHECK_DRAWS]) {
    int count = 0;
    for (int n = 2; n <= ex->memcheck_n; n++)
        count += square_candidate(ex, n);
    if (count == 0) { /* a cap below what the row's values allow: their smallest size, once */
        int n = smallest_valid(ex, 1, 2);
        out[0] = out[1] = grader_square(n);
        return;
    }
    int half = count / 2;
    int low = (int)(next(s) % (uint64_t)(half > 0 ? half : 1));
    int high = half + (int)(next(s) % (uint64_t)(count - half));
    out[0] = grader_square(square_at(ex, low));
    out[1] = grader_square(square_at(ex, high));
}

/* A size in [1, most], uniform or (thin) log-uniform, never a multiple of 8 (the oclgrind
 * tiles': an edge in every one). */
static int one_size(uint64_t *s, int most, int thin) {
    double u = (double)(next(s) >> 11) / 9007199254740992.0; /* [0, 1) */
    int v = thin ? (int)floor(exp(u * log((double)most + 1.0))) : 1 + (int)(u * (double)most);
    v = v < 1 ? 1 : v > most ? most : v;
    return v % 8 == 0 ? v + 1 : v;
}

/* One shape with N below M and K (n_above 0) or above both (1), within the budget. */
static struct grader_size rectangular_draw(const struct grader_exercise *ex, uint64_t *s,
                                           int n_above) {
    int most = 2 * (ex->memcheck_n > 1 ? ex->memcheck_n : 2);
    for (int attempt = 0; attempt < 400; attempt++) {
        /* most shapes uniform (near the budget), one in four log-uniform: a row, a column,
         * a K of a few */
        int thin = next(s) % 4 == 0;
        int v[3] = {one_size(s, most, thin), one_size(s, most, thin), one_size(s, most, thin)};
        if (v[0] == v[1] || v[1] == v[2] || v[0] == v[2])
            continue;
        for (int i = 0; i < 2; i++) /* ascending */
            for (int j = 0; j < 2 - i; j++)
                if (v[j] > v[j + 1]) {
                    int t = v[j];
                    v[j] = v[j + 1];
                    v[j + 1] = t;
                }
        int swap = (int)(next(s) & 1);
        struct grader_size z = n_above ? (struct grader_size){v[swap], v[2], v[1 - swap]}
                                       : (struct grader_size){v[1 + swap], v[0], v[2 - swap]};
        if (grader_check_cost(ex, z) <= grader_check_budget(ex))
            return z;
    }
    /* (never met with the table's caps: the smallest shapes of each order) */
    return n_above ? (struct grader_size){2, 5, 3} : (struct grader_size){5, 2, 3};
}

void grader_check_draws(const struct grader_exercise *ex, uint64_t seed,
                        struct grader_size out[GRADER_CHECK_DRAWS]) {
    uint64_t s = seed;
    if (ex->rectangular) {
        out[0] = rectangular_draw(ex, &s, 0);
        out[1] = rectangular_draw(ex, &s, 1);
    } else {
        square_draws(ex, &s, out);
    }
    if (next(&s) & 1) { /* which comes first is drawn too */
        struct grader_size t = out[0];
        out[0] = out[1];
        out[1] = t;
    }
}
