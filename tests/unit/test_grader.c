/* test_grader.c - unit tests (cmocka) of the grader: the exercise table, the sandboxed runner, the
 * capped reader, the JSON writer and the checks with their hints (the technique's verdict, the
 * kernel's signature, a timeout against the reference's time).
 *
 * Every test draws its inputs (sizes, seeds, strings, positions) from a seed chosen at run time
 * and printed at the start and in every failure; set TEST_GRADER_SEED=<seed> to repeat a run.
 * Built and run by tests/run.sh (with every grader source but main.c).
 */
#define _GNU_SOURCE /* prctl, kill, mkdtemp, strcasestr */
#include "grader.h"
#include "exercise/protocol.h"
#include "exercise/tuning.h"
#include "grade/internal.h" /* grade_test_technique */

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

/* ---------------------------------------------------------------- seeds, checks, temp files */

#include "testkit.h"

static char g_tmp[64];

static double rng_unit(struct rng *r) {
    return (double)(rng_next(r) >> 11) * (1.0 / 9007199254740992.0);
}

static void tmp_path(char *buf, size_t size, const char *name) {
    snprintf(buf, size, "%s/%s", g_tmp, name);
}

static void write_file(const char *path, const char *data, size_t length) {
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL, "cannot write %s: %s", path, strerror(errno));
    CHECK(fwrite(data, 1, length, f) == length, "short write to %s", path);
    CHECK(fclose(f) == 0, "cannot close %s", path);
}

/* Whole file, NUL-terminated; NULL if missing (the library's reader). */
static char *slurp(const char *path, size_t *length) {
    return clu_read_file(path, length);
}

/* Output of a shell command (binary-safe length in *length); exit status in *status. */
static char *command_output(const char *cmd, size_t *length, int *status) {
    FILE *p = popen(cmd, "r");
    CHECK(p != NULL, "popen %s: %s", cmd, strerror(errno));
    size_t cap = 4096, used = 0, got;
    char *buf = malloc(cap);
    CHECK(buf != NULL, "out of memory");
    while ((got = fread(buf + used, 1, cap - used - 1, p)) > 0) {
        used += got;
        if (cap - used < 2) {
            buf = realloc(buf, cap *= 2);
            CHECK(buf != NULL, "out of memory");
        }
    }
    buf[used] = '\0';
    *status = pclose(p);
    if (length)
        *length = used;
    return buf;
}

/* jq -j FILTER FILE: the filter's value, raw, without a trailing newline. */
static char *jq(const char *filter, const char *file) {
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "jq -j '%s' '%s' 2>&1", filter, file);
    int status;
    char *out = command_output(cmd, NULL, &status);
    CHECK(status == 0, "`%s` failed (status %d): %s", cmd, status, out);
    return out;
}

static int group_setup(void **state) {
    (void)state;
    if (testkit_start("test_grader", "TEST_GRADER_SEED", g_tmp, sizeof g_tmp) != 0)
        return -1;
    /* Orphaned grandchildren of the runner's children come back to us, so that a test can reap
     * them and see how they ended instead of guessing from a zombie. */
    prctl(PR_SET_CHILD_SUBREAPER, 1);
    return 0;
}

static int group_teardown(void **state) {
    (void)state;
    grader_remove_tree(g_tmp);
    /* reap anything that ended while we were its subreaper */
    while (waitpid(-1, NULL, WNOHANG) > 0)
        ;
    return 0;
}

/* ---------------------------------------------------------------- the exercise table */

static int sizes_of(const struct grader_exercise *ex) {
    return grader_size_count(ex);
}

static int is_power_of_two(int n) {
    return n > 0 && (n & (n - 1)) == 0;
}

static void test_table_sizes(void **state) {
    (void)state;
    CHECK(grader_exercise_count > 0, "the table is empty");
    for (int e = 0; e < grader_exercise_count; e++) {
        const struct grader_exercise *ex = &grader_exercises[e];
        int count = sizes_of(ex), odd = 0, not_16 = 0;
        CHECK(count > 0, "%s has no correctness size", ex->id);
        if (ex->rectangular) { /* M x N x K: sizes of 1, odd ones, and no dimension alike */
            int ones = 0, uneven = 0;
            for (int s = 0; s < count; s++) {
                struct grader_size z = grader_hidden_size(ex, s);
                CHECK(z.m > 0 && z.n > 0 && z.k > 0, "%s: size %d", ex->id, s);
                ones += z.m == 1 || z.n == 1 || z.k == 1;
                uneven += z.m != z.n && z.n != z.k && z.m % 16 && z.n % 16 && z.k % 16;
            }
            CHECK(ones > 0 && uneven > 0, "%s: no size of 1 or none uneven", ex->id);
            continue;
        }
        for (int s = 0; s < count; s++) {
            int n = ex->sizes[s];
            CHECK(grader_size_valid(ex, n), "%s: hidden size %d is not valid", ex->id, n);
            odd += !is_power_of_two(n);
            not_16 += n % 16 != 0;
            for (int t = 0; t < s; t++)
                CHECK(ex->sizes[t] != n, "%s: size %d twice", ex->id, n);
        }
        CHECK(odd > 0, "%s: every hidden size is a power of two", ex->id);
        if (!ex->is_vector && ex->multiple == 1 && !ex->multiple_of[0])
            CHECK(not_16 > 0, "%s allows any N but every hidden size is a multiple of 16", ex->id);
        if (ex->kernel) { /* rows without an OpenCL kernel have no host or memory check */
            CHECK(grader_size_valid(ex, ex->host_n), "%s: host_n %d", ex->id, ex->host_n);
            CHECK(grader_size_valid_at(ex, 1, ex->memcheck_n), "%s: memcheck_n %d", ex->id,
                  ex->memcheck_n);
        }
        CHECK(grader_size_valid(ex, ex->perf_n), "%s: perf_n %d", ex->id, ex->perf_n);
        if (ex->shape == SHAPE_TILES)
            CHECK(ex->block > 0 && ex->multiple % ex->block == 0,
                  "%s: tiles of %d but sizes multiples of %d", ex->id, ex->block, ex->multiple);
    }
}

static void test_table_size_valid_rule(void **state) {
    (void)state;
    struct rng r = rng_for("size_valid");
    for (int e = 0; e < grader_exercise_count; e++) {
        const struct grader_exercise *ex = &grader_exercises[e];
        CHECK(!grader_size_valid(ex, 0), "%s: N = 0 valid", ex->id);
        CHECK(!grader_size_valid(ex, -(int)rng_range(&r, 1, 1000)), "%s: negative N valid", ex->id);
        if (ex->max_n > 0) {
            CHECK(!grader_size_valid(ex, ex->max_n + ex->multiple), "%s: above max_n valid",
                  ex->id);
            CHECK(grader_size_valid(ex, ex->max_n), "%s: max_n %d itself invalid", ex->id,
                  ex->max_n);
        }
        for (int i = 0; i < 200; i++) {
            int n = (int)rng_range(&r, 1, ex->max_n > 0 ? ex->max_n : 5000);
            int want = ex->multiple <= 1 || n % ex->multiple == 0;
            for (int m = 0; m < 4 && ex->multiple_of[m]; m++)
                for (int t = 0; ex->tuning[t].name; t++)
                    if (!strcmp(ex->tuning[t].name, ex->multiple_of[m]))
                        want &= n % ex->tuning[t].value == 0;
            CHECK(grader_size_valid(ex, n) == want, "%s: grader_size_valid(%d) = %d, expected %d",
                  ex->id, n, grader_size_valid(ex, n), want);
        }
    }
}

static void test_table_max_points(void **state) {
    (void)state;
    for (int e = 0; e < grader_exercise_count; e++) {
        const struct grader_exercise *ex = &grader_exercises[e];
        const struct grader_points *p = &ex->points;
        /* an OpenCL exercise scores its sizes; one without a kernel its quiz or CUDA twin */
        CHECK(ex->kernel ? p->per_size > 0 : ex->quiz[0].id || ex->cuda_per_size > 0,
              "%s: nothing scores", ex->id);
        CHECK(p->per_size >= 0 && p->host >= 0 && p->memcheck >= 0 && p->perf >= 0,
              "%s: points %d %d %d %d", ex->id, p->per_size, p->host, p->memcheck, p->perf);
        int sum = p->host + p->memcheck + p->perf + p->technique;
        for (int v = 0; v < GRADER_MAX_RATIOS && ex->vendor_ratios[v] > 0; v++)
            sum += p->vendor;
        for (int s = 0; s < sizes_of(ex); s++)
            sum += p->per_size + ex->cuda_per_size;
        for (int q = 0; q < GRADER_MAX_QUESTIONS && ex->quiz[q].id; q++) {
            CHECK(ex->quiz[q].points > 0, "%s: question %s worth %d", ex->id, ex->quiz[q].id,
                  ex->quiz[q].points);
            sum += ex->quiz[q].points;
        }
        CHECK(grader_max_points(ex) == sum, "%s: grader_max_points %d, parts sum to %d", ex->id,
              grader_max_points(ex), sum);
    }
}

/* The advanced track's rows: the oclgrind values name the defaults' values, and at every hidden
 * size (and the memory check's) the geometry covers C in whole work-groups of both. */
static void test_table_tuning(void **state) {
    (void)state;
    struct rng r = rng_for("tuning");
    for (int e = 0; e < grader_exercise_count; e++) {
        const struct grader_exercise *ex = &grader_exercises[e];
        if (!ex->tuning[0].name)
            continue;
        CHECK(ex->shape == SHAPE_C_TILES && ex->c_tile[0] && ex->c_tile[1], "%s: shape", ex->id);
        for (int t = 0; ex->check_tuning[t].name; t++)
            CHECK(!strcmp(ex->check_tuning[t].name, ex->tuning[t].name), "%s: %s in the check",
                  ex->id, ex->check_tuning[t].name);
        for (int check = 0; check < 2; check++) {
            struct grader_variant v = grader_variant_of(ex, 0, check);
            for (int s = -1; s < sizes_of(ex); s++) {
                struct grader_size z =
                    s < 0 ? grader_memcheck_shape(ex, rng_next(&r)) : grader_hidden_size(ex, s);
                struct grader_launch l;
                CHECK(grader_plan_launch(ex, NULL, z, &v, &l) == 0, "%s: no plan", ex->id);
                size_t extent[2] = {(size_t)z.n, (size_t)z.m};
                for (int d = 0; d < 2; d++) {
                    int share = ex->per_item[d] ? grader_variant_value(&v, ex->per_item[d]) : 1;
                    CHECK(l.global[d] % l.local[d] == 0, "%s: global %zu, local %zu", ex->id,
                          l.global[d], l.local[d]);
                    CHECK(l.global[d] * (size_t)share >= extent[d] &&
                              l.global[d] * (size_t)share < extent[d] + l.local[d] * share,
                          "%s: %zu items x %d for %zu", ex->id, l.global[d], share, extent[d]);
                }
            }
        }
    }
}

/* The CUDA twins' rows: the row a twin is timed beside has an OpenCL kernel; a twin with tuning
 * values overrides only values the row has, and with them its launch fits at every hidden size
 * and at its timing size (the CUDA harness takes the same geometry, block for work-group). */
static void test_table_cuda_twins(void **state) {
    (void)state;
    int twins = 0;
    for (int e = 0; e < grader_exercise_count; e++) {
        const struct grader_exercise *ex = &grader_exercises[e];
        if (!ex->cuda_per_size)
            continue;
        twins++;
        const struct grader_exercise *beside =
            grader_find_exercise(ex->cuda_beside ? ex->cuda_beside : ex->id);
        CHECK(beside && beside->kernel, "%s: timed beside %s, which has no OpenCL kernel", ex->id,
              ex->cuda_beside ? ex->cuda_beside : ex->id);
        CHECK(!ex->cuda_tuning[0].name || ex->tuning[0].name, "%s: CUDA values without tuning",
              ex->id);
        struct grader_values values = grader_values_default(ex);
        for (int o = 0; ex->cuda_tuning[o].name; o++) {
            int found = 0;
            for (int v = 0; values.v[v].name; v++)
                if (!strcmp(values.v[v].name, ex->cuda_tuning[o].name)) {
                    values.v[v].value = ex->cuda_tuning[o].value;
                    found = 1;
                }
            CHECK(found, "%s: cuda_tuning names %s, which the row lacks", ex->id,
                  ex->cuda_tuning[o].name);
        }
        if (!ex->tuning[0].name)
            continue;
        int perf_n = ex->cuda_perf_n > 0 ? ex->cuda_perf_n : ex->perf_n;
        for (int s = 0; s <= sizes_of(ex); s++) {
            struct grader_size z =
                s < sizes_of(ex) ? grader_hidden_size(ex, s) : grader_square(perf_n);
            char why[200];
            CHECK(grader_values_fit(ex, &values, z.n, 1024, why, sizeof why),
                  "%s: the twin's values at N = %d: %s", ex->id, z.n, why);
        }
    }
    CHECK(twins >= 2, "%d rows with a CUDA twin (06 and the capstone have one)", twins);
}

/* The memory check's shapes of a rectangular row over many seeds: each within its range and
 * oclgrind's budget, never a multiple of 8, the same for the same seed; and between them every
 * order of M, N and K, and sizes outside the window of 3/4 to 3/2 of memcheck_n that the
 * documentation once printed, on both sides. */
static void memcheck_shapes(const struct grader_exercise *rect, struct rng *r) {
    /* (how often K > N, K < N, M > N, M < N, M > K and M < K came up) */
    int n = rect->memcheck_n, cube = n * 3 / 2, orders[6] = {0}, below = 0, above = 0;
    for (int i = 0; i < 400; i++) {
        uint64_t seed = rng_next(r);
        struct grader_size z = grader_memcheck_shape(rect, seed),
                           again = grader_memcheck_shape(rect, seed);
        CHECK(z.m == again.m && z.n == again.n && z.k == again.k, "one seed, two shapes");
        int d[3] = {z.m, z.n, z.k};
        for (int j = 0; j < 3; j++) {
            CHECK(d[j] >= n / 4 && d[j] <= 3 * n + 1 && d[j] % 8 != 0,
                  "memcheck shape %d x %d x %d", z.m, z.n, z.k);
            below += d[j] < n * 3 / 4;
            above += d[j] > cube;
        }
        CHECK((double)z.m * z.n * z.k <= (double)cube * cube * cube,
              "memcheck shape %d x %d x %d over the budget", z.m, z.n, z.k);
        orders[0] += z.k > z.n, orders[1] += z.k<z.n, orders[2] += z.m> z.n;
        orders[3] += z.m<z.n, orders[4] += z.m> z.k, orders[5] += z.m < z.k;
    }
    for (int o = 0; o < 6; o++)
        CHECK(orders[o] > 0, "order %d of M, N and K (K > N, K < N, M > N, ...) never drawn", o);
    CHECK(below > 0 && above > 0, "%d sizes under 3/4 of memcheck_n, %d over 3/2", below, above);
}

/* The memory check's second size of every square matrix row without tuning values (01 to 05):
 * over many seeds each is valid, from a quarter to half of memcheck_n, so below the window of the
 * first draw (3/4 to 3/2 of it), the same for the same seed, and more than one comes up; a row
 * whose one draw spans both sides (rectangular) or a vector has none. Its build runs last, so
 * that the memory check runs it first (builds.c). The technique's second size (03 to 05): valid,
 * above the window, up to twice memcheck_n; none elsewhere. */
static void test_memcheck_second_size(void **state) {
    (void)state;
    struct rng r = rng_for("memcheck second size");
    int rows = 0, techniques = 0;
    for (int e = 0; e < grader_exercise_count; e++) {
        const struct grader_exercise *ex = &grader_exercises[e];
        if (!ex->kernel)
            continue;
        int n = ex->memcheck_n, seen[512] = {0}, distinct = 0;
        for (int i = 0; i < 200; i++) {
            uint64_t seed = rng_next(&r);
            int small = grader_memcheck_small(ex, seed), large = grader_technique_large(ex, seed);
            CHECK(small == grader_memcheck_small(ex, seed), "%s: one seed, two sizes", ex->id);
            if (ex->points.technique > 0 && !ex->rectangular && !ex->tuning[0].name) {
                CHECK(large > n * 3 / 2 && large <= 2 * n &&
                          large > grader_memcheck_size(ex, seed) &&
                          grader_size_valid_at(ex, 1, large),
                      "%s: the technique's second size %d (memcheck_n %d)", ex->id, large, n);
                techniques += i == 0;
            } else
                CHECK(large == 0, "%s: a technique size %d without a window row's point", ex->id,
                      large);
            if (ex->rectangular || ex->is_vector) {
                CHECK(small == 0, "%s: a second size %d where the one draw spans both sides",
                      ex->id, small);
                continue;
            }
            if (small == 0)
                continue;
            CHECK(small >= n / 4 && small <= n / 2 && small < grader_memcheck_size(ex, seed) &&
                      grader_size_valid_at(ex, 1, small),
                  "%s: second size %d (memcheck_n %d)", ex->id, small, n);
            distinct += small < 512 && !seen[small]++;
        }
        if (!ex->rectangular && !ex->is_vector && !ex->tuning[0].name) {
            rows++;
            CHECK(distinct >= 1, "%s: no second size drawn", ex->id);
            CHECK(distinct >= 2 || n / 2 - n / 4 < 4 * ex->multiple,
                  "%s: always the same second size", ex->id);
            struct grader_exercise drawn = *ex;
            drawn.memcheck_n = grader_memcheck_size(ex, 7);
            drawn.memcheck_shape = grader_square(drawn.memcheck_n);
            drawn.memcheck_small = grader_memcheck_small(ex, 8);
            drawn.technique_large = grader_technique_large(ex, 9);
            struct grade_builds builds;
            grade_oclgrind_builds(&drawn, "k.cl", "k.cl", NULL, &builds);
            int third = drawn.technique_large > 0; /* every size the technique is counted at */
            CHECK(builds.count == 2 + third &&
                      builds.b[builds.count - 1].row.memcheck_n == drawn.memcheck_small &&
                      builds.b[0].row.memcheck_n == drawn.memcheck_n &&
                      (!third || builds.b[1].row.memcheck_n == drawn.technique_large),
                  "%s: %d builds, the last at N = %d (the second size %d, the technique's %d)",
                  ex->id, builds.count, builds.b[builds.count - 1].row.memcheck_n,
                  drawn.memcheck_small, drawn.technique_large);
            /* the memory check's order: the smallest first, the technique's draw last */
            int order[GRADE_BUILDS];
            grade_builds_by_size(&builds, order);
            CHECK(builds.b[order[0]].row.memcheck_n == drawn.memcheck_small &&
                      builds.b[order[builds.count - 1]].row.memcheck_n ==
                          (third ? drawn.technique_large : drawn.memcheck_n),
                  "%s: the memory check's order starts at N = %d, ends at N = %d", ex->id,
                  builds.b[order[0]].row.memcheck_n,
                  builds.b[order[builds.count - 1]].row.memcheck_n);
        }
    }
    CHECK(rows >= 4, "%d square rows without tuning values have a second size", rows);
    CHECK(techniques >= 3, "%d rows (03 to 05) count the technique at a second size", techniques);
}

/* Rectangular sizes: their seeds differ when the sizes are only swapped, the memory check's
 * shape is drawn apart (memcheck_shapes), and Freivalds' check takes M x K times K x N. */
static void test_rectangular_sizes(void **state) {
    (void)state;
    struct rng r = rng_for("rectangular");
    const struct grader_exercise *rect = NULL;
    for (int e = 0; e < grader_exercise_count; e++)
        if (grader_exercises[e].rectangular)
            rect = &grader_exercises[e];
    CHECK(rect != NULL, "no rectangular row");
    for (int i = 0; i < 50; i++) {
        uint64_t hidden = rng_next(&r);
        int m = (int)rng_range(&r, 1, 300), n = (int)rng_range(&r, 1, 300);
        int k = (int)rng_range(&r, 1, 300);
        if (m == k)
            k++;
        CHECK(grader_seed_for(hidden, rect, (struct grader_size){m, n, k}) !=
                  grader_seed_for(hidden, rect, (struct grader_size){k, n, m}),
              "swapped sizes share a seed");
    }
    memcheck_shapes(rect, &r);
    /* (the last four in several parts on threads: many rows of C, then many rows of B) */
    for (int i = 0; i < 14; i++) {
        struct grader_size z = {(int)rng_range(&r, 1, 70), (int)rng_range(&r, 1, 70),
                                (int)rng_range(&r, 1, 70)};
        if (i >= 10) {
            z.n = (int)rng_range(&r, 100, 300);
            z.k = i % 2 ? (int)rng_range(&r, 1, 6) : (int)rng_range(&r, 8000, 12000);
            z.m = i % 2 ? (int)rng_range(&r, 8000, 12000) : (int)rng_range(&r, 1, 6);
        }
        size_t mk = (size_t)z.m * z.k, kn = (size_t)z.k * z.n, mn = (size_t)z.m * z.n;
        float *a = malloc(mk * sizeof *a), *b = malloc(kn * sizeof *b), *c = malloc(mn * sizeof *c);
        double *ref = malloc(mn * sizeof *ref);
        CHECK(a && b && c && ref, "out of memory");
        uint64_t seed = rng_next(&r);
        clu_random_fill(a, mk, seed, 0);
        clu_random_fill(b, kn, seed, 1);
        clu_ref_gemm(z.m, z.n, z.k, a, b, ref, NULL);
        for (size_t x = 0; x < mn; x++)
            c[x] = (float)ref[x];
        CHECK(grader_freivalds(z, a, b, c, seed) == 0, "%d x %d x %d: right C refused", z.m, z.n,
              z.k);
        CHECK(grader_freivalds_drawn(z, seed, c, seed) == 0,
              "%d x %d x %d: right C refused with A and B drawn", z.m, z.n, z.k);
        /* (a row's bound grows with K: over 1000 at K = 10000, so an error of 1e5 there) */
        c[rng_range(&r, 0, mn - 1)] += z.k > 1000 ? 1e5f : 0.5f;
        size_t got_rows = grader_freivalds(z, a, b, c, seed);
        CHECK(got_rows == 1, "%d x %d x %d: %zu rows found wrong, not the one", z.m, z.n, z.k,
              got_rows);
        got_rows = grader_freivalds_drawn(z, seed, c, seed);
        CHECK(got_rows == 1, "%d x %d x %d: %zu rows found wrong with A and B drawn, not the one",
              z.m, z.n, z.k, got_rows);
        /* drawn with other inputs, the right C is wrong: the draw is the seed's */
        CHECK(grader_freivalds_drawn(z, seed ^ 1, c, seed) > 0,
              "%d x %d x %d: C of other inputs passes", z.m, z.n, z.k);
        free(a), free(b), free(c), free(ref);
    }
}

/* The reference's pace kept in the cache folder: read back exactly for the same device, size,
 * build values and reference text, and for no other; never a pace too long to grow N, a file
 * not written whole, or without a cache folder. */
static void test_pace_cache(void **state) {
    (void)state;
    struct rng r = rng_for("pace");
    char dir[] = "/tmp/test-pace-XXXXXX", cache[64], reference[64];
    CHECK(mkdtemp(dir) != NULL, "mkdtemp: %s", strerror(errno));
    snprintf(cache, sizeof cache, "%s/cache", dir); /* (made by the first keep) */
    snprintf(reference, sizeof reference, "%s/kernel.cl", dir);
    FILE *f = fopen(reference, "w");
    CHECK(f &&
              fprintf(f, "__kernel void k(void) { /* %llx */ }\n",
                      (unsigned long long)rng_next(&r)) > 0 &&
              fclose(f) == 0,
          "writing the reference");
    struct grader_config cfg = {.cache = cache, .device = "nvidia", .device_name = "H200"};
    struct grader_exercise rx = *grader_find_exercise("05");
    rx.perf_n = 256 * (int)rng_range(&r, 1, 4);
    CHECK(grade_pace_kept(&cfg, &rx, reference) == 0.0, "a pace before any was kept");
    double seconds = (double)rng_range(&r, 1, 19999) * 1e-6;
    grade_pace_keep(&cfg, &rx, reference, seconds);
    CHECK(grade_pace_kept(&cfg, &rx, reference) == seconds, "kept %.17g, read %.17g", seconds,
          grade_pace_kept(&cfg, &rx, reference));
    struct grader_config other = cfg;
    other.device_name = "H100";
    CHECK(grade_pace_kept(&other, &rx, reference) == 0.0, "another device's pace");
    other = cfg;
    other.cache = NULL;
    CHECK(grade_pace_kept(&other, &rx, reference) == 0.0, "a pace without a cache folder");
    struct grader_exercise bigger = rx;
    bigger.perf_n *= 2;
    CHECK(grade_pace_kept(&cfg, &bigger, reference) == 0.0, "another size's pace");
    f = fopen(reference, "a");
    CHECK(f && fputs("/* changed */\n", f) >= 0 && fclose(f) == 0, "changing the reference");
    CHECK(grade_pace_kept(&cfg, &rx, reference) == 0.0, "a changed reference's pace");
    /* a pace of 20 ms or more grows nothing: never taken from the cache */
    grade_pace_keep(&cfg, &rx, reference, 0.02 + (double)rng_range(&r, 0, 1000) * 1e-3);
    CHECK(grade_pace_kept(&cfg, &rx, reference) == 0.0, "a pace of 20 ms or more");
    /* a file cut short, or of another format: none */
    grade_pace_keep(&cfg, &rx, reference, seconds);
    CHECK(grade_pace_kept(&cfg, &rx, reference) == seconds, "kept again");
    char command[256];
    snprintf(command, sizeof command, "for f in %s/pace-*; do printf 'pace 2 0.001' >\"$f\"; done",
             cache);
    CHECK(system(command) == 0, "%s", command);
    CHECK(grade_pace_kept(&cfg, &rx, reference) == 0.0, "a pace of another format");
    snprintf(command, sizeof command, "for f in %s/pace-*; do printf 'pace' >\"$f\"; done", cache);
    CHECK(system(command) == 0, "%s", command);
    CHECK(grade_pace_kept(&cfg, &rx, reference) == 0.0, "a file cut short");
    snprintf(command, sizeof command, "rm -rf %s", dir);
    CHECK(system(command) == 0, "%s", command);
}

/* A row with a technique bound has the words that say what missing it means. */
static void test_table_technique_misses(void **state) {
    (void)state;
    for (int e = 0; e < grader_exercise_count; e++) {
        const struct grader_technique *t = &grader_exercises[e].technique;
        if (grader_exercises[e].points.technique <= 0)
            continue;
        CHECK(t->max_global_loads > 0 || t->min_local_loads > 0, "%s: a technique without a bound",
              grader_exercises[e].id);
        CHECK(t->max_global_loads <= 0 || (t->global_miss && t->global_miss[0]),
              "%s: a global bound without global_miss", grader_exercises[e].id);
        CHECK(t->min_local_loads <= 0 || (t->local_miss && t->local_miss[0]),
              "%s: a local bound without local_miss", grader_exercises[e].id);
    }
}

/* The technique's verdict on counted loads: the figures, the bound missed and the operand it
 * names; a column of B read from global memory in step 04 is one miss (B), not also A's. */
static void test_technique_names_the_operand(void **state) {
    (void)state;
    struct rng r = rng_for("technique");
    const struct {
        const char *id;
        double global, local;
        int score;
        const char *has, *lacks; /* in the output ("" / NULL: nothing) */
    } cases[] = {
        {"03", 1.0, 0.0, 1, "global 1.0", "hint"},
        {"03", 2.0, 0.0, 0, "global loads per multiply-add 2.0", "local loads per"},
        {"04", 0.1, 1.0, 1, "local 1.0", "hint"},
        {"04", 1.05, 1.0, 0, "A is read from global memory", "B is not read"},
        {"04", 1.05, 0.0, 0, "B is not read through local memory", "A is read"},
        {"04", 2.05, 0.0, 0, "the missing local loads explain: A is read", NULL},
        {"05", 1.1, 1.0, 0, "local loads per multiply-add 1.0", "global loads per"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        struct grader_exercise ex = *grader_find_exercise(cases[c].id);
        ex.memcheck_n = (int)rng_range(&r, 16, 40);
        /* a little off the round figure, as a kernel's 1/N terms make it */
        double jitter = (double)rng_range(&r, 0, 40) / 1000.0;
        struct grader_traffic got = {.global_loads = cases[c].global + jitter,
                                     .local_loads = cases[c].local + jitter / 4,
                                     .n = ex.memcheck_n};
        if (cases[c].score) /* a pass stays one within its bound */
            got.global_loads = cases[c].global;
        struct grader_exercise_result res = {.ex = &ex};
        grade_test_technique(&ex, 1, &got, &res);
        const struct grader_test *t = &res.tests[0];
        CHECK(res.test_count == 1 && t->score == cases[c].score, "%s at %.3f / %.3f: score %d",
              ex.id, got.global_loads, got.local_loads, t->score);
        CHECK(strstr(t->output, cases[c].has), "%s at %.3f / %.3f: no \"%s\" in\n%s", ex.id,
              got.global_loads, got.local_loads, cases[c].has, t->output);
        CHECK(!cases[c].lacks || !strstr(t->output, cases[c].lacks),
              "%s at %.3f / %.3f: \"%s\" in\n%s", ex.id, got.global_loads, got.local_loads,
              cases[c].lacks, t->output);
        grader_free_result(&res);
    }
}

/* The tiles plugin's line: per work-group, the fewer of its two tile counts; no line, a line of
 * another launch or a broken line is no count. */
static void test_tiles_parse(void **state) {
    (void)state;
    struct rng r = rng_for("tiles");
    for (int trial = 0; trial < 20; trial++) {
        unsigned groups = (unsigned)rng_range(&r, 1, 64);
        double tiles = (double)rng_range(&r, 1, 16), more = tiles + (double)rng_range(&r, 0, 9);
        double barriers = tiles * (double)rng_range(&r, 1, 3);
        int loads_fewer = (int)rng_range(&r, 0, 1);
        char text[400];
        snprintf(text, sizeof text, "oclgrind said something\ngrader-tiles %u %.17g %.17g %.17g\n",
                 groups, barriers * groups, (loads_fewer ? tiles : more) * groups,
                 (loads_fewer ? more : tiles) * groups);
        struct grader_traffic t = {0};
        CHECK(grader_tiles_parse(text, &t) == 0, "refused: %s (%s)", text, t.why);
        CHECK(fabs(t.barriers - barriers) < 1e-9 && fabs(t.tiles - tiles) < 1e-9,
              "%s: barriers %g tiles %g, expected %g and %g", text, t.barriers, t.tiles, barriers,
              tiles);
    }
    const char *refused[] = {"",
                             "grader-tiles 1 4 4 4\ngrader-tiles 1 4 4 4\n",
                             "grader-tiles 0 4 4 4\n",
                             "grader-tiles 1 4 4\n",
                             "grader-tiles 1 -4 4 4\n",
                             "grader-tiles 1 nan 4 4\n",
                             "Grader-tiles 1 4 4 4\n"};
    for (size_t c = 0; c < sizeof refused / sizeof refused[0]; c++) {
        struct grader_traffic t = {0};
        CHECK(grader_tiles_parse(refused[c], &t) != 0 && t.why[0], "accepted \"%s\"", refused[c]);
    }
}

/* 10's barriers per tile are the plugin's barriers over the tiles the kernel really takes, and
 * nothing of TSK: the same counts give the same verdict whatever its tuning values. */
static void test_technique_barriers_per_tile(void **state) {
    (void)state;
    struct rng r = rng_for("barriers per tile");
    const struct {
        double barriers, tiles;
        int score;
        const char *has;
    } cases[] = {
        {4, 4, 1, "barriers per tile 1.00 (at most 1.50)"},
        {1, 1, 1, "barriers per tile 1.00"},
        {8, 4, 0, "barriers per tile 2.00, at most 1.50 here: two barriers per tile"},
        {2, 1, 0, "barriers per tile 2.00, at most 1.50"},
        {12, 4, 0, "barriers per tile 3.00, at most 1.50"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        struct grader_exercise ex = *grader_find_exercise("10");
        ex.memcheck_n = 32 * (int)rng_range(&r, 1, 4); /* nothing of the size either */
        struct grader_traffic got = {.global_loads = 0.06,
                                     .local_loads = 0.5,
                                     .barriers = cases[c].barriers,
                                     .tiles = cases[c].tiles,
                                     .n = ex.memcheck_n};
        struct grader_exercise_result res = {.ex = &ex};
        grade_test_technique(&ex, 1, &got, &res);
        const struct grader_test *t = &res.tests[0];
        CHECK(res.test_count == 1 && t->score == cases[c].score, "%g barriers, %g tiles: score %d",
              cases[c].barriers, cases[c].tiles, t->score);
        CHECK(strstr(t->output, cases[c].has), "%g barriers, %g tiles: no \"%s\" in\n%s",
              cases[c].barriers, cases[c].tiles, cases[c].has, t->output);
        grader_free_result(&res);
    }
}

/* The signature a parameter mismatch shows is the skeleton's own (whitespace aside): what the
 * student is told to write is what exercises/ID/kernel.cl declares. */
static void test_signature_is_the_skeletons(void **state) {
    (void)state;
    for (int e = 0; e < grader_exercise_count; e++) {
        const struct grader_exercise *ex = &grader_exercises[e];
        char path[128], want[600] = "", got[600];
        snprintf(path, sizeof path, "exercises/%s/kernel.cl", ex->id);
        if (!ex->kernel)
            continue;
        char *text = grader_read_capped(path, 1 << 20);
        /* (an attribute may stand between __kernel and void: 13's reqd_work_group_size) */
        char head[96];
        snprintf(head, sizeof head, "void %s(", ex->kernel);
        const char *start = text ? strstr(text, head) : NULL;
        CHECK(start != NULL, "%s: no __kernel %s", path, head);
        size_t used = (size_t)snprintf(want, sizeof want, "__kernel ");
        for (const char *c = start; *c && *c != ')' && used + 2 < sizeof want; c++)
            if (!isspace((unsigned char)*c))
                want[used++] = *c;
            else if (used && want[used - 1] != ' ' && want[used - 1] != '(')
                want[used++] = ' ';
        want[used++] = ')';
        want[used] = '\0';
        grader_signature(ex, got, sizeof got);
        CHECK(strcmp(got, want) == 0, "%s: the grader shows\n  %s\nthe skeleton declares\n  %s",
              ex->id, got, want);
        /* each argument's name (the host report's words for what main.c set) is the last word of
         * its declaration in the skeleton, and none is left over */
        int args = 0;
        for (const char *p = want; *p; p++)
            args += *p == ',' || (*p == '(' && p[1] != ')');
        for (int i = 0; i <= args; i++) {
            char name[32], word[64];
            grader_arg_name(ex, i, name, sizeof name);
            if (i == args) {
                CHECK(name[0] == '\0', "%s: a name past the last argument: %s", ex->id, name);
                break;
            }
            snprintf(word, sizeof word, "%s%s", name, i + 1 == args ? ")" : ",");
            const char *at = strstr(want, word);
            CHECK(name[0] && at && (at[-1] == ' ' || at[-1] == '*'),
                  "%s: argument %d named '%s', not the last word of its declaration in %s", ex->id,
                  i, name, want);
        }
        free(text);
    }
}

/* A kernel stopped at its limit: without the reference's time, or near it, the jail's words;
 * far slower, known to end: too slow for this step, by how much; not known to end: both. */
static void test_timeout_against_the_reference(void **state) {
    (void)state;
    struct rng r = rng_for("timeout pace");
    double limit = (double)rng_range(&r, 5, 60), reference = limit / (double)rng_range(&r, 4, 90);
    int n = (int)rng_range(&r, 17, 999), smaller = (int)rng_range(&r, 1, 16);
    char ends[64], want[64], dead[200];
    snprintf(ends, sizeof ends, "it was right at N = %d", smaller);
    snprintf(want, sizeof want, "at least %.0fx slower", limit / reference);
    struct grader_run_result run = {.how = RUN_TIMEOUT, .seconds = limit};
    const struct {
        double reference;
        const char *ends, *has, *lacks, *dead_has;
    } cases[] = {
        {0, ends, "a loop that never ends", "too slow", "timed out at N ="},
        {limit / 1.5, ends, "a loop that never ends", "too slow", "timed out at N ="},
        {reference, ends, "too slow for this step", "never ends", "too slow for this step"},
        {reference, ends, want, NULL, NULL},
        {reference, ends, ends, NULL, NULL},
        {reference, NULL, "a loop that never ends", "too slow", "timed out at N ="},
        {reference, NULL, want, NULL, NULL},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        struct grader_pace pace = {.seconds = limit,
                                   .reference_seconds = cases[c].reference,
                                   .work = "the same run",
                                   .ends = cases[c].ends};
        dead[0] = '\0';
        char at[32];
        snprintf(at, sizeof at, "N = %d", n);
        char *text = grader_harness_failure(&run, "", at, &pace, dead, sizeof dead);
        CHECK(text && strstr(text, cases[c].has), "case %zu: no \"%s\" in \"%s\"", c, cases[c].has,
              text ? text : "(null)");
        CHECK(!cases[c].lacks || !strstr(text, cases[c].lacks), "case %zu: \"%s\" in \"%s\"", c,
              cases[c].lacks, text);
        CHECK(!cases[c].dead_has || strstr(dead, cases[c].dead_has),
              "case %zu: no \"%s\" in the later tests' \"%s\"", c, cases[c].dead_has, dead);
        free(text);
    }
    char at[32];
    snprintf(at, sizeof at, "N = %d", n);
    char *text = grader_harness_failure(&run, "", at, NULL, dead, sizeof dead);
    CHECK(text && strstr(text, "a loop that never ends"), "without a pace: \"%s\"", text);
    free(text);
}

static void test_table_ids(void **state) {
    (void)state;
    for (int e = 0; e < grader_exercise_count; e++) {
        const struct grader_exercise *ex = &grader_exercises[e];
        const char *id = ex->id;
        CHECK(id && isdigit((unsigned char)id[0]) && isdigit((unsigned char)id[1]) &&
                  id[2] == '_' && id[3] != '\0',
              "id \"%s\" is not NN_name", id ? id : "(null)");
        for (const char *c = id + 3; *c; c++)
            CHECK(isalnum((unsigned char)*c) || *c == '_', "id \"%s\": character '%c'", id, *c);
        CHECK(ex->title && *ex->title, "%s: no title", id);
        CHECK(!ex->kernel || *ex->kernel, "%s: empty kernel name", id);
        for (int f = 0; f < e; f++) {
            CHECK(strcmp(grader_exercises[f].id, id) != 0, "id %s twice", id);
            CHECK(strncmp(grader_exercises[f].id, id, 2) != 0, "number %.2s twice (%s, %s)", id,
                  grader_exercises[f].id, id);
        }
        /* the argument list ends, and names the output and the size the kernel needs */
        int end = -1, has_c = 0, has_size = 0;
        for (int a = 0; a < GRADER_MAX_ARGS; a++) {
            if (ex->args[a] == ARG_END) {
                end = a;
                break;
            }
            has_c += ex->args[a] == ARG_C;
            has_size += ex->args[a] == (ex->is_vector ? ARG_COUNT : ARG_N);
        }
        if (ex->kernel)
            CHECK(end > 0 && has_c == 1 && has_size == 1,
                  "%s: argument list (end %d, C %d, size %d)", id, end, has_c, has_size);
        else
            CHECK(end == 0, "%s: arguments but no kernel", id);
    }
}

static void test_find_exercise(void **state) {
    (void)state;
    struct rng r = rng_for("find");
    const struct grader_exercise *by_number = grader_find_exercise("04");
    const struct grader_exercise *by_name = grader_find_exercise("04_local_B");
    CHECK(by_name != NULL && strcmp(by_name->id, "04_local_B") == 0, "04_local_B not found");
    CHECK(by_number == by_name, "\"04\" gives %s", by_number ? by_number->id : "NULL");
    const char *none[] = {"4",   "99",          "04_local",    "",    "0",
                          "04_", "04_local_B_", "04_local_Bx", "004", "04local_B"};
    for (size_t i = 0; i < sizeof none / sizeof none[0]; i++) {
        const struct grader_exercise *ex = grader_find_exercise(none[i]);
        CHECK(ex == NULL, "grader_find_exercise(\"%s\") gives %s, expected NULL", none[i],
              ex ? ex->id : "");
    }
    /* what a wrong id may have meant: named, once; nothing for what is near nothing */
    static const char *const meant[][2] = {{"04_local", "04_local_B"},
                                           {"04_local_Bx", "04_local_B"},
                                           {"04local_B", "04_local_B"},
                                           {"09_register", "09_register_blocking"},
                                           {"12_subgroup", "12_subgroups"}};
    char near[400];
    for (size_t i = 0; i < sizeof meant / sizeof meant[0]; i++) {
        int count = grader_suggest_exercise(meant[i][0], near, sizeof near);
        CHECK(count == 1 && strcmp(near, meant[i][1]) == 0, "\"%s\" suggests %d: '%s', not %s",
              meant[i][0], count, near, meant[i][1]);
    }
    CHECK(grader_suggest_exercise("xyz", near, sizeof near) == 0 && near[0] == '\0',
          "\"xyz\" suggests '%s'", near);
    for (int e = 0; e < grader_exercise_count; e++) {
        const struct grader_exercise *ex = &grader_exercises[e];
        char buf[128];
        CHECK(grader_find_exercise(ex->id) == ex, "%s not found by its id", ex->id);
        snprintf(buf, sizeof buf, "%.2s", ex->id);
        CHECK(grader_find_exercise(buf) == ex, "%s not found by \"%s\"", ex->id, buf);
        /* a random proper prefix other than the number names nothing */
        size_t len = strlen(ex->id), cut;
        do
            cut = (size_t)rng_range(&r, 1, (long)len - 1);
        while (cut == 2);
        snprintf(buf, sizeof buf, "%.*s", (int)cut, ex->id);
        CHECK(grader_find_exercise(buf) == NULL, "prefix \"%s\" of %s found something", buf,
              ex->id);
        /* nor does the id with something appended */
        snprintf(buf, sizeof buf, "%s%c", ex->id, (char)rng_range(&r, 'a', 'z'));
        CHECK(grader_find_exercise(buf) == NULL, "\"%s\" found something", buf);
    }
}

static void test_output_count_and_flops(void **state) {
    (void)state;
    struct rng r = rng_for("count");
    const struct grader_exercise *vec = grader_find_exercise("00_vadd");
    const struct grader_exercise *mat = grader_find_exercise("01_per_element");
    CHECK(vec && vec->is_vector && mat && !mat->is_vector, "00_vadd or 01_per_element missing");
    for (int i = 0; i < 100; i++) {
        /* up to 100000: n*n passes 2^32, where an int product would overflow */
        int n = (int)rng_range(&r, 1, i < 50 ? 3000 : 100000);
        for (int e = 0; e < grader_exercise_count; e++) {
            const struct grader_exercise *ex = &grader_exercises[e];
            size_t want = ex->is_vector ? (size_t)n : (size_t)n * (size_t)n;
            double flops = ex->is_vector ? (double)n : 2.0 * (double)n * (double)n * (double)n;
            CHECK(grader_output_count(ex, grader_square(n)) == want,
                  "%s: output count at %d is %zu, not %zu", ex->id, n,
                  grader_output_count(ex, grader_square(n)), want);
            CHECK(fabs(grader_flops(ex, grader_square(n)) - flops) <= 1e-12 * flops,
                  "%s: flops at %d are %g, not %g", ex->id, n, grader_flops(ex, grader_square(n)),
                  flops);
        }
    }
}

/* ---------------------------------------------------------------- running children */

static void run_sh(const char *script, const char *out, double timeout,
                   struct grader_run_result *res) {
    struct grader_argv argv = GRADER_ARGV_INIT;
    grader_argv_push_all(&argv, (const char *const[]){"/bin/sh", "-c", script, NULL});
    grader_run(argv.argv, out, timeout, res);
    grader_argv_clear(&argv);
}

static const char *how_name(enum grader_run_how how) {
    return how == RUN_EXITED     ? "RUN_EXITED"
           : how == RUN_SIGNALED ? "RUN_SIGNALED"
           : how == RUN_TIMEOUT  ? "RUN_TIMEOUT"
           : how == RUN_NO_START ? "RUN_NO_START"
                                 : "?";
}

static void test_run_exit_status(void **state) {
    (void)state;
    struct rng r = rng_for("exit");
    char out[256], script[64], text[256];
    tmp_path(out, sizeof out, "exit.out");
    int codes[] = {3, 0, (int)rng_range(&r, 1, 126), (int)rng_range(&r, 128, 255)};
    for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++) {
        struct grader_run_result res;
        snprintf(script, sizeof script, "exit %d", codes[i]);
        run_sh(script, out, 10.0, &res);
        CHECK(res.how == RUN_EXITED && res.code == codes[i], "`%s`: %s code %d", script,
              how_name(res.how), res.code);
        CHECK(res.seconds >= 0.0 && res.seconds < 5.0, "`%s` took %g s", script, res.seconds);
        grader_describe_run(&res, text, sizeof text);
        char status[32];
        snprintf(status, sizeof status, "status %d", codes[i]);
        CHECK(strstr(text, status) != NULL, "`%s` described as \"%s\"", script, text);
    }
}

static void test_run_signal(void **state) {
    (void)state;
    struct rng r = rng_for("signal");
    const int sigs[] = {SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGTERM, SIGUSR1, SIGKILL, SIGILL};
    char out[256], script[64], text[256];
    tmp_path(out, sizeof out, "signal.out");
    for (int i = 0; i < 3; i++) {
        int sig = sigs[rng_range(&r, 0, sizeof sigs / sizeof sigs[0] - 1)];
        struct grader_run_result res;
        snprintf(script, sizeof script, "kill -%d $$", sig);
        run_sh(script, out, 10.0, &res);
        CHECK(res.how == RUN_SIGNALED && res.code == sig, "`%s`: %s code %d", script,
              how_name(res.how), res.code);
        grader_describe_run(&res, text, sizeof text);
        char number[32];
        snprintf(number, sizeof number, "signal %d", sig);
        CHECK(strstr(text, number) != NULL, "`%s` described as \"%s\"", script, text);
    }
}

static void test_run_sigsegv(void **state) {
    (void)state;
    char out[256], text[256];
    tmp_path(out, sizeof out, "segv.out");
    struct grader_run_result res;
    run_sh("kill -SEGV $$", out, 10.0, &res);
    CHECK(res.how == RUN_SIGNALED && res.code == SIGSEGV, "%s code %d", how_name(res.how),
          res.code);
    grader_describe_run(&res, text, sizeof text);
    CHECK(strstr(text, "SEGV") != NULL && strstr(text, "signal 11") != NULL &&
              strstr(text, "out-of-bounds") != NULL,
          "described as \"%s\"", text);
}

/* grader.h promises e.g. "crashed with SIGSEGV (signal 11)": the name students search for. */
static void test_describe_names_sigsegv(void **state) {
    (void)state;
    char text[256];
    struct grader_run_result res = {RUN_SIGNALED, SIGSEGV, 0.25};
    grader_describe_run(&res, text, sizeof text);
    CHECK(strstr(text, "SIGSEGV") != NULL, "a SIGSEGV crash is described as \"%s\"", text);
    res.code = SIGBUS;
    grader_describe_run(&res, text, sizeof text);
    CHECK(strstr(text, "SIGBUS") != NULL, "a SIGBUS crash is described as \"%s\"", text);
}

/* 1 if pid has ended (reaped here when it was orphaned to us), 0 if still running after wait s. */
static int gone_within(pid_t pid, double wait) {
    double start = now();
    for (;;) {
        int status;
        pid_t done = waitpid(pid, &status, WNOHANG);
        if (done == pid || (kill(pid, 0) != 0 && errno == ESRCH))
            return 1;
        if (now() - start > wait)
            return 0;
        nap(0.01);
    }
}

static pid_t read_pid(const char *path) {
    char *text = slurp(path, NULL);
    CHECK(text != NULL, "no pid file %s", path);
    long pid = strtol(text, NULL, 10);
    free(text);
    CHECK(pid > 1, "pid file %s holds no pid", path);
    return (pid_t)pid;
}

static void test_run_timeout(void **state) {
    (void)state;
    struct rng r = rng_for("timeout");
    char out[256], text[256];
    tmp_path(out, sizeof out, "timeout.out");
    double timeout = 0.3 + 0.4 * rng_unit(&r);
    char *argv[] = {"/bin/sleep", "30", NULL};
    struct grader_run_result res;
    double start = now();
    grader_run(argv, out, timeout, &res);
    double took = now() - start;
    CHECK(res.how == RUN_TIMEOUT, "sleep 30 with limit %.2f s: %s code %d", timeout,
          how_name(res.how), res.code);
    CHECK(took >= timeout && took < timeout + 1.5, "limit %.2f s, returned after %.2f s", timeout,
          took);
    CHECK(res.seconds >= timeout && res.seconds <= took + 0.01, "seconds %.3f (limit %.2f)",
          res.seconds, timeout);
    grader_describe_run(&res, text, sizeof text);
    CHECK(strstr(text, "timed out") != NULL, "described as \"%s\"", text);
}

/* The child ends at once but leaves a background process: it must not survive. */
static void test_run_kills_group_on_exit(void **state) {
    (void)state;
    char out[256], pidfile[256], script[600];
    tmp_path(out, sizeof out, "group.out");
    tmp_path(pidfile, sizeof pidfile, "group.pid");
    snprintf(script, sizeof script, "sleep 30 & echo $! > '%s'; exit 0", pidfile);
    struct grader_run_result res;
    double start = now();
    run_sh(script, out, 10.0, &res);
    CHECK(res.how == RUN_EXITED && res.code == 0, "%s code %d", how_name(res.how), res.code);
    CHECK(now() - start < 5.0, "grader_run waited %.1f s for the grandchild", now() - start);
    pid_t grandchild = read_pid(pidfile);
    int gone = gone_within(grandchild, 1.0);
    if (!gone)
        kill(grandchild, SIGKILL);
    CHECK(gone, "the background `sleep 30` (pid %d) still runs after its parent ended",
          (int)grandchild);
    CHECK(kill(grandchild, 0) != 0 && errno == ESRCH, "pid %d still exists", (int)grandchild);
}

/* At the time limit the whole group goes, not just the child. */
static void test_run_kills_group_on_timeout(void **state) {
    (void)state;
    char out[256], pidfile[256], script[600];
    tmp_path(out, sizeof out, "group2.out");
    tmp_path(pidfile, sizeof pidfile, "group2.pid");
    snprintf(script, sizeof script, "sleep 30 & echo $! > '%s'; sleep 30", pidfile);
    struct grader_run_result res;
    run_sh(script, out, 0.5, &res);
    CHECK(res.how == RUN_TIMEOUT, "%s code %d", how_name(res.how), res.code);
    pid_t grandchild = read_pid(pidfile);
    int gone = gone_within(grandchild, 1.0);
    if (!gone)
        kill(grandchild, SIGKILL);
    CHECK(gone, "the background `sleep 30` (pid %d) survived the time limit", (int)grandchild);
}

static void test_run_output_file(void **state) {
    (void)state;
    struct rng r = rng_for("output");
    char out[256], script[300], want[300];
    tmp_path(out, sizeof out, "output.out");
    /* an old, longer file must not leave its tail behind */
    char junk[5000];
    memset(junk, 'J', sizeof junk);
    write_file(out, junk, sizeof junk);
    unsigned long long t1 = rng_next(&r), t2 = rng_next(&r), t3 = rng_next(&r);
    snprintf(script, sizeof script, "echo out-%llx; echo err-%llx >&2; echo out-%llx", t1, t2, t3);
    snprintf(want, sizeof want, "out-%llx\nerr-%llx\nout-%llx\n", t1, t2, t3);
    struct grader_run_result res;
    run_sh(script, out, 10.0, &res);
    CHECK(res.how == RUN_EXITED && res.code == 0, "%s code %d", how_name(res.how), res.code);
    char *got = slurp(out, NULL);
    CHECK(got != NULL, "no output file %s", out);
    CHECK(strcmp(got, want) == 0, "output file holds \"%.200s\", expected \"%s\"", got, want);
    free(got);
}

/* A child that reads stdin gets end-of-file at once, even when our stdin is a pipe left open. */
static void test_run_stdin_is_dev_null(void **state) {
    (void)state;
    char out[256];
    tmp_path(out, sizeof out, "stdin.out");
    int fds[2];
    CHECK(pipe(fds) == 0, "pipe: %s", strerror(errno));
    int saved = dup(STDIN_FILENO);
    dup2(fds[0], STDIN_FILENO);
    struct grader_run_result res;
    run_sh("cat; echo done", out, 3.0, &res);
    if (saved >= 0) {
        dup2(saved, STDIN_FILENO);
        close(saved);
    } else {
        close(STDIN_FILENO); /* we had none */
    }
    close(fds[0]);
    close(fds[1]);
    CHECK(res.how == RUN_EXITED && res.code == 0, "`cat` with stdin an open pipe: %s code %d",
          how_name(res.how), res.code);
    char *got = slurp(out, NULL);
    CHECK(got && strcmp(got, "done\n") == 0, "output \"%s\"", got ? got : "(none)");
    free(got);
}

static void test_run_no_start(void **state) {
    (void)state;
    struct rng r = rng_for("nostart");
    char out[256], program[128], bad_out[300];
    tmp_path(out, sizeof out, "nostart.out");
    snprintf(program, sizeof program, "/nonexistent-%llx/program",
             (unsigned long long)rng_next(&r));
    char *argv[] = {program, NULL};
    struct grader_run_result res;
    double start = now();
    grader_run(argv, out, 10.0, &res);
    CHECK(res.how == RUN_NO_START, "%s: %s code %d", program, how_name(res.how), res.code);
    CHECK(now() - start < 2.0, "took %.1f s", now() - start);
    /* an output file that cannot be created is no start either */
    snprintf(bad_out, sizeof bad_out, "%s/no-such-dir/out", g_tmp);
    char *ok_argv[] = {"/bin/true", NULL};
    grader_run(ok_argv, bad_out, 10.0, &res);
    CHECK(res.how == RUN_NO_START, "output to %s: %s code %d", bad_out, how_name(res.how),
          res.code);
}

/* The description of a program that does not exist says why: no such file. */
static void test_describe_no_start_reason(void **state) {
    (void)state;
    char out[256], text[256];
    tmp_path(out, sizeof out, "nostart2.out");
    char *argv[] = {"/nonexistent-dir/program", NULL};
    struct grader_run_result res;
    grader_run(argv, out, 10.0, &res);
    CHECK(res.how == RUN_NO_START, "%s code %d", how_name(res.how), res.code);
    grader_describe_run(&res, text, sizeof text);
    CHECK(strstr(text, strerror(ENOENT)) != NULL,
          "a missing program is described as \"%s\" (code %d), not with \"%s\"", text, res.code,
          strerror(ENOENT));
}

/* A child that writes without end is stopped by the file size cap (needs ~256 MB of disk). */
static void test_run_output_cap(void **state) {
    (void)state;
    struct statvfs fs;
    if (statvfs(g_tmp, &fs) != 0 || (double)fs.f_bavail * (double)fs.f_frsize < 2e9) {
        print_message("less than 2 GB free in %s: output cap not tested\n", g_tmp);
        skip();
    }
    char out[256], text[256];
    tmp_path(out, sizeof out, "cap.out");
    struct grader_run_result res;
    run_sh("exec head -c 400000000 /dev/zero", out, 30.0, &res);
    struct stat st;
    int have = stat(out, &st) == 0;
    off_t size = have ? st.st_size : -1;
    unlink(out);
    CHECK(res.how == RUN_SIGNALED && res.code == SIGXFSZ, "%s code %d", how_name(res.how),
          res.code);
    CHECK(have && size > 0 && size <= (off_t)(256L << 20), "output file of %lld bytes",
          (long long)size);
    grader_describe_run(&res, text, sizeof text);
    CHECK(strstr(text, "more output than allowed") != NULL, "described as \"%s\"", text);
}

/* ---------------------------------------------------------------- grader_read_capped */

/* Random printable text without '\n', '[' or ']', so the cut note stands out. */
static char *random_text(struct rng *r, size_t length) {
    char *s = malloc(length + 1);
    CHECK(s != NULL, "out of memory");
    for (size_t i = 0; i < length; i++) {
        char c;
        do
            c = (char)rng_range(r, ' ', '~');
        while (c == '[' || c == ']');
        s[i] = c;
    }
    s[length] = '\0';
    return s;
}

static void test_read_capped_short(void **state) {
    (void)state;
    struct rng r = rng_for("capped_short");
    char path[256];
    tmp_path(path, sizeof path, "short.txt");
    for (int i = 0; i < 5; i++) {
        size_t max = (size_t)rng_range(&r, 50, 5000);
        size_t length = i == 0 ? max : i == 1 ? 0 : (size_t)rng_range(&r, 1, (long)max);
        char *text = random_text(&r, length);
        write_file(path, text, length);
        char *got = grader_read_capped(path, max);
        CHECK(got && strcmp(got, text) == 0, "file of %zu bytes, max %zu: got %zu bytes", length,
              max, got ? strlen(got) : 0);
        free(got);
        free(text);
    }
}

static void test_read_capped_long(void **state) {
    (void)state;
    struct rng r = rng_for("capped_long");
    char path[256];
    tmp_path(path, sizeof path, "long.txt");
    for (int i = 0; i < 5; i++) {
        size_t max = (size_t)rng_range(&r, 200, 20001);
        size_t length = i == 0 ? max + 1 : (size_t)rng_range(&r, (long)max + 1, 40 * (long)max);
        char *text = random_text(&r, length);
        write_file(path, text, length);
        char *got = grader_read_capped(path, max);
        CHECK(got != NULL, "NULL for a file of %zu bytes", length);
        size_t got_len = strlen(got);
        CHECK(got_len <= max + 100 && got_len >= max / 2, "file %zu bytes, max %zu: kept %zu",
              length, max, got_len);
        CHECK(strstr(got, "output cut") != NULL, "no \"output cut\" note (file %zu, max %zu)",
              length, max);
        /* head, note, tail: the note is the only part with newlines */
        char *open = strchr(got, '\n'), *close = strrchr(got, '\n');
        CHECK(open && close && open < close, "note not on a line of its own");
        size_t head = (size_t)(open - got), tail = got_len - (size_t)(close + 1 - got);
        CHECK(head >= max / 4 && tail >= max / 4 && head + tail <= max,
              "kept %zu head and %zu tail bytes of %zu, max %zu", head, tail, length, max);
        CHECK(memcmp(got, text, head) == 0, "the head is not the file's start (max %zu)", max);
        CHECK(memcmp(close + 1, text + length - tail, tail) == 0,
              "the tail is not the file's end (max %zu)", max);
        const char *digits = strstr(got, "output cut");
        while (*digits && !isdigit((unsigned char)*digits))
            digits++;
        unsigned long long left_out = strtoull(digits, NULL, 10);
        CHECK(left_out == length - head - tail, "note says %llu bytes left out, %zu were", left_out,
              length - head - tail);
        free(got);
        free(text);
    }
}

static void test_read_capped_missing(void **state) {
    (void)state;
    char path[256];
    tmp_path(path, sizeof path, "missing/nothing.txt");
    char *got = grader_read_capped(path, 100);
    CHECK(got != NULL && got[0] == '\0', "missing file gives \"%s\"", got ? got : "(NULL)");
    free(got);
}

/* ---------------------------------------------------------------- JSON */

static void expect_escape(const char *in, const char *want) {
    char *got = grader_json_escape(in);
    CHECK(got && strcmp(got, want) == 0, "escape of \"%s\" is \"%s\", expected \"%s\"", in,
          got ? got : "(NULL)", want);
    free(got);
}

static void test_json_escape_specials(void **state) {
    (void)state;
    expect_escape("", "");
    expect_escape("plain text 123", "plain text 123");
    expect_escape("say \"hi\"", "say \\\"hi\\\"");
    expect_escape("C:\\dir\\", "C:\\\\dir\\\\");
    expect_escape("a\nb\n", "a\\nb\\n");
    expect_escape("\tx\ty", "\\tx\\ty");
    expect_escape("\"\\\n\t", "\\\"\\\\\\n\\t");
    expect_escape("caf\xc3\xa9", "caf\xc3\xa9"); /* valid UTF-8 is kept */
    expect_escape("\xff", "?");                  /* invalid UTF-8 and controls are sanitized */
    expect_escape("a\xc2\x9b"
                  "2J\x1b[0m\x7f",
                  "a?2J?[0m?");
}

static void test_json_escape_bytes(void **state) {
    (void)state;
    for (int c = 1; c < 256; c++) {
        char in[4] = {'<', (char)c, '>', '\0'};
        char *got = grader_json_escape(in);
        CHECK(got != NULL, "NULL for byte 0x%02x", c);
        char want[16];
        if (c == '\n' || c == '\t' || c == '"' || c == '\\')
            snprintf(want, sizeof want, "<\\%c>", c == '\n' ? 'n' : c == '\t' ? 't' : c);
        else if (c < 0x20 || c >= 0x7f) /* a control, or a byte that is no UTF-8 alone */
            snprintf(want, sizeof want, "<?>");
        else
            snprintf(want, sizeof want, "<%c>", c);
        CHECK(strcasecmp(got, want) == 0, "byte 0x%02x escaped as \"%s\", expected \"%s\"", c, got,
              want);
        free(got);
    }
}

/* What jq reads back from the escaped string is the sanitized original. */
static void test_json_escape_jq_roundtrip(void **state) {
    (void)state;
    struct rng r = rng_for("escape_jq");
    char path[256];
    tmp_path(path, sizeof path, "escape.json");
    for (int round = 0; round < 4; round++) {
        int high = round >= 2; /* rounds 0 and 1: ASCII only */
        size_t length = (size_t)rng_range(&r, 1, 3000);
        char *in = malloc(length + 1), *want = malloc(3 * length + 1);
        CHECK(in && want, "out of memory");
        size_t w = 0;
        for (size_t i = 0; i < length; i++) {
            /* weight the special characters: quotes, backslashes, controls */
            unsigned char c;
            long pick = rng_range(&r, 0, 9);
            if (pick == 0)
                c = (unsigned char)"\"\\\n\t\r/"[rng_range(&r, 0, 5)];
            else if (pick == 1)
                c = (unsigned char)rng_range(&r, 1, 0x1f);
            else
                c = (unsigned char)rng_range(&r, 1, high ? 255 : 127);
            in[i] = (char)c;
        }
        in[length] = '\0';
        memcpy(want, in, length + 1);
        grader_sanitize_text(want); /* its own properties are test_report.c's */
        w = strlen(want);
        char *e = grader_json_escape(in);
        CHECK(e != NULL, "NULL escape");
        FILE *f = fopen(path, "w");
        CHECK(f != NULL, "cannot write %s", path);
        fprintf(f, "\"%s\"\n", e);
        fclose(f);
        char cmd[600];
        snprintf(cmd, sizeof cmd, "jq -j . '%s' 2>&1", path);
        size_t got_len;
        int status;
        char *got = command_output(cmd, &got_len, &status);
        CHECK(status == 0, "jq rejects the escape of a %zu-byte string: %s", length, got);
        size_t at = 0;
        while (at < got_len && at < w && got[at] == want[at])
            at++;
        CHECK(got_len == w && at == w,
              "round %d: jq reads back %zu bytes, expected %zu; first difference at byte %zu "
              "(input byte 0x%02x)",
              round, got_len, w, at, at < length ? (unsigned char)in[at] : 0);
        free(got);
        free(e);
        free(in);
        free(want);
    }
}

/* Random test names and outputs with the characters JSON must escape. */
static void random_words(struct rng *r, char *buf, size_t size) {
    static const char *words[] = {"correct", "at", "N=",   "\"quoted\"", "back\\slash", "tab\t",
                                  "line\n",  "é",  "\x01", "{}",         "[1,2]",       "ok"};
    size_t used = 0;
    buf[0] = '\0';
    int count = (int)rng_range(r, 1, 8);
    for (int i = 0; i < count; i++) {
        const char *w = words[rng_range(r, 0, sizeof words / sizeof words[0] - 1)];
        int n = snprintf(buf + used, size - used, "%s%s%ld", i ? " " : "", w, rng_range(r, 0, 99));
        if (n < 0 || (size_t)n >= size - used)
            break;
        used += (size_t)n;
    }
}

static void test_write_json(void **state) {
    (void)state;
    struct rng r = rng_for("write_json");
    char path[256];
    tmp_path(path, sizeof path, "results.json");
    for (int round = 0; round < 3; round++) {
        struct grader_exercise_result res[2];
        memset(res, 0, sizeof res);
        int first = (int)rng_range(&r, 0, grader_exercise_count - 1);
        int second =
            (first + (int)rng_range(&r, 1, grader_exercise_count - 1)) % grader_exercise_count;
        res[0].ex = &grader_exercises[first];
        res[1].ex = &grader_exercises[second];
        int score = 0, max_score = 0, tests = 0, passed = 0, timed = 0;
        for (int i = 0; i < 2; i++) {
            int count = (int)rng_range(&r, 1, GRADER_MAX_SIZES + 4);
            for (int t = 0; t < count; t++) {
                char name[64], output[256];
                random_words(&r, name, sizeof name);
                random_words(&r, output, sizeof output);
                int max = (int)rng_range(&r, 1, 3);
                int got = rng_range(&r, 0, 1) ? max : (int)rng_range(&r, 0, max - 1);
                grader_add_test(&res[i], name, got, max, "%s", output);
                max_score += max; /* the maximum is what the tests added could give */
                score += got;
                passed += got == max;
                tests++;
            }
            /* round 0: only the first timed; round 1: only the second; round 2: at random */
            int has_gflops = round == 2 ? (int)rng_range(&r, 0, 1) : round == i;
            res[i].gflops = has_gflops ? 0.5 + 100.0 * rng_unit(&r) : 0.0;
            res[i].ref_gflops = 1.0 + 10.0 * rng_unit(&r);
            timed += has_gflops;
        }
        CHECK(grader_result_score(&res[0]) + grader_result_score(&res[1]) == score,
              "grader_result_score disagrees with the tests' sum %d", score);
        const char *device = round == 1 ? NULL : "GPU \"x\" (POCL)";
        CHECK(grader_write_json(path, res, 2, 12.0, device) == 0, "grader_write_json failed");
        char *v = jq(".score", path);
        CHECK(atoi(v) == score, "round %d: .score %s, tests sum to %d", round, v, score);
        free(v);
        v = jq(".extra_data.max_score", path);
        CHECK(atoi(v) == max_score, "round %d: max_score %s, exercises sum to %d", round, v,
              max_score);
        free(v);
        /* the device at the top, in extra_data (Gradescope stores it and reads nothing there) */
        v = jq(".extra_data.device // \"(none)\"", path);
        CHECK(strcmp(v, device ? device : "(none)") == 0, "round %d: device \"%s\", expected %s",
              round, v, device ? device : "none");
        free(v);
        v = jq(".tests | length", path);
        CHECK(atoi(v) == tests, "round %d: %s tests, expected %d", round, v, tests);
        free(v);
        v = jq("[.tests[] | (.status == \"passed\") == (.score == .max_score)] | all", path);
        CHECK(strcmp(v, "true") == 0, "round %d: a status disagrees with its scores", round);
        free(v);
        v = jq("[.tests[] | select(.status == \"passed\")] | length", path);
        CHECK(atoi(v) == passed, "round %d: %s passed, expected %d", round, v, passed);
        free(v);
        v = jq("[.tests[].status | select(. != \"passed\" and . != \"failed\")] | length", path);
        CHECK(atoi(v) == 0, "round %d: %s statuses neither passed nor failed", round, v);
        free(v);
        /* each test's name, scores and output, in order, read back exactly */
        int k = 0;
        for (int i = 0; i < 2; i++)
            for (int t = 0; t < res[i].test_count; t++, k++) {
                char filter[128], want[64];
                snprintf(filter, sizeof filter, ".tests[%d].score, \",\", .tests[%d].max_score", k,
                         k);
                v = jq(filter, path);
                snprintf(want, sizeof want, "%d,%d", res[i].tests[t].score, res[i].tests[t].max);
                CHECK(strcmp(v, want) == 0, "test %d scores %s, expected %s", k, v, want);
                free(v);
                const char *fields[] = {"name", "output"};
                const char *mine[] = {res[i].tests[t].name, res[i].tests[t].output};
                for (int f = 0; f < 2; f++) {
                    snprintf(filter, sizeof filter, ".tests[%d].%s", k, fields[f]);
                    v = jq(filter, path);
                    /* grader_add_test sanitized both: JSON holds them as they are */
                    CHECK(strcmp(v, mine[f]) == 0, "test %d: %s \"%s\", expected \"%s\"", k,
                          fields[f], v, mine[f]);
                    free(v);
                }
                /* its exercise and its verdict, in the test's extra_data */
                snprintf(filter, sizeof filter,
                         ".tests[%d].extra_data.exercise, \",\", .tests[%d].extra_data.verdict", k,
                         k);
                v = jq(filter, path);
                snprintf(want, sizeof want, "%s,%s", res[i].ex->id,
                         res[i].tests[t].score == res[i].tests[t].max ? "pass" : "fail");
                CHECK(strcmp(v, want) == 0, "test %d: exercise and verdict %s, expected %s", k, v,
                      want);
                free(v);
                CHECK(strncmp(res[i].tests[t].name, res[i].ex->id, strlen(res[i].ex->id)) == 0,
                      "test %d named \"%s\" without its exercise %s", k, res[i].tests[t].name,
                      res[i].ex->id);
            }
        /* the leaderboard: one entry per timed exercise, in order, with its GFLOP/s */
        v = jq(".leaderboard | length", path);
        CHECK(atoi(v) == timed, "round %d: %s leaderboard entries, %d exercises timed", round, v,
              timed);
        free(v);
        int entry = 0;
        for (int i = 0; i < 2; i++) {
            if (res[i].gflops <= 0)
                continue;
            char filter[128];
            snprintf(filter, sizeof filter, ".leaderboard[%d].name, \" \", .leaderboard[%d].value",
                     entry, entry);
            v = jq(filter, path);
            char *space = strrchr(v, ' ');
            CHECK(space && strstr(v, res[i].ex->id) == v &&
                      fabs(atof(space) - res[i].gflops) < 1e-2,
                  "leaderboard entry %d is \"%s\", expected %s with %.3f", entry, v, res[i].ex->id,
                  res[i].gflops);
            free(v);
            entry++;
        }
        /* the reference's GFLOP/s beside each timed exercise's, in extra_data; none untimed */
        for (int i = 0; i < 2; i++) {
            char filter[128];
            snprintf(filter, sizeof filter, ".extra_data.reference_gflops[\"%s\"] // 0",
                     res[i].ex->id);
            v = jq(filter, path);
            double want = res[i].gflops > 0 ? res[i].ref_gflops : 0.0;
            CHECK(fabs(atof(v) - want) < 1e-2, "round %d: %s's reference_gflops %s, expected %.3f",
                  round, res[i].ex->id, v, want);
            free(v);
        }
        grader_free_result(&res[0]);
        grader_free_result(&res[1]);
    }
}

/* ---------------------------------------------------------------- checks and hints */

struct case_ {
    const struct grader_exercise *ex;
    int n;
    uint64_t seed;
    size_t count;
    double *expected, *tol;
    float *got;
    struct grader_diagnosis d;
};

static void case_open(struct case_ *c, const char *id, int n, uint64_t seed) {
    memset(c, 0, sizeof *c);
    c->ex = grader_find_exercise(id);
    CHECK(c->ex != NULL, "no exercise %s", id);
    c->n = n;
    c->seed = seed;
    c->count = grader_output_count(c->ex, grader_square(n));
    CHECK(grader_reference(c->ex, grader_square(n), seed, &c->expected, &c->tol) == 0,
          "no reference");
    c->got = malloc(c->count * sizeof *c->got);
    CHECK(c->got != NULL, "out of memory");
    for (size_t i = 0; i < c->count; i++)
        c->got[i] = (float)c->expected[i];
}

static void case_diagnose(struct case_ *c) {
    grader_diagnose(c->ex, grader_square(c->n), c->seed, c->got, c->expected, c->tol, &c->d);
}

static void case_close(struct case_ *c) {
    free(c->expected);
    free(c->tol);
    free(c->got);
}

/* A wrong value, far outside any tolerance. */
static float off(const struct case_ *c, size_t k) {
    return (float)(c->expected[k] + 0.5 + fabs(c->expected[k]));
}

#define CHECK_HINT(c, word)                                                                        \
    CHECK(strstr((c)->d.hint, (word)) != NULL,                                                     \
          "%s at N=%d, seed %" PRIu64 ": hint \"%s\" lacks \"%s\"", (c)->ex->id, (c)->n,           \
          (c)->seed, (c)->d.hint, (word))

static int random_odd(struct rng *r, int lo, int hi) {
    return (int)rng_range(r, lo, hi) | 1;
}

static void test_reference_exact(void **state) {
    (void)state;
    struct rng r = rng_for("exact");
    for (int round = 0; round < 3; round++) {
        struct case_ c;
        int n = random_odd(&r, 17, 59);
        case_open(&c, "01_per_element", n, rng_next(&r));
        /* the reference is A*B of streams 0 and 1 */
        size_t nn = (size_t)n * n;
        float *a = malloc(nn * sizeof *a), *b = malloc(nn * sizeof *b);
        double *ab = malloc(nn * sizeof *ab);
        CHECK(a && b && ab, "out of memory");
        clu_random_fill(a, nn, c.seed, 0);
        clu_random_fill(b, nn, c.seed, 1);
        clu_ref_matmul(n, a, b, ab, NULL);
        for (size_t k = 0; k < nn; k++) {
            CHECK(ab[k] == c.expected[k], "N=%d: reference element %zu is %g, A*B is %g", n, k,
                  c.expected[k], ab[k]);
            CHECK(c.tol[k] > 0 && c.tol[k] < 1e-3, "N=%d: tolerance %g at %zu", n, c.tol[k], k);
        }
        free(a);
        free(b);
        free(ab);
        case_diagnose(&c);
        CHECK(c.d.m.wrong == 0 && c.d.unwritten == 0 && c.d.hint[0] == '\0',
              "N=%d: the exact result has %zu wrong, %zu unwritten, hint \"%s\"", n, c.d.m.wrong,
              c.d.unwritten, c.d.hint);
        case_close(&c);
    }
}

static void test_diagnose_all_nan(void **state) {
    (void)state;
    struct rng r = rng_for("all_nan");
    struct case_ c;
    case_open(&c, "01_per_element", random_odd(&r, 17, 59), rng_next(&r));
    clu_fill_unwritten(c.got, c.count); /* as the harness fills C before the launch */
    case_diagnose(&c);
    CHECK(c.d.unwritten == c.count && c.d.m.wrong == c.count && c.d.m.first == 0,
          "all NaN: unwritten %zu, wrong %zu of %zu", c.d.unwritten, c.d.m.wrong, c.count);
    CHECK_HINT(&c, "nothing was written");
    case_close(&c);
}

static void test_diagnose_partly_nan(void **state) {
    (void)state;
    struct rng r = rng_for("part_nan");
    struct case_ c;
    case_open(&c, "01_per_element", random_odd(&r, 17, 59), rng_next(&r));
    size_t k = (size_t)rng_range(&r, 1, (long)c.count - 1), set = 0, first = c.count;
    while (set < k) {
        size_t at = (size_t)rng_range(&r, 0, (long)c.count - 1);
        if (isnan(c.got[at]))
            continue;
        clu_fill_unwritten(&c.got[at], 1);
        first = at < first ? at : first;
        set++;
    }
    case_diagnose(&c);
    CHECK(c.d.unwritten == k && c.d.m.wrong == k && c.d.m.first == first,
          "%zu NaN (first %zu): unwritten %zu, wrong %zu, first %zu", k, first, c.d.unwritten,
          c.d.m.wrong, c.d.m.first);
    CHECK_HINT(&c, "never written");
    case_close(&c);
}

static void test_diagnose_all_zero(void **state) {
    (void)state;
    struct rng r = rng_for("zero");
    struct case_ c;
    case_open(&c, "01_per_element", random_odd(&r, 17, 59), rng_next(&r));
    memset(c.got, 0, c.count * sizeof *c.got);
    case_diagnose(&c);
    CHECK(c.d.unwritten == 0 && c.d.m.wrong > c.count / 2, "all zero: %zu wrong, %zu unwritten",
          c.d.m.wrong, c.d.unwritten);
    CHECK_HINT(&c, "all zero");
    case_close(&c);
}

static void test_diagnose_transposed(void **state) {
    (void)state;
    struct rng r = rng_for("transposed");
    struct case_ c;
    int n = random_odd(&r, 17, 59);
    case_open(&c, "01_per_element", n, rng_next(&r));
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            c.got[(size_t)i * n + j] = (float)c.expected[(size_t)j * n + i];
    case_diagnose(&c);
    CHECK_HINT(&c, "transposed");
    case_close(&c);
}

static void test_diagnose_swapped(void **state) {
    (void)state;
    struct rng r = rng_for("swapped");
    struct case_ c;
    int n = random_odd(&r, 17, 59);
    case_open(&c, "01_per_element", n, rng_next(&r));
    size_t nn = (size_t)n * n;
    float *a = malloc(nn * sizeof *a), *b = malloc(nn * sizeof *b);
    double *ba = malloc(nn * sizeof *ba);
    CHECK(a && b && ba, "out of memory");
    clu_random_fill(a, nn, c.seed, 0);
    clu_random_fill(b, nn, c.seed, 1);
    clu_ref_matmul(n, b, a, ba, NULL);
    for (size_t k = 0; k < nn; k++)
        c.got[k] = (float)ba[k];
    free(a);
    free(b);
    free(ba);
    case_diagnose(&c);
    CHECK_HINT(&c, "B*A");
    case_close(&c);
}

static void test_diagnose_last_column_or_row(void **state) {
    (void)state;
    struct rng r = rng_for("last");
    for (int row = 0; row < 2; row++) {
        struct case_ c;
        int n = random_odd(&r, 17, 59);
        case_open(&c, "01_per_element", n, rng_next(&r));
        for (int i = 0; i < n; i++) {
            size_t k = row ? (size_t)(n - 1) * n + i : (size_t)i * n + (n - 1);
            c.got[k] = off(&c, k);
        }
        case_diagnose(&c);
        CHECK(c.d.m.wrong == (size_t)n, "%zu wrong, expected %d", c.d.m.wrong, n);
        CHECK_HINT(&c, row ? "last row" : "last column");
        case_close(&c);
    }
}

/* 05 with A's block row taken from C's block column (one operand of the lecture's bug). */
static void test_diagnose_diagonal_blocks(void **state) {
    (void)state;
    struct rng r = rng_for("diagonal");
    for (int round = 0; round < 2; round++) {
        struct case_ c;
        int n = round == 0 ? 48 : 16 * (int)rng_range(&r, 2, 6);
        case_open(&c, "05_blocked_16x16", n, rng_next(&r));
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++) {
                int from_row = j / 16 * 16 + i % 16;
                c.got[(size_t)i * n + j] = (float)c.expected[(size_t)from_row * n + j];
            }
        case_diagnose(&c);
        CHECK(c.d.m.wrong > 0, "N=%d: nothing wrong", n);
        CHECK_HINT(&c, "diagonal");
        case_close(&c);
    }
}

/* 05 where every block holds the values of the first. */
static void test_diagnose_first_block(void **state) {
    (void)state;
    struct rng r = rng_for("first_block");
    for (int round = 0; round < 2; round++) {
        struct case_ c;
        int n = round == 0 ? 48 : 16 * (int)rng_range(&r, 2, 6);
        case_open(&c, "05_blocked_16x16", n, rng_next(&r));
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++)
                c.got[(size_t)i * n + j] = (float)c.expected[(size_t)(i % 16) * n + j % 16];
        case_diagnose(&c);
        CHECK_HINT(&c, "first");
        CHECK_HINT(&c, "block");
        case_close(&c);
    }
}

/* A kernel that assumes N is a multiple of 16 gets the last N % 16 rows or columns wrong. */
static void test_diagnose_not_multiple_of_16(void **state) {
    (void)state;
    struct rng r = rng_for("tail16");
    for (int round = 0; round < 4; round++) {
        struct case_ c;
        int n, columns = round >= 2 && rng_range(&r, 0, 1);
        if (round == 0) {
            n = 100;
        } else {
            do
                n = (int)rng_range(&r, 18, 200);
            while (n % 16 < 2);
        }
        int tail = n % 16;
        case_open(&c, "01_per_element", n, rng_next(&r));
        for (int i = n - tail; i < n; i++)
            for (int j = 0; j < n; j++) {
                size_t k = columns ? (size_t)j * n + i : (size_t)i * n + j;
                c.got[k] = off(&c, k);
            }
        case_diagnose(&c);
        CHECK(c.d.m.wrong == (size_t)tail * n, "N=%d: %zu wrong, expected %d", n, c.d.m.wrong,
              tail * n);
        CHECK_HINT(&c, "multiple of 16");
        case_close(&c);
    }
}

/* One wrong element away from the edges forms no pattern: no hint, and the right index. */
static void test_diagnose_single_element(void **state) {
    (void)state;
    struct rng r = rng_for("single");
    for (int round = 0; round < 3; round++) {
        struct case_ c;
        int n = (int)rng_range(&r, 40, 90);
        case_open(&c, round == 2 ? "05_blocked_16x16" : "01_per_element",
                  round == 2 ? 16 * (n / 16) : n, rng_next(&r));
        n = c.n;
        int i = (int)rng_range(&r, 0, n - 17), j = (int)rng_range(&r, 0, n - 17);
        size_t k = (size_t)i * n + j;
        c.got[k] = off(&c, k);
        case_diagnose(&c);
        CHECK(c.d.m.wrong == 1 && c.d.m.first == k && c.d.m.got == c.got[k],
              "N=%d, C(%d,%d) wrong: %zu wrong, first %zu", n, i, j, c.d.m.wrong, c.d.m.first);
        CHECK(c.d.hint[0] == '\0', "N=%d, only C(%d,%d) wrong, yet the hint says \"%s\"", n, i, j,
              c.d.hint);
        case_close(&c);
    }
}

static void test_diagnose_vector(void **state) {
    (void)state;
    struct rng r = rng_for("vector");
    struct case_ c;
    int n = random_odd(&r, 1001, 200001);
    case_open(&c, "00_vadd", n, rng_next(&r));
    CHECK(c.count == (size_t)n, "count %zu for n %d", c.count, n);
    float *a = malloc((size_t)n * sizeof *a), *b = malloc((size_t)n * sizeof *b);
    CHECK(a && b, "out of memory");
    clu_random_fill(a, (size_t)n, c.seed, 0);
    clu_random_fill(b, (size_t)n, c.seed, 1);
    for (int i = 0; i < n; i++)
        c.got[i] = a[i] + b[i]; /* what a float kernel computes */
    free(a);
    free(b);
    case_diagnose(&c);
    CHECK(c.d.m.wrong == 0 && c.d.hint[0] == '\0', "n=%d: float sums give %zu wrong, hint \"%s\"",
          n, c.d.m.wrong, c.d.hint);
    size_t at = (size_t)rng_range(&r, 0, n - 1);
    float right = c.got[at];
    c.got[at] = (float)(right + 1e-3);
    case_diagnose(&c);
    CHECK(c.d.m.wrong == 1 && c.d.m.first == at, "n=%d, c[%zu] off by 1e-3: %zu wrong, first %zu",
          n, at, c.d.m.wrong, c.d.m.first);
    CHECK(fabs(c.d.m.expected - c.expected[at]) < 1e-12 && c.d.m.got == c.got[at],
          "first wrong reported as %g (expected %g)", (double)c.d.m.got, c.d.m.expected);
    clu_fill_unwritten(&c.got[at], 1); /* one element left as the harness filled it */
    case_diagnose(&c);
    CHECK(c.d.unwritten == 1 && c.d.m.first == at, "one unwritten: unwritten %zu, first %zu",
          c.d.unwritten, c.d.m.first);
    CHECK_HINT(&c, "never written");
    c.got[at] = NAN; /* one NaN the kernel computed: written, and said so */
    case_diagnose(&c);
    CHECK(c.d.unwritten == 0 && c.d.nan.computed == 1 && c.d.m.first == at,
          "one computed NaN: unwritten %zu, computed %zu, first %zu", c.d.unwritten,
          c.d.nan.computed, c.d.m.first);
    CHECK_HINT(&c, "NaN the kernel computed");
    case_close(&c);
}

static void test_guard_damage(void **state) {
    (void)state;
    struct rng r = rng_for("guard");
    static float guard[HARNESS_GUARD];
    for (int round = 0; round < 5; round++) {
        for (size_t i = 0; i < HARNESS_GUARD; i++)
            guard[i] = HARNESS_GUARD_VALUE;
        CHECK(grader_guard_damage(guard, HARNESS_GUARD) == 0, "intact guard counted damaged");
        size_t k = (size_t)rng_range(&r, 1, round == 4 ? HARNESS_GUARD : 60), set = 0,
               in_prefix = 0;
        size_t prefix = (size_t)rng_range(&r, 0, HARNESS_GUARD);
        while (set < k) {
            size_t at = (size_t)rng_range(&r, 0, HARNESS_GUARD - 1);
            if (memcmp(&guard[at], &(float){HARNESS_GUARD_VALUE}, sizeof(float)) != 0)
                continue;
            float values[] = {0.0f,
                              NAN,
                              -HARNESS_GUARD_VALUE,
                              nextafterf(HARNESS_GUARD_VALUE, INFINITY),
                              nextafterf(HARNESS_GUARD_VALUE, 0.0f),
                              (float)rng_unit(&r)};
            guard[at] = values[rng_range(&r, 0, 5)];
            in_prefix += at < prefix;
            set++;
        }
        CHECK(grader_guard_damage(guard, HARNESS_GUARD) == k, "%zu changed, %zu counted", k,
              grader_guard_damage(guard, HARNESS_GUARD));
        CHECK(grader_guard_damage(guard, prefix) == in_prefix,
              "%zu changed in the first %zu, %zu counted", in_prefix, prefix,
              grader_guard_damage(guard, prefix));
    }
}

/* The guard zone covers every write of a kernel without bounds checks over a grid of whole tiles
 * (a power of two up to GUARD_TILE = 2^8, C indexed i * N + j or j * M + i), at random sizes;
 * vectors keep the fixed zone. */
static void test_guard_count(void **state) {
    (void)state;
    struct rng r = rng_for("guard count");
    const struct grader_exercise *matrix = grader_find_exercise("11_any_size");
    const struct grader_exercise *vector = grader_find_exercise("00_vadd");
    CHECK(grader_guard_count(vector, grader_square(rng_range(&r, 1, 5000))) == HARNESS_GUARD,
          "a vector's guard zone is not HARNESS_GUARD");
    for (int round = 0; round < 200; round++) {
        struct grader_size s = {rng_range(&r, 1, 3000), rng_range(&r, 1, 3000),
                                rng_range(&r, 1, 3000)};
        size_t tile = (size_t)1 << rng_range(&r, 0, 8), count = (size_t)s.m * (size_t)s.n;
        size_t m = ((size_t)s.m + tile - 1) / tile * tile,
               n = ((size_t)s.n + tile - 1) / tile * tile;
        size_t last_row_major = (m - 1) * (size_t)s.n + (n - 1);
        size_t last_col_major = (n - 1) * (size_t)s.m + (m - 1);
        size_t last = last_row_major > last_col_major ? last_row_major : last_col_major;
        size_t guard = grader_guard_count(matrix, s);
        CHECK(guard >= HARNESS_GUARD, "%dx%d: a guard zone of %zu floats", s.m, s.n, guard);
        CHECK(last < count + guard,
              "%dx%d in tiles of %zu: writes at %zu, past C and its %zu guard floats", s.m, s.n,
              tile, last, guard);
    }
}

/* A sampled element against its double dot product: right where C is the product (rounded to
 * float), wrong where it is off by a few ulps of the largest term's sum or NaN. */
static void test_element_right(void **state) {
    (void)state;
    struct rng r = rng_for("element");
    for (int round = 0; round < 20; round++) {
        int n = 1 + (int)(rng_next(&r) % 97);
        size_t un = (size_t)n, count = un * un;
        float *a = malloc(count * sizeof *a), *b = malloc(count * sizeof *b),
              *c = malloc(count * sizeof *c);
        CHECK(a && b && c, "out of memory");
        uint64_t inputs = rng_next(&r);
        clu_random_fill(a, count, inputs, 0);
        clu_random_fill(b, count, inputs, 1);
        for (size_t i = 0; i < un; i++)
            for (size_t j = 0; j < un; j++) {
                double sum = 0.0;
                for (size_t k = 0; k < un; k++)
                    sum += (double)a[i * un + k] * (double)b[k * un + j];
                c[i * un + j] = (float)sum;
            }
        size_t i = rng_next(&r) % un, j = rng_next(&r) % un;
        double want = -1.0;
        CHECK(grader_element_right(n, a, b, c, i, j, &want), "n %d: C(%zu,%zu) right", n, i, j);
        CHECK(grader_element_right_drawn(n, inputs, c, i, j), "n %d: C(%zu,%zu) right, drawn", n, i,
              j);
        CHECK(!grader_element_right_drawn(n, inputs ^ 1, c, i, j),
              "n %d: C(%zu,%zu) of other inputs passes", n, i, j);
        CHECK(fabs(want - (double)c[i * un + j]) < 1e-3, "n %d: want %g, C %g", n, want,
              (double)c[i * un + j]);
        float right = c[i * un + j];
        c[i * un + j] = right + 0.5f + fabsf(right);
        CHECK(!grader_element_right(n, a, b, c, i, j, NULL), "n %d: a wrong C(%zu,%zu) passes", n,
              i, j);
        CHECK(!grader_element_right_drawn(n, inputs, c, i, j), "n %d: a wrong C passes, drawn", n);
        c[i * un + j] = NAN;
        CHECK(!grader_element_right(n, a, b, c, i, j, NULL), "n %d: NaN passes", n);
        free(a);
        free(b);
        free(c);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table_sizes),
        cmocka_unit_test(test_table_size_valid_rule),
        cmocka_unit_test(test_table_max_points),
        cmocka_unit_test(test_table_tuning),
        cmocka_unit_test(test_table_cuda_twins),
        cmocka_unit_test(test_element_right),
        cmocka_unit_test(test_memcheck_second_size),
        cmocka_unit_test(test_rectangular_sizes),
        cmocka_unit_test(test_table_ids),
        cmocka_unit_test(test_table_technique_misses),
        cmocka_unit_test(test_technique_names_the_operand),
        cmocka_unit_test(test_tiles_parse),
        cmocka_unit_test(test_technique_barriers_per_tile),
        cmocka_unit_test(test_signature_is_the_skeletons),
        cmocka_unit_test(test_timeout_against_the_reference),
        cmocka_unit_test(test_find_exercise),
        cmocka_unit_test(test_output_count_and_flops),
        cmocka_unit_test(test_run_exit_status),
        cmocka_unit_test(test_run_signal),
        cmocka_unit_test(test_run_sigsegv),
        cmocka_unit_test(test_describe_names_sigsegv),
        cmocka_unit_test(test_run_timeout),
        cmocka_unit_test(test_run_kills_group_on_exit),
        cmocka_unit_test(test_run_kills_group_on_timeout),
        cmocka_unit_test(test_run_output_file),
        cmocka_unit_test(test_run_stdin_is_dev_null),
        cmocka_unit_test(test_run_no_start),
        cmocka_unit_test(test_describe_no_start_reason),
        cmocka_unit_test(test_run_output_cap),
        cmocka_unit_test(test_read_capped_short),
        cmocka_unit_test(test_read_capped_long),
        cmocka_unit_test(test_read_capped_missing),
        cmocka_unit_test(test_json_escape_specials),
        cmocka_unit_test(test_json_escape_bytes),
        cmocka_unit_test(test_json_escape_jq_roundtrip),
        cmocka_unit_test(test_write_json),
        cmocka_unit_test(test_reference_exact),
        cmocka_unit_test(test_diagnose_all_nan),
        cmocka_unit_test(test_diagnose_partly_nan),
        cmocka_unit_test(test_diagnose_all_zero),
        cmocka_unit_test(test_diagnose_transposed),
        cmocka_unit_test(test_diagnose_swapped),
        cmocka_unit_test(test_diagnose_last_column_or_row),
        cmocka_unit_test(test_diagnose_diagonal_blocks),
        cmocka_unit_test(test_diagnose_first_block),
        cmocka_unit_test(test_diagnose_not_multiple_of_16),
        cmocka_unit_test(test_diagnose_single_element),
        cmocka_unit_test(test_diagnose_vector),
        cmocka_unit_test(test_guard_damage),
        cmocka_unit_test(test_guard_count),
        cmocka_unit_test(test_pace_cache),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
