/* row.c - what a row of the exercise table says once asked (exercise.h): its buffers' sizes and
 * work at a size, which sizes it takes, its variants' build options, its hidden, host and memory
 * check sizes, its tuning values as text and its points. The rows themselves are table.c's.
 */
#include "exercise/exercise.h"
#include "exercise/protocol.h"

#include <stdio.h>
#include <ctype.h>
#include <string.h>
#include <strings.h>

size_t grader_output_count(const struct grader_exercise *ex, struct grader_size s) {
    return ex->is_vector ? (size_t)s.n : (size_t)s.m * (size_t)s.n;
}

static size_t whole_tiles(int x) {
    return ((size_t)x + GUARD_TILE - 1) / GUARD_TILE * GUARD_TILE;
}

/* the guard after a rows x cols matrix (the last index of a padded grid: i * C + j < R' C' for
 * i < R', j < C', C <= C') */
static size_t guard_after(int rows, int cols) {
    size_t r = whole_tiles(rows), c = whole_tiles(cols);
    size_t past = r * c + r + c - (size_t)rows * (size_t)cols;
    return past > HARNESS_GUARD ? past : HARNESS_GUARD;
}

size_t grader_guard_count(const struct grader_exercise *ex, struct grader_size s) {
    return ex->is_vector ? HARNESS_GUARD : guard_after(s.m, s.n);
}

size_t grader_input_guard(const struct grader_exercise *ex, struct grader_size s, int which) {
    if (ex->is_vector)
        return HARNESS_GUARD;
    return which == 0 ? guard_after(s.m, s.k) : guard_after(s.k, s.n);
}

size_t grader_a_count(const struct grader_exercise *ex, struct grader_size s) {
    return ex->is_vector ? (size_t)s.n : (size_t)s.m * (size_t)s.k;
}

size_t grader_b_count(const struct grader_exercise *ex, struct grader_size s) {
    return ex->is_vector ? (size_t)s.n : (size_t)s.k * (size_t)s.n;
}

double grader_flops(const struct grader_exercise *ex, struct grader_size s) {
    return ex->is_vector ? (double)s.n : 2.0 * (double)s.m * (double)s.n * (double)s.k;
}

int grader_size_valid_at(const struct grader_exercise *ex, int check, int n) {
    if (n < 1 || (ex->max_n > 0 && n > ex->max_n))
        return 0;
    struct grader_variant v = grader_variant_of(ex, 0, check);
    for (int i = 0; i < 4 && ex->multiple_of[i]; i++) {
        int step = grader_variant_value(&v, ex->multiple_of[i]);
        if (step > 1 && n % step != 0)
            return 0;
    }
    return ex->multiple <= 1 || n % ex->multiple == 0;
}

int grader_size_valid(const struct grader_exercise *ex, int n) {
    return grader_size_valid_at(ex, 0, n);
}

struct grader_variant grader_variant_of(const struct grader_exercise *ex, int block, int check) {
    struct grader_variant v = {block > 0 ? block : ex->block, NULL};
    if (ex->tuning[0].name)
        v.tuning = check && ex->check_tuning[0].name ? ex->check_tuning : ex->tuning;
    return v;
}

int grader_variant_value(const struct grader_variant *v, const char *name) {
    for (int t = 0; v->tuning && name && t < CLU_MAX_DEFINES && v->tuning[t].name; t++)
        if (strcmp(v->tuning[t].name, name) == 0)
            return v->tuning[t].value;
    return 0;
}

void grader_build_options(const struct grader_variant *v, char *buf, size_t size) {
    if (!v->tuning) {
        snprintf(buf, size, "-DBLOCK=%d", v->block);
        return;
    }
    size_t used = 0;
    buf[0] = '\0';
    for (int t = 0; t < CLU_MAX_DEFINES && v->tuning[t].name && used < size; t++)
        used += (size_t)snprintf(buf + used, size - used, "%s-D%s=%d", t ? " " : "",
                                 v->tuning[t].name, v->tuning[t].value);
}

void grader_size_text(const struct grader_exercise *ex, struct grader_size s, char *buf,
                      size_t size) {
    if (ex->rectangular)
        snprintf(buf, size, "M x N x K = %d x %d x %d", s.m, s.n, s.k);
    else
        snprintf(buf, size, "N = %d", s.n);
}

int grader_size_count(const struct grader_exercise *ex) {
    int count = 0;
    if (ex->rectangular)
        while (count < GRADER_MAX_SIZES && ex->shapes[count].n)
            count++;
    else
        while (count < GRADER_MAX_SIZES && ex->sizes[count])
            count++;
    return count;
}

struct grader_size grader_hidden_size(const struct grader_exercise *ex, int i) {
    return ex->rectangular ? ex->shapes[i] : grader_square(ex->sizes[i]);
}

struct grader_size grader_memcheck_at(const struct grader_exercise *ex) {
    return ex->memcheck_shape.n > 0 ? ex->memcheck_shape : grader_square(ex->memcheck_n);
}

struct grader_size grader_host_size(const struct grader_exercise *ex) {
    return ex->rectangular ? ex->host_shape : grader_square(ex->host_n);
}

void grader_tuning_text(const struct grader_exercise *ex, char *buf, size_t size) {
    if (!ex->tuning[0].name) {
        snprintf(buf, size, "BLOCK=%d", ex->block);
        return;
    }
    size_t used = 0;
    buf[0] = '\0';
    for (int t = 0; ex->tuning[t].name && used < size; t++)
        used += (size_t)snprintf(buf + used, size - used, "%s%s=%d", t ? " " : "",
                                 ex->tuning[t].name, ex->tuning[t].value);
}

int grader_max_points(const struct grader_exercise *ex) {
    int sizes = grader_size_count(ex);
    int quiz = 0;
    for (int q = 0; q < GRADER_MAX_QUESTIONS && ex->quiz[q].id; q++)
        quiz += ex->quiz[q].points;
    /* the sizes serve the OpenCL kernel (per_size) or the CUDA twin (cuda_per_size) */
    int ratios = 0;
    while (ratios < GRADER_MAX_RATIOS && ex->vendor_ratios[ratios] > 0)
        ratios++;
    return sizes * (ex->points.per_size + ex->cuda_per_size) + ex->points.host +
           ex->points.memcheck + ex->points.perf + ex->points.technique +
           ratios * ex->points.vendor + quiz;
}

/* A square row's memory-check size drawn by seed among the valid sizes from lo to hi (0: none). */
static int memcheck_size_in(const struct grader_exercise *ex, uint64_t seed, int lo, int hi) {
    int around = ex->memcheck_n, candidates[512], count = 0;
    for (int n = lo; n <= hi && count < 512; n++) {
        /* a column of B in local memory needs a work-group of a few items to show: its group is
         * the largest divisor of N up to GRADER_GROUP_LIMIT, so no prime sizes there */
        if (n < 1 || n == around || !grader_size_valid_at(ex, 1, n) ||
            (ex->shape == SHAPE_ROWS_GROUPED && n % 4 != 0))
            continue;
        candidates[count++] = n;
    }
    return count ? candidates[seed % (uint64_t)count] : 0;
}

int grader_memcheck_size(const struct grader_exercise *ex, uint64_t seed) {
    int around = ex->memcheck_n;
    int n = memcheck_size_in(ex, seed, around * 3 / 4, around * 3 / 2);
    return n ? n : around;
}

int grader_technique_large(const struct grader_exercise *ex, uint64_t seed) {
    int around = ex->memcheck_n;
    return ex->rectangular || ex->is_vector || ex->tuning[0].name || ex->points.technique <= 0
               ? 0
               : memcheck_size_in(ex, seed, around * 3 / 2 + 1, around * 2);
}

int grader_memcheck_small(const struct grader_exercise *ex, uint64_t seed) {
    int around = ex->memcheck_n;
    return ex->rectangular || ex->is_vector || ex->tuning[0].name
               ? 0
               : memcheck_size_in(ex, seed, around / 4, around / 2);
}

/* One of a rectangular row's memory-check sizes, from lo to hi, never a multiple of the oclgrind
 * tiles (8): an edge in every one. */
static int memcheck_dimension(uint64_t *state, int lo, int hi) {
    *state = *state * 6364136223846793005ull + 1442695040888963407ull;
    int d = lo + (int)((*state >> 33) % (uint64_t)(hi - lo + 1));
    return d % 8 == 0 ? d + 1 : d;
}

struct grader_size grader_memcheck_shape(const struct grader_exercise *ex, uint64_t seed) {
    if (!ex->rectangular)
        return grader_square(grader_memcheck_size(ex, seed));
    /* M, N and K apart, each from a quarter of memcheck_n to three times it, so that every order
     * of the three comes up (K above and below N, M above N) and a bug hidden at one (a stride of
     * K where N belongs, read while K < N) shows at another; the work within oclgrind's budget,
     * M x N x K at most the cube of 3/2 memcheck_n (the most the window from 3/4 to 3/2 of it
     * drew before: 42^3 for 11 and 13) */
    int n = ex->memcheck_n, lo = n / 4 > 1 ? n / 4 : 1, hi = 3 * n, cube = n * 3 / 2;
    double budget = (double)cube * cube * cube;
    for (int tries = 0; tries < 256; tries++) {
        struct grader_size z;
        z.m = memcheck_dimension(&seed, lo, hi);
        z.n = memcheck_dimension(&seed, lo, hi);
        z.k = memcheck_dimension(&seed, lo, hi);
        if ((double)z.m * z.n * z.k <= budget)
            return z;
    }
    int side = cube % 8 ? cube : cube - 1; /* (about one draw in three fits: not reached) */
    return (struct grader_size){side, side, side};
}

void grader_list_exercises(FILE *out) {
    for (int i = 0; i < grader_exercise_count; i++) {
        const struct grader_exercise *ex = &grader_exercises[i];
        fprintf(out, "%s\t%s\t%d\t%s\t%s\n", ex->id,
                !ex->kernel     ? "no-opencl"
                : ex->is_vector ? "vector"
                                : "matrix",
                grader_max_points(ex), ex->needs_extension ? ex->needs_extension : "-", ex->title);
    }
}

void grader_exercise_range(char *buf, size_t size) {
    const char *first = grader_exercises[0].id, *last = first;
    for (int i = 1; i < grader_exercise_count; i++) {
        if (strcmp(grader_exercises[i].id, first) < 0)
            first = grader_exercises[i].id;
        if (strcmp(grader_exercises[i].id, last) > 0)
            last = grader_exercises[i].id;
    }
    snprintf(buf, size, "%s to %s", first, last);
}
