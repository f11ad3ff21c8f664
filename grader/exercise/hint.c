/* hint.c - what a wrong output says: the comparison with the reference, and hints that name the
 * bug when the wrong elements form a pattern students make. */
#include "exercise/exercise.h"
#include "exercise/hint_walk.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Where the wrong elements lie, in C's grid of block x block tiles and along its edges. */
struct wrong_places {
    size_t zero;                             /* elements exactly 0, wrong or not */
    size_t on_diagonal, off_diagonal;        /* wrong elements in the diagonal tiles, elsewhere */
    size_t off_diagonal_all;                 /* elements outside the diagonal tiles */
    size_t in_first_block, past_first_block; /* wrong elements in tile (0,0), elsewhere */
    int lowest_row, lowest_col;              /* smallest row and column of a wrong element */
};

static struct wrong_places find_wrong(int n, int block, const float *got, const double *expected,
                                      const double *tol) {
    struct wrong_places w = {.lowest_row = n, .lowest_col = n};
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            size_t k = (size_t)i * n + j;
            int diagonal = i / block == j / block;
            w.zero += got[k] == 0.0f;
            w.off_diagonal_all += !diagonal;
            if (grader_close_to(got[k], expected[k], tol[k]))
                continue;
            w.on_diagonal += diagonal;
            w.off_diagonal += !diagonal;
            if (i < block && j < block)
                w.in_first_block++;
            else
                w.past_first_block++;
            if (i < w.lowest_row)
                w.lowest_row = i;
            if (j < w.lowest_col)
                w.lowest_col = j;
        }
    return w;
}

/* Fraction of elements where got(i,j) matches the reference at (j,i). */
static double transposed_share(int n, const float *got, const double *expected, const double *tol) {
    size_t hits = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            hits += grader_close_to(got[(size_t)i * n + j], expected[(size_t)j * n + i],
                                    tol[(size_t)j * n + i]);
    return (double)hits / ((double)n * n);
}

/* Whether got matches x*y in more than 9 elements of 10, within the reference's tolerance. Row by
 * row, so that a product that does not match stops once a tenth of C has missed: only the one
 * that matches costs a whole O(N^3) product. */
static int holds_product(int n, const float *x, const float *y, const float *got) {
    size_t nn = (size_t)n * n, misses = 0;
    double *row = malloc(2 * (size_t)n * sizeof *row); /* a row of x*y, then of |x|*|y| */
    if (!row)
        return 0; /* no memory: no hint */
    double *abs_row = row + n;
    for (int i = 0; i < n && misses * 10 < nn; i++) {
        for (int j = 0; j < n; j++)
            row[j] = abs_row[j] = 0.0;
        for (int k = 0; k < n; k++) {
            double xik = x[(size_t)i * n + k];
            const float *yk = y + (size_t)k * n;
            for (int j = 0; j < n; j++) {
                row[j] += xik * yk[j];
                abs_row[j] += fabs(xik) * fabs((double)yk[j]);
            }
        }
        for (int j = 0; j < n; j++)
            misses +=
                !grader_close_to(got[(size_t)i * n + j], row[j], clu_dot_tolerance(n, abs_row[j]));
    }
    free(row);
    return misses * 10 < nn;
}

/* Fraction of elements where got matches the reference less term k of each sum, A(i,k)*B(k,j):
 * a loop over k that starts one late (k = 0) or stops one short (k = n-1). O(N^2), from the
 * reference, not a new product. */
static double missing_term_share(int n, int k, const float *a, const float *b, const float *got,
                                 const double *expected, const double *tol) {
    size_t hits = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            size_t at = (size_t)i * n + j;
            double term = (double)a[(size_t)i * n + k] * (double)b[(size_t)k * n + j];
            /* the full sum's tolerance bounds the shorter sum's rounding too */
            hits += grader_close_to(got[at], expected[at] - term, tol[at]);
        }
    return (double)hits / ((double)n * n);
}

/* Where the tiles of C's block at block row I, block column J come from when a kernel mixes up
 * its group ids: A's block row and B's block column each follow C's block row or column. The
 * right kernel takes A's block row I and B's block column J; these are the three other ways. */
struct tile_source {
    int a_from_column; /* A's block row is J, C's block column (else I) */
    int b_from_row;    /* B's block column is I, C's block row (else J) */
    const char *says;  /* what C's block (I,J) then holds, and why */
};

static const struct tile_source tile_sources[] = {
    {1, 1,
     "A's block row J times B's block column I, the block that belongs at (J,I): A's tiles "
     "follow the group id that gives C's column, and B's tiles the one that gives C's row"},
    {1, 0,
     "A's block row J times B's block column J: A's tiles follow the group id that gives C's "
     "column, where they must follow the one that gives C's row"},
    {0, 1,
     "A's block row I times B's block column I: B's tiles follow the group id that gives C's row, "
     "where they must follow the one that gives C's column"},
};

/* Fraction of elements where got's block (I,J) matches, element for element, the product's block
 * that s names (n a multiple of block). Those blocks are blocks of the reference: O(N^2). */
static double tile_source_share(int n, int block, const struct tile_source *s, const float *got,
                                const double *expected, const double *tol) {
    size_t hits = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            int a_block = s->a_from_column ? j / block : i / block;
            int b_block = s->b_from_row ? i / block : j / block;
            size_t from = (size_t)(a_block * block + i % block) * n + b_block * block + j % block;
            hits += grader_close_to(got[(size_t)i * n + j], expected[from], tol[from]);
        }
    return (double)hits / ((double)n * n);
}

/* Hints from the tiles: which tiles are right, and where the others come from. The mix-ups are
 * named by what they give, not by which dimension is the row: kernels differ in that (the
 * lecture's printed one takes C's row from dimension 1). */
static int block_hint(int n, int block, const float *got, const double *expected, const double *tol,
                      const struct wrong_places *w, char *hint, size_t size) {
    size_t nn = (size_t)n * n;
    if (n <= block)
        return 0;
    for (size_t s = 0; n % block == 0 && s < sizeof tile_sources / sizeof *tile_sources; s++)
        if (tile_source_share(n, block, &tile_sources[s], got, expected, tol) > 0.9) {
            snprintf(hint, size, "%sC's %dx%d block at block row I, block column J holds %s",
                     w->on_diagonal == 0 ? "only the diagonal blocks are right: " : "", block,
                     block, tile_sources[s].says);
            return 1;
        }
    if (w->on_diagonal == 0 && w->off_diagonal > w->off_diagonal_all / 2) {
        snprintf(hint, size,
                 "only the diagonal %dx%d blocks are right: the tiles of A or B are taken from the "
                 "wrong block (A's block row must follow the group id that gives C's row, B's "
                 "block column the one that gives C's column)",
                 block, block);
    } else if (w->in_first_block == 0 && w->past_first_block > nn / 2) {
        snprintf(hint, size,
                 "only the first %dx%d block is right: the tiles of A or B are taken from the "
                 "wrong block (which group id picks A's block row, which B's block column?), or "
                 "a private sum carries over from one work-group to the next (is every "
                 "accumulator set to 0.0f?)",
                 block, block);
    } else {
        return 0;
    }
    return 1;
}

/* A kernel of rows in work-groups (04) right only in work-group 0's rows: every work-item of
 * the others reads wrong values from what their group shares. The classic cause: the copy into
 * local memory indexed by get_global_id, where get_local_id belongs, so that group g copies
 * only from its own rows' offset on. */
static int group_hint(const struct grader_exercise *ex, int n, const float *got,
                      const double *expected, const double *tol, const struct wrong_places *w,
                      char *hint, size_t size) {
    if (ex->shape != SHAPE_ROWS_GROUPED)
        return 0;
    int group = (int)grader_rows_group(n, (size_t)-1);
    if (group < 2 || group >= n || w->lowest_row != group)
        return 0;
    size_t wrong_after = 0, after = (size_t)(n - group) * (size_t)n;
    for (size_t k = (size_t)group * n; k < (size_t)n * n; k++)
        wrong_after += !grader_close_to(got[k], expected[k], tol[k]);
    if (wrong_after * 2 < after)
        return 0;
    snprintf(hint, size,
             "only work-group 0's rows are right (rows 0 to %d, at a local size of %d and N = "
             "%d); the other groups read wrong values from local memory: is the copy "
             "of B's column indexed by get_global_id where get_local_id belongs (work-item iloc "
             "copies k = iloc, iloc + L, ...)?",
             group - 1, group, n);
    return 1;
}

/* Where a work-item's element w of its block lies along one side of its group's tile of C: side
 * by side (item*per + w) or strided by the group's size (w*items + item). A kernel whose loads,
 * register loads and stores disagree on this computes the right values into the wrong places. */
enum owner_layout { OWNER_SAME, OWNER_SIDE_BY_SIDE, OWNER_STRIDED };

/* The position along a tile side of `tile` elements, `per` per work-item, where the value that
 * belongs at p lands when the stores follow `stored` and the computation the other layout. */
static int owner_place(int p, int tile, int per, enum owner_layout stored) {
    int items = tile / per, base = p - p % tile, q = p % tile;
    if (stored == OWNER_SIDE_BY_SIDE) /* computed at w*items + item, stored at item*per + w */
        return base + (q % items) * per + q / items;
    if (stored == OWNER_STRIDED) /* computed at item*per + w, stored at w*items + item */
        return base + (q % per) * items + q / per;
    return p;
}

/* Fraction of elements where got(place(i), place(j)) holds the reference at (i,j). */
static double owner_share(int n, const int tile[2], const int per[2], enum owner_layout rows,
                          enum owner_layout cols, const float *got, const double *expected,
                          const double *tol) {
    size_t hits = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            size_t at = (size_t)owner_place(i, tile[1], per[1], rows) * n +
                        owner_place(j, tile[0], per[0], cols);
            size_t from = (size_t)i * n + j;
            hits += grader_close_to(got[at], expected[from], tol[from]);
        }
    return (double)hits / ((double)n * n);
}

/* A kernel of C tiles (07 on) whose work-items compute their elements strided and store them
 * side by side, or the other way round: every value is right, in the wrong place within its
 * group's tile. The tuning values are the row's defaults, those of the hidden sizes. */
static int owner_hint(const struct grader_exercise *ex, int n, const float *got,
                      const double *expected, const double *tol, char *hint, size_t size) {
    if (ex->shape != SHAPE_C_TILES)
        return 0;
    struct grader_variant v = grader_variant_of(ex, 0, 0);
    int tile[2], per[2];
    for (int d = 0; d < 2; d++) {
        tile[d] = ex->c_tile[d] ? grader_variant_value(&v, ex->c_tile[d]) : 0;
        per[d] = ex->per_item[d] ? grader_variant_value(&v, ex->per_item[d]) : 1;
        if (tile[d] < 1 || per[d] < 1 || tile[d] % per[d] != 0 || n % tile[d] != 0)
            return 0;
    }
    static const char *const names[] = {"", "side by side", "strided"};
    for (int r = OWNER_SAME; r <= OWNER_STRIDED; r++)
        for (int c = OWNER_SAME; c <= OWNER_STRIDED; c++) {
            if ((r == OWNER_SAME && c == OWNER_SAME) ||
                owner_share(n, tile, per, r, c, got, expected, tol) <= 0.9)
                continue;
            int stored = r != OWNER_SAME ? r : c, d = r != OWNER_SAME ? 1 : 0;
            const char *id = d ? "ty" : "tx", *w = d ? "wm" : "wn", *p = ex->per_item[d];
            char side[48], strided[64];
            snprintf(side, sizeof side, "%s*%s + %s", id, p, w);
            snprintf(strided, sizeof strided, "%s + %s*(%s/%s)", id, w, ex->c_tile[d], p);
            snprintf(hint, size,
                     "every value is right but in the wrong place within its %dx%d tile of C: "
                     "each work-item stores its %s %s (%s) but computes them %s (%s): the tile "
                     "loads, the register loads and the stores must agree on which rows and "
                     "columns a work-item owns",
                     tile[1], tile[0],
                     r != OWNER_SAME && c != OWNER_SAME ? "rows and columns"
                     : r != OWNER_SAME                  ? "rows"
                                                        : "columns",
                     names[stored], stored == OWNER_SIDE_BY_SIDE ? side : strided,
                     names[3 - stored], stored == OWNER_SIDE_BY_SIDE ? strided : side);
            return 1;
        }
    return 0;
}

/* Hints from the edges: only the last rows or columns are wrong. Below N = 16 the last N % 16
 * rows are all of them, which is no pattern. */
static int bound_hint(int n, const struct wrong_places *w, char *hint, size_t size) {
    int rows_tail = n - w->lowest_row, cols_tail = n - w->lowest_col, tail = n % 16;
    if (cols_tail == 1 || rows_tail == 1) {
        snprintf(hint, size,
                 "only the last %s is wrong: look at a loop bound or an index off by one",
                 rows_tail == 1 && cols_tail == 1 ? "element"
                 : rows_tail == 1                 ? "row"
                                                  : "column");
    } else if (tail != 0 && n > 16 && (rows_tail <= tail || cols_tail <= tail)) {
        snprintf(hint, size,
                 "only the last %d rows or columns are wrong, and N = %d is not a multiple of 16: "
                 "does the kernel assume it is?",
                 tail, n);
    } else {
        return 0;
    }
    return 1;
}

/* Hints from the inputs, A and B drawn again from the seed: C is the product less one term of
 * each sum, or another product of them. The O(N^3) products run only here, when every cheaper
 * pattern failed to match. */
static int product_hint(int n, uint64_t seed, const float *got, const double *expected,
                        const double *tol, char *hint, size_t size) {
    size_t nn = (size_t)n * n;
    float *a = malloc(nn * sizeof *a), *b = malloc(nn * sizeof *b);
    int found = 0;
    if (a && b) {
        clu_random_fill(a, nn, seed, 0);
        clu_random_fill(b, nn, seed, 1);
        if (missing_term_share(n, n - 1, a, b, got, expected, tol) > 0.9) {
            snprintf(hint, size,
                     "C(i,j) lacks the last term of its sum, A(i,N-1)*B(N-1,j): a loop over k "
                     "stops one short (it must run while k < N)");
            found = 1;
        } else if (missing_term_share(n, 0, a, b, got, expected, tol) > 0.9) {
            snprintf(hint, size,
                     "C(i,j) lacks the first term of its sum, A(i,0)*B(0,j): a loop over k starts "
                     "one late (it must start at k = 0)");
            found = 1;
        } else if (holds_product(n, b, a, got)) {
            snprintf(hint, size,
                     "C holds B*A, not A*B: A's index walks a row (A[i*N + k]), B's a column "
                     "(B[k*N + j])");
            found = 1;
        } else {
            for (int i = 0; i < n; i++) /* b becomes B^T, in place: B is not needed after this */
                for (int j = i + 1; j < n; j++) {
                    float t = b[(size_t)i * n + j];
                    b[(size_t)i * n + j] = b[(size_t)j * n + i];
                    b[(size_t)j * n + i] = t;
                }
            if (holds_product(n, a, b, got)) {
                snprintf(hint, size,
                         "C holds A*B^T, not A*B: B's index walks a row of B (B[j*N + k]) where "
                         "it must walk a column (B[k*N + j])");
                found = 1;
            }
        }
    }
    free(a);
    free(b);
    return found;
}

/* Matrix hints, cheapest first: from the positions of the wrong elements, then from the inputs. */
static void matrix_hint(const struct grader_exercise *ex, int n, uint64_t seed, const float *got,
                        const double *expected, const double *tol, struct grader_diagnosis *d) {
    int block = ex->block > 0 ? ex->block : 16;
    if (ex->shape == SHAPE_C_TILES) { /* a group's square tile of C, at the default values */
        struct grader_variant v = grader_variant_of(ex, 0, 0);
        int cols = grader_variant_value(&v, ex->c_tile[0]);
        if (cols > 1 && cols == grader_variant_value(&v, ex->c_tile[1]))
            block = cols;
    }
    struct wrong_places w = find_wrong(n, block, got, expected, tol);
    if (w.zero == (size_t)n * n)
        snprintf(d->hint, sizeof d->hint, "C is all zero: is the sum ever stored in C?");
    else if (n > 1 && transposed_share(n, got, expected, tol) > 0.9)
        snprintf(d->hint, sizeof d->hint,
                 "C is transposed: C(i,j) holds the value of C(j,i). Row i is get_global_id(0) "
                 "and C(i,j) is C[i*N + j]");
    else if (!group_hint(ex, n, got, expected, tol, &w, d->hint, sizeof d->hint) &&
             !owner_hint(ex, n, got, expected, tol, d->hint, sizeof d->hint) &&
             !block_hint(n, block, got, expected, tol, &w, d->hint, sizeof d->hint) &&
             !bound_hint(n, &w, d->hint, sizeof d->hint) && n > 1)
        product_hint(n, seed, got, expected, tol, d->hint, sizeof d->hint);
}

struct grader_nans grader_count_nans(const float *got, size_t count) {
    struct grader_nans n = {0, 0, 0, 0};
    for (size_t i = 0; i < count; i++)
        switch (clu_nan_kind(got[i])) {
        case CLU_UNWRITTEN:
            n.unwritten++;
            break;
        case CLU_FROM_UNWRITTEN:
            n.from_unwritten++;
            break;
        case CLU_COMPUTED_NAN:
            n.computed++;
            break;
        case CLU_PAST_END:
            n.past_end++;
            break;
        case CLU_NOT_NAN:
            break;
        }
    return n;
}

void grader_nan_hint(const struct grader_nans *n, size_t count, char *buf, size_t size) {
    buf[0] = '\0';
    if (count > 0 && n->unwritten == count) {
        snprintf(buf, size,
                 "nothing was written: every element is still the NaN the grader put there "
                 "(not implemented yet?)");
        return;
    }
    size_t used = 0;
    if (n->past_end > 0) /* (the cause of the others, often: said first) */
        used += (size_t)snprintf(buf, size,
                                 "%zu elements are a NaN from the grader's guard after A or B: "
                                 "the kernel reads past the end of A or B (a load's bound on K, "
                                 "or a row's stride)",
                                 n->past_end);
    if (n->unwritten > 0 && used < size)
        used += (size_t)snprintf(buf + used, size - used,
                                 "%s%zu elements were never written (still the NaN the grader "
                                 "put there): some work-items do not store their result, or "
                                 "store it at the wrong index",
                                 used ? "; " : "", n->unwritten);
    if (n->from_unwritten > 0 && used < size)
        used += (size_t)snprintf(buf + used, size - used,
                                 "%s%zu elements are a NaN computed from C's own value before it "
                                 "was written: the kernel reads C before storing to it (C += "
                                 "with no C = 0 first?), or reads past the end of A or B, "
                                 "where C may lie",
                                 used ? "; " : "", n->from_unwritten);
    if (n->computed > 0 && used < size)
        snprintf(buf + used, size - used,
                 "%s%zu elements hold a NaN the kernel computed (they were written): 0/0, "
                 "inf - inf, a value used before it was set, or a read past the end of A or B "
                 "(the grader's guard there is a NaN, whose mark a GPU's arithmetic may not keep)",
                 used ? "; " : "", n->computed);
}

void grader_diagnose(const struct grader_exercise *ex, struct grader_size s, uint64_t seed,
                     const float *got, const double *expected, const double *tol,
                     struct grader_diagnosis *d) {
    size_t count = grader_output_count(ex, s);
    memset(d, 0, sizeof *d);
    d->m = clu_compare(got, expected, tol, 0.0, count);
    d->nan = grader_count_nans(got, count);
    d->unwritten = d->nan.unwritten;
    if (d->m.wrong == 0)
        return;
    int nans = d->nan.unwritten + d->nan.from_unwritten + d->nan.computed + d->nan.past_end > 0;
    int walked = 0; /* index_hint tried */
    if (nans) {
        grader_nan_hint(&d->nan, count, d->hint, sizeof d->hint);
    } else if (!ex->is_vector) {
        /* the rows with bounds first (11 on): their sizes are the bounds', where a C of zeros is
         * a loop over K's tiles that never ran more often than a sum never stored */
        if (ex->rectangular)
            walked = 1, grader_walk_hint(s, seed, got, expected, tol, d->hint, sizeof d->hint);
        /* (the patterns are a square product's; a rectangular C gets the counts alone) */
        if (!d->hint[0] && s.m == s.n && s.k == s.n)
            matrix_hint(ex, s.n, seed, got, expected, tol, d);
    }
    /* how A and B are walked, for any shape: said alone where nothing else matched, after the
     * NaN counts where those name reads past A or B (a row length too long reads past them) */
    if (!ex->is_vector && !walked &&
        (!d->hint[0] || d->nan.past_end + d->nan.computed + d->nan.from_unwritten > 0)) {
        char more[sizeof d->hint];
        if (grader_walk_hint(s, seed, got, expected, tol, more, sizeof more)) {
            size_t used = strlen(d->hint);
            snprintf(d->hint + used, sizeof d->hint - used, "%s%s", used ? "; " : "", more);
        }
    }
    if (!d->hint[0] && ex->wrong_everywhere_hint && d->m.wrong * 10 >= count * 9)
        snprintf(d->hint, sizeof d->hint, "%s", ex->wrong_everywhere_hint);
}

/* Describe a wrong output: first wrong element, how many, the hint. */
void grader_describe_wrong(const struct grader_exercise *ex, struct grader_size s,
                           const struct grader_diagnosis *d, char *buf, size_t size) {
    size_t count = grader_output_count(ex, s), n = (size_t)s.n;
    int used;
    if (ex->is_vector)
        used = snprintf(buf, size,
                        "%zu of %zu elements wrong; first c[%zu]: expected %.7g, got "
                        "%.7g",
                        d->m.wrong, count, d->m.first, d->m.expected, (double)d->m.got);
    else
        used = snprintf(
            buf, size, "%zu of %zu elements wrong; first C(%zu,%zu): expected %.7g, got %.7g",
            d->m.wrong, count, d->m.first / n, d->m.first % n, d->m.expected, (double)d->m.got);
    if (d->hint[0] && used > 0 && (size_t)used < size)
        snprintf(buf + used, size - (size_t)used, "\nhint: %s", d->hint);
}
