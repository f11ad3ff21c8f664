/* test_common.c - unit tests of the shared host library (common/clu.h), with cmocka.
 *
 * Build: cc -std=c11 -O2 -g -Wall -Wextra -Werror -Icommon tests/unit/test_common.c \
 *            build/libclu.a -lcmocka -lOpenCL -lm
 *
 * Random inputs come from one master seed drawn at start from the clock and the pid; it is printed
 * at start and again if anything fails. CLU_TEST_SEED=<seed> repeats a run. Each test derives its
 * own seed from the master seed and its name, so a single test is reproducible on its own.
 *
 * Two groups: "host" needs no OpenCL (it runs first, so its forked children never inherit an
 * initialised OpenCL runtime); "device" needs an OpenCL device (POCL in CI).
 */
#define _GNU_SOURCE /* mkstemp, mkdtemp, fork, dup2, setenv, realpath, strcasestr */
#include "clu.h"
#include "clu_vendor.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

/* ------------------------------------------------------------------ seeds and random numbers */

static unsigned long long g_master_seed;

/* A failed check names the condition, a message and the seed that reproduces it. */
#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            print_error("%s:%d: check failed: %s\n    ", __FILE__, __LINE__, #cond);               \
            print_error(__VA_ARGS__);                                                              \
            print_error("\n    (rerun with CLU_TEST_SEED=%llu)\n", g_master_seed);                 \
            fail();                                                                                \
        }                                                                                          \
    } while (0)

struct rng {
    uint64_t s;
};

/* splitmix64, kept separate from the library's generator so test inputs do not depend on it */
static uint64_t rng_u64(struct rng *r) {
    uint64_t z = (r->s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* uniform in [0, n) */
static size_t rng_below(struct rng *r, size_t n) {
    return (size_t)(rng_u64(r) % n);
}

/* uniform in [lo, hi] */
static int rng_int(struct rng *r, int lo, int hi) {
    return lo + (int)rng_below(r, (size_t)(hi - lo + 1));
}

/* uniform in [0, 1) */
static double rng_unit(struct rng *r) {
    return (double)(rng_u64(r) >> 11) * (1.0 / 9007199254740992.0);
}

static double rng_range(struct rng *r, double lo, double hi) {
    return lo + (hi - lo) * rng_unit(r);
}

static struct rng rng_for(const char *test_name) {
    uint64_t h = 1469598103934665603ull; /* FNV-1a of the name */
    for (const char *p = test_name; *p; p++)
        h = (h ^ (unsigned char)*p) * 1099511628211ull;
    struct rng r = {g_master_seed ^ h};
    rng_u64(&r);
    return r;
}
#define TEST_RNG() rng_for(__func__)

/* ------------------------------------------------------------------ files and captured output */

static const char *tmp_dir(void) {
    const char *t = getenv("TMPDIR");
    return t && *t ? t : "/tmp";
}

/* Temp files and folders a test made, removed after it even when it fails. */
static char g_made[256][PATH_MAX + 32];
static int g_n_made;

static void remember(const char *path) {
    if (g_n_made < 256)
        snprintf(g_made[g_n_made++], sizeof g_made[0], "%s", path);
}

static int remove_made(void **state) {
    (void)state;
    while (g_n_made > 0) {
        const char *p = g_made[--g_n_made];
        if (unlink(p) != 0)
            rmdir(p); /* a folder (or already gone) */
    }
    return 0;
}

/* A fresh empty temp file; its name in path. */
static void temp_file(char *path, size_t size) {
    snprintf(path, size, "%s/clu_unit_XXXXXX", tmp_dir());
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    remember(path);
}

static void write_file(const char *path, const void *data, size_t len) {
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, len, f), len);
    assert_int_equal(fclose(f), 0);
}

static void append_file(const char *path, const void *data, size_t len) {
    FILE *f = fopen(path, "ab");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, len, f), len);
    assert_int_equal(fclose(f), 0);
}

/* Whole file, NUL-terminated, with plain stdio (independent of clu_read_file). */
static char *slurp(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1024, n = 0;
    char *buf = malloc(cap);
    size_t got;
    while (buf && (got = fread(buf + n, 1, cap - n - 1, f)) > 0) {
        n += got;
        if (n + 1 == cap) {
            cap *= 2;
            buf = realloc(buf, cap);
        }
    }
    fclose(f);
    if (buf)
        buf[n] = '\0';
    if (len)
        *len = n;
    return buf;
}

static int count_lines(const char *text) {
    int lines = 0;
    for (const char *p = text; *p; p++)
        lines += *p == '\n';
    return lines;
}

/* Redirect a file descriptor (1 or 2) into a temp file around a call. */
struct capture {
    int fd, saved;
    char path[PATH_MAX];
};

static void capture_start(struct capture *c, int fd) {
    fflush(stdout);
    fflush(stderr);
    snprintf(c->path, sizeof c->path, "%s/clu_unit_cap_XXXXXX", tmp_dir());
    int t = mkstemp(c->path);
    assert_true(t >= 0);
    c->fd = fd;
    c->saved = dup(fd);
    assert_true(c->saved >= 0);
    assert_true(dup2(t, fd) >= 0);
    close(t);
}

/* Restores the descriptor and returns what was written (malloc'd, NUL-terminated). */
static char *capture_end(struct capture *c) {
    fflush(stdout);
    fflush(stderr);
    dup2(c->saved, c->fd);
    close(c->saved);
    char *text = slurp(c->path, NULL);
    unlink(c->path);
    assert_non_null(text);
    return text;
}

/* Runs fn(arg) in a forked child with stdout and stderr sent to files; returns the exit status
 * (or 128 + signal). If fn returns, the child exits with the status fn returned. out / err, if
 * not NULL, receive what the child printed (malloc'd). */
static int run_in_child(int (*fn)(void *), void *arg, char **out, char **err) {
    char out_path[PATH_MAX], err_path[PATH_MAX];
    temp_file(out_path, sizeof out_path);
    temp_file(err_path, sizeof err_path);
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        int o = open(out_path, O_WRONLY | O_TRUNC), e = open(err_path, O_WRONLY | O_TRUNC);
        if (o < 0 || e < 0 || dup2(o, 1) < 0 || dup2(e, 2) < 0)
            _exit(120);
        fflush(stdout);
        _exit(fn(arg));
    }
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    if (out)
        *out = slurp(out_path, NULL);
    if (err)
        *err = slurp(err_path, NULL);
    unlink(out_path);
    unlink(err_path);
    if (WIFEXITED(status))
        return WEXITSTATUS(status);
    return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : -1;
}

/* ------------------------------------------------------------------ clu_error_name, reports */

#define EXPECT_NAME(code) assert_string_equal(clu_error_name(code), #code)

static void error_name_known_codes(void **state) {
    (void)state;
    EXPECT_NAME(CL_SUCCESS);
    EXPECT_NAME(CL_INVALID_WORK_GROUP_SIZE);
    EXPECT_NAME(CL_BUILD_PROGRAM_FAILURE);
    EXPECT_NAME(CL_INVALID_KERNEL_ARGS);
    EXPECT_NAME(CL_OUT_OF_RESOURCES);
    EXPECT_NAME(CL_INVALID_VALUE);
    EXPECT_NAME(CL_DEVICE_NOT_FOUND);
    EXPECT_NAME(CL_INVALID_DEVICE_PARTITION_COUNT);
    assert_string_equal(clu_error_name(-1001), "CL_PLATFORM_NOT_FOUND_KHR");
}

static void error_name_unknown_codes(void **state) {
    (void)state;
    struct rng r = TEST_RNG();
    assert_string_equal(clu_error_name(1), "unknown");
    assert_string_equal(clu_error_name(-20), "unknown"); /* gap between -19 and -30 */
    assert_string_equal(clu_error_name(-9999), "unknown");
    assert_string_equal(clu_error_name(INT32_MIN), "unknown");
    assert_string_equal(clu_error_name(INT32_MAX), "unknown");
    for (int t = 0; t < 100; t++) {
        cl_int v = rng_int(&r, 2, 1000000) * (rng_below(&r, 2) ? 1 : -1);
        if (v >= -2000 && v <= 0)
            continue; /* extension codes live down to about -1100; stay clear of them */
        CHECK(strcmp(clu_error_name(v), "unknown") == 0, "code %d named %s", (int)v,
              clu_error_name(v));
    }
}

/* Every OpenCL 1.2 code (0, -1..-19, -30..-68) has its own "CL_..." name. */
static void error_name_all_cl12_codes_distinct(void **state) {
    (void)state;
    const char *seen[70] = {0};
    int count = 0;
    for (int v = 0; v >= -68; v--) {
        if (v <= -20 && v >= -29)
            continue;
        const char *name = clu_error_name(v);
        CHECK(strncmp(name, "CL_", 3) == 0, "code %d named \"%s\"", v, name);
        for (int k = 0; k < count; k++)
            CHECK(strcmp(seen[k], name) != 0, "codes share the name %s", name);
        seen[count++] = name;
    }
    assert_int_equal(count, 59);
}

static void report_error_prints_name_operation_place_and_hint(void **state) {
    (void)state;
    struct rng r = TEST_RNG();
    int line = rng_int(&r, 1, 99999);
    struct capture c;
    capture_start(&c, 2);
    cl_int ret =
        clu_report_error(CL_INVALID_WORK_GROUP_SIZE, "clEnqueueNDRangeKernel", "foo.c", line);
    char *text = capture_end(&c);
    char where[64];
    snprintf(where, sizeof where, "foo.c:%d", line);
    assert_int_equal(ret, CL_INVALID_WORK_GROUP_SIZE);
    CHECK(strstr(text, "CL_INVALID_WORK_GROUP_SIZE") && strstr(text, "(-54)") &&
              strstr(text, "clEnqueueNDRangeKernel") && strstr(text, where) &&
              count_lines(text) == 2, /* the error line, then a hint */
          "report was: %s", text);
    free(text);

    capture_start(&c, 2);
    ret = clu_report_error(-12345, "op", "bar.c", 7);
    text = capture_end(&c);
    assert_int_equal(ret, -12345);
    CHECK(strstr(text, "unknown") && strstr(text, "(-12345)") && count_lines(text) == 1,
          "report was: %s", text);
    free(text);
}

static int check_fails_child(void *arg) {
    (void)arg;
    CLU_CHECK(CL_SUCCESS); /* must return */
    CLU_CHECK_ERR(CL_OUT_OF_RESOURCES, "clFinish");
    return 99; /* not reached if the check exits */
}

static void check_exits_3_on_error(void **state) {
    (void)state;
    char *err = NULL;
    int status = run_in_child(check_fails_child, NULL, NULL, &err);
    assert_int_equal(status, CLU_EXIT_OPENCL);
    assert_int_equal(CLU_EXIT_OPENCL, 3);
    CHECK(strstr(err, "CL_OUT_OF_RESOURCES") && strstr(err, "clFinish") &&
              strstr(err, "test_common.c:"),
          "stderr was: %s", err);
    free(err);
}

/* ------------------------------------------------------------------ clu_random_fill */

static void random_fill_deterministic(void **state) {
    (void)state;
    struct rng r = TEST_RNG();
    const size_t sizes[] = {1, 7, 33, 100, 1000};
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
        size_t n = sizes[s];
        uint64_t seed = rng_u64(&r), stream = rng_below(&r, 8);
        float *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
        assert_non_null(x);
        assert_non_null(y);
        memset(y, 0xAB, n * sizeof *y);
        clu_random_fill(x, n, seed, stream);
        clu_random_fill(y, n, seed, stream);
        CHECK(memcmp(x, y, n * sizeof *x) == 0, "n %zu seed %llu stream %llu differ", n,
              (unsigned long long)seed, (unsigned long long)stream);
        free(x);
        free(y);
    }
    /* n = 0 writes nothing */
    float guard = 1234.5f;
    clu_random_fill(&guard, 0, rng_u64(&r), 0);
    assert_true(guard == 1234.5f);
}

/* The values are splitmix64's, as documented (the grader and every host program must draw the
 * same inputs from a seed, whichever of the two calls draws them): the stream's state is seed ^
 * stream * 0xD1B54A32D192ED03, its first draw is skipped, and each value is the top 24 bits of a
 * draw on a 2^-23 grid in [-1, 1). Written out here, apart from clu_matrix.c. */
static uint64_t splitmix64_spec(uint64_t *s) {
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
static void random_next_is_fill_is_splitmix64(void **state) {
    (void)state;
    struct rng r = TEST_RNG();
    for (int t = 0; t < 24; t++) {
        /* (the last four above a million: the fill's parts on threads of their own) */
        size_t n = t < 20 ? 1 + (size_t)rng_below(&r, 3000)
                          : ((size_t)1 << 20) * (size_t)(t - 18) + (size_t)rng_below(&r, 100000);
        uint64_t seed = rng_u64(&r), stream = rng_below(&r, 4);
        float *x = malloc(n * sizeof *x);
        assert_non_null(x);
        clu_random_fill(x, n, seed, stream);
        struct clu_random it;
        clu_random_start(&it, seed, stream);
        uint64_t spec = seed ^ (stream * 0xD1B54A32D192ED03ull);
        (void)splitmix64_spec(&spec);
        for (size_t i = 0; i < n; i++) {
            float want = (float)(splitmix64_spec(&spec) >> 40) / 8388608.0f - 1.0f;
            float next = clu_random_next(&it);
            CHECK(memcmp(&x[i], &want, sizeof want) == 0 && memcmp(&next, &want, sizeof want) == 0,
                  "seed %llu stream %llu element %zu: fill %a, next %a, splitmix64 %a",
                  (unsigned long long)seed, (unsigned long long)stream, i, x[i], next, want);
        }
        free(x);
    }
}

/* ------------------------------------------------------------------ clu_parallel_for */

/* Every index of [0, n) is one part's, exactly once; the parts are contiguous, in order, as many as
 * clu_parallel_parts says (one per min_part items at most, never over CLU_PARALLEL_MAX or the
 * CPUs), at random n and part sizes. */
struct coverage {
    unsigned char *seen; /* per index: how many parts visited it */
    size_t lo[CLU_PARALLEL_MAX], hi[CLU_PARALLEL_MAX];
    int calls[CLU_PARALLEL_MAX]; /* per part */
};
static void cover(void *ctx, size_t lo, size_t hi, size_t part) {
    struct coverage *c = ctx;
    c->lo[part] = lo;
    c->hi[part] = hi;
    c->calls[part]++;
    for (size_t i = lo; i < hi; i++)
        c->seen[i]++;
}
static void parallel_for_covers_each_once(void **state) {
    (void)state;
    struct rng r = TEST_RNG();
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    for (int t = 0; t < 60; t++) {
        size_t n = t < 5 ? (size_t)t : 1 + rng_below(&r, t % 3 ? 5000 : 3000000);
        size_t min_part = t % 7 == 3 ? 0 : 1 + rng_below(&r, t % 2 ? 64 : n + 10); /* (0: as 1) */
        struct coverage c = {calloc(n + 1, 1), {0}, {0}, {0}};
        assert_non_null(c.seen);
        size_t want = clu_parallel_parts(n, min_part);
        size_t parts = clu_parallel_for(n, min_part, cover, &c);
        CHECK(parts == want && parts >= 1 && parts <= CLU_PARALLEL_MAX &&
                  (cpus < 1 || parts <= (size_t)cpus) && (parts == 1 || n / parts >= min_part),
              "n %zu min_part %zu: %zu parts (%zu said, %ld CPUs)", n, min_part, parts, want, cpus);
        for (size_t p = 0; p < parts; p++)
            CHECK(c.calls[p] == 1 && c.lo[p] == (p ? c.hi[p - 1] : 0) &&
                      c.hi[p] == (p + 1 < parts ? c.lo[p + 1] : n),
                  "n %zu: part %zu of %zu called %d times over [%zu, %zu)", n, p, parts, c.calls[p],
                  c.lo[p], c.hi[p]);
        for (size_t i = 0; i < n; i++)
            CHECK(c.seen[i] == 1, "n %zu min_part %zu: index %zu seen %d times", n, min_part, i,
                  c.seen[i]);
        free(c.seen);
    }
}

/* The reference product in parts of rows is the one loop's, bit for bit (each element sums its
 * terms in the same order), at random sizes with several parts and with one. */
static void ref_gemm_in_parts_is_one_loop(void **state) {
    (void)state;
    struct rng r = TEST_RNG();
    for (int t = 0; t < 6; t++) {
        int n = rng_int(&r, 8, 90), k = rng_int(&r, 8, 90);
        int m = t % 2 ? rng_int(&r, 1, 40) : (int)((((size_t)1 << 23) / ((size_t)n * k)) + 50);
        size_t mk = (size_t)m * k, kn = (size_t)k * n, mn = (size_t)m * n;
        float *a = malloc(mk * sizeof *a), *b = malloc(kn * sizeof *b);
        double *ref = malloc(mn * sizeof *ref), *abs_ref = malloc(mn * sizeof *abs_ref);
        assert_true(a && b && ref && abs_ref);
        uint64_t seed = rng_u64(&r);
        clu_random_fill(a, mk, seed, 0);
        clu_random_fill(b, kn, seed, 1);
        clu_ref_gemm(m, n, k, a, b, ref, abs_ref);
        for (int i = 0; i < m; i++)
            for (int j = 0; j < n; j++) {
                double sum = 0.0, abs_sum = 0.0;
                for (int kk = 0; kk < k; kk++) {
                    double aik = a[(size_t)i * k + kk];
                    sum += aik * b[(size_t)kk * n + j];
                    abs_sum += fabs(aik) * fabs((double)b[(size_t)kk * n + j]);
                }
                size_t at = (size_t)i * n + j;
                CHECK(memcmp(&ref[at], &sum, sizeof sum) == 0 &&
                          memcmp(&abs_ref[at], &abs_sum, sizeof sum) == 0,
                      "%d x %d x %d: C(%d, %d) %a (abs %a), one loop's %a (abs %a)", m, n, k, i, j,
                      ref[at], abs_ref[at], sum, abs_sum);
            }
        free(a), free(b), free(ref), free(abs_ref);
    }
}

/* fraction of equal elements and the correlation of two arrays */
static void similarity(const float *x, const float *y, size_t n, double *equal, double *corr) {
    double sx = 0, sy = 0, sxx = 0, syy = 0, sxy = 0;
    size_t same = 0;
    for (size_t i = 0; i < n; i++) {
        same += x[i] == y[i];
        sx += x[i];
        sy += y[i];
        sxx += (double)x[i] * x[i];
        syy += (double)y[i] * y[i];
        sxy += (double)x[i] * y[i];
    }
    double cov = sxy / n - sx / n * sy / n;
    double vx = sxx / n - sx / n * sx / n, vy = syy / n - sy / n * sy / n;
    *equal = (double)same / n;
    *corr = cov / sqrt(vx * vy);
}

static void random_fill_streams_and_seeds_differ(void **state) {
    (void)state;
    struct rng r = TEST_RNG();
    const size_t n = 10000;
    float *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
    assert_non_null(x);
    assert_non_null(y);
    for (int t = 0; t < 20; t++) {
        uint64_t seed = t == 0 ? 42 : rng_u64(&r), stream = t == 0 ? 0 : rng_below(&r, 1000);
        /* half the cases vary the stream, half the seed (by one, or at random) */
        uint64_t seed2 = seed, stream2 = stream;
        if (t % 2 == 0)
            stream2 = stream + 1 + rng_below(&r, 3);
        else
            seed2 = t % 4 == 1 ? seed + 1 : rng_u64(&r);
        clu_random_fill(x, n, seed, stream);
        clu_random_fill(y, n, seed2, stream2);
        double equal, corr;
        similarity(x, y, n, &equal, &corr);
        /* independent arrays: almost no equal elements, correlation ~ N(0, 0.01) */
        CHECK(equal < 0.01 && fabs(corr) < 0.06,
              "(seed %llu, stream %llu) vs (%llu, %llu): %.4f equal, correlation %.4f",
              (unsigned long long)seed, (unsigned long long)stream, (unsigned long long)seed2,
              (unsigned long long)stream2, equal, corr);
    }
    free(x);
    free(y);
}

static void random_fill_range_and_moments(void **state) {
    (void)state;
    struct rng r = TEST_RNG();
    const size_t n = 100000;
    float *x = malloc(n * sizeof *x);
    assert_non_null(x);
    uint64_t seed = rng_u64(&r), stream = rng_below(&r, 16);
    clu_random_fill(x, n, seed, stream);
    double sum = 0, sum2 = 0, lo = 1, hi = -1;
    size_t bins[10] = {0};
    for (size_t i = 0; i < n; i++) {
        CHECK(x[i] >= -1.0f && x[i] < 1.0f, "x[%zu] = %.9g outside [-1, 1) (seed %llu)", i,
              (double)x[i], (unsigned long long)seed);
        sum += x[i];
        sum2 += (double)x[i] * x[i];
        lo = fmin(lo, x[i]);
        hi = fmax(hi, x[i]);
        bins[(size_t)((x[i] + 1.0f) * 5.0f)]++;
    }
    double mean = sum / n, var = sum2 / n - mean * mean;
    /* uniform [-1,1): mean 0 (sd of the mean 0.0018), variance 1/3, each tenth ~ 10000 +- 95 */
    CHECK(fabs(mean) < 0.01, "mean %.5f", mean);
    CHECK(fabs(var - 1.0 / 3.0) < 0.01, "variance %.5f", var);
    CHECK(lo < -0.999 && hi > 0.999, "range [%.5f, %.5f]", lo, hi);
    for (int b = 0; b < 10; b++)
        CHECK(bins[b] > 9400 && bins[b] < 10600, "bin %d holds %zu of 100000", b, bins[b]);

    /* never constant, even for tiny n */
    for (int t = 0; t < 50; t++) {
        float y[7];
        clu_random_fill(y, 7, rng_u64(&r), rng_below(&r, 4));
        int constant = 1;
        for (int i = 1; i < 7; i++)
            constant &= y[i] == y[0];
        CHECK(!constant, "7 values all equal to %g", (double)y[0]);
    }
    free(x);
}

/* ------------------------------------------------------------------ clu_ref_matmul */

static void fill_matrix(struct rng *r, float *m, size_t count) {
    for (size_t i = 0; i < count; i++)
        m[i] = (float)rng_range(r, -2.0, 2.0);
}

static void naive_matmul(int n, const float *a, const float *b, double *c, double *abs_c) {
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            double s = 0, sa = 0;
            for (int k = 0; k < n; k++) {
                s += (double)a[i * n + k] * (double)b[k * n + j];
                sa += fabs((double)a[i * n + k]) * fabs((double)b[k * n + j]);
            }
            c[i * n + j] = s;
            abs_c[i * n + j] = sa;
        }
}

static void transpose(int n, const float *m, float *t) {
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            t[j * n + i] = m[i * n + j];
}

struct mats {
    int n;
    float *a, *b, *t1, *t2;
    double *ref, *abs_ref, *naive, *abs_naive, *other;
};

static void mats_alloc(struct mats *m, int n) {
    size_t nn = (size_t)n * n;
    m->n = n;
    m->a = malloc(nn * sizeof(float));
    m->b = malloc(nn * sizeof(float));
    m->t1 = malloc(nn * sizeof(float));
    m->t2 = malloc(nn * sizeof(float));
    m->ref = malloc(nn * sizeof(double));
    m->abs_ref = malloc(nn * sizeof(double));
    m->naive = malloc(nn * sizeof(double));
    m->abs_naive = malloc(nn * sizeof(double));
    m->other = malloc(nn * sizeof(double));
    assert_true(m->a && m->b && m->t1 && m->t2 && m->ref && m->abs_ref && m->naive &&
                m->abs_naive && m->other);
}

static void mats_free(struct mats *m) {
    free(m->a);
    free(m->b);
    free(m->t1);
    free(m->t2);
    free(m->ref);
    free(m->abs_ref);
    free(m->naive);
    free(m->abs_naive);
    free(m->other);
}

static void ref_matmul_matches_naive_loop(void **state) {
    (void)state;
    struct rng r = TEST_RNG();
    int sizes[] = {1, 7, 33, 100, 0};
    sizes[4] = rng_int(&r, 2, 64);
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
        int n = sizes[s];
        struct mats m;
        mats_alloc(&m, n);
        fill_matrix(&r, m.a, (size_t)n * n);
        fill_matrix(&r, m.b, (size_t)n * n);
        for (size_t i = 0; i < (size_t)n * n; i++)
            m.ref[i] = m.abs_ref[i] = NAN; /* the reference must overwrite every element */
        clu_ref_matmul(n, m.a, m.b, m.ref, m.abs_ref);
        naive_matmul(n, m.a, m.b, m.naive, m.abs_naive);
        for (size_t i = 0; i < (size_t)n * n; i++) {
            double tol = 4.0 * n * DBL_EPSILON * m.abs_naive[i];
            CHECK(fabs(m.ref[i] - m.naive[i]) <= tol, "n %d C(%zu,%zu): ref %.17g naive %.17g", n,
                  i / n, i % n, m.ref[i], m.naive[i]);
            CHECK(fabs(m.abs_ref[i] - m.abs_naive[i]) <= tol,
                  "n %d |A||B|(%zu,%zu): ref %.17g naive %.17g", n, i / n, i % n, m.abs_ref[i],
                  m.abs_naive[i]);
            CHECK(m.abs_ref[i] >= fabs(m.ref[i]), "n %d: |A||B| below |C| at %zu", n, i);
        }
        /* abs_ref may be NULL, giving the same C */
        clu_ref_matmul(n, m.a, m.b, m.other, NULL);
        CHECK(memcmp(m.other, m.ref, (size_t)n * n * sizeof(double)) == 0,
              "n %d: C differs when abs_ref is NULL", n);
        mats_free(&m);
    }
}

static void ref_matmul_identity(void **state) {
    (void)state;
    struct rng r = TEST_RNG();
    int n = rng_int(&r, 1, 40) * 2 + 1;
    struct mats m;
    mats_alloc(&m, n);
    fill_matrix(&r, m.a, (size_t)n * n);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            m.b[i * n + j] = i == j ? 1.0f : 0.0f;
    clu_ref_matmul(n, m.a, m.b, m.ref, m.abs_ref); /* A * I = A */
    for (size_t i = 0; i < (size_t)n * n; i++) {
        CHECK(m.ref[i] == (double)m.a[i], "n %d (A*I)[%zu] = %.17g, A = %.9g", n, i, m.ref[i],
              (double)m.a[i]);
        CHECK(m.abs_ref[i] == fabs((double)m.a[i]), "n %d |A||I| at %zu", n, i);
    }
    clu_ref_matmul(n, m.b, m.a, m.ref, NULL); /* I * A = A */
    for (size_t i = 0; i < (size_t)n * n; i++)
        CHECK(m.ref[i] == (double)m.a[i], "n %d (I*A)[%zu] = %.17g, A = %.9g", n, i, m.ref[i],
              (double)m.a[i]);
    mats_free(&m);
}

/* A*B differs from B*A, and (A*B)^T = B^T * A^T: the arguments are used in the right roles. */
static void ref_matmul_not_symmetric_and_transpose_rule(void **state) {
    (void)state;
    struct rng r = TEST_RNG();
    int sizes[] = {2, 7, 33, 0};
    sizes[3] = rng_int(&r, 3, 50);
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
        int n = sizes[s];
        size_t nn = (size_t)n * n;
        struct mats m;
        mats_alloc(&m, n);
        fill_matrix(&r, m.a, nn);
        fill_matrix(&r, m.b, nn);
        clu_ref_matmul(n, m.a, m.b, m.ref, m.abs_ref);
        clu_ref_matmul(n, m.b, m.a, m.other, NULL);
        double diff = 0;
        for (size_t i = 0; i < nn; i++)
            diff = fmax(diff, fabs(m.ref[i] - m.other[i]));
        CHECK(diff > 1e-3, "n %d: A*B and B*A agree to %.3g", n, diff);

        transpose(n, m.a, m.t1);
        transpose(n, m.b, m.t2);
        clu_ref_matmul(n, m.t2, m.t1, m.other, NULL); /* B^T A^T */
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++) {
                double x = m.ref[i * n + j], y = m.other[j * n + i];
                CHECK(fabs(x - y) <= 4.0 * n * DBL_EPSILON * m.abs_ref[i * n + j],
                      "n %d: (AB)(%d,%d) = %.17g but (B^T A^T)(%d,%d) = %.17g", n, i, j, x, j, i,
                      y);
            }
        mats_free(&m);
    }
}

/* ------------------------------------------------------------------ clu_dot_tolerance */

static void dot_tolerance_grows_with_n(void **state) {
    (void)state;
    struct rng r = TEST_RNG();
    for (int n = 1; n < 5000; n++)
        CHECK(clu_dot_tolerance(n + 1, 1.0) > clu_dot_tolerance(n, 1.0), "n %d", n);
    for (int t = 0; t < 1000; t++) {
        int n1 = rng_int(&r, 1, 1 << 20), n2 = rng_int(&r, 1, 1 << 20);
        double s = rng_range(&r, 1e-3, 1e3);
        if (n1 == n2)
            continue;
        int lo = n1 < n2 ? n1 : n2, hi = n1 < n2 ? n2 : n1;
        CHECK(clu_dot_tolerance(lo, s) < clu_dot_tolerance(hi, s), "n %d vs %d at scale %g", lo, hi,
              s);
    }
}

static void dot_tolerance_linear_in_scale(void **state) {
    (void)state;
    struct rng r = TEST_RNG();
    for (int t = 0; t < 1000; t++) {
        int n = rng_int(&r, 1, 100000);
        double s = rng_range(&r, 1e-6, 1e4), k = rng_range(&r, 0.01, 100.0);
        double t0 = clu_dot_tolerance(n, 0.0);
        double t1 = clu_dot_tolerance(n, s) - t0, tk = clu_dot_tolerance(n, k * s) - t0;
        CHECK(t1 > 0 && fabs(tk - k * t1) <= 1e-9 * k * t1, "n %d scale %g x %g: %.17g vs %.17g", n,
              s, k, tk, k * t1);
    }
}

static void dot_tolerance_positive_at_zero_and_above_gamma_n(void **state) {
    (void)state;
    struct rng r = TEST_RNG();
    const double u = 1.0 / 16777216.0; /* 2^-24 */
    for (int t = 0; t < 1000; t++) {
        int n = t == 0 ? 1 : rng_int(&r, 1, 4000000);
        double zero = clu_dot_tolerance(n, 0.0);
        CHECK(zero > 0 && zero < 1e-20, "n %d: tolerance at scale 0 is %g", n, zero);
        /* the classic bound gamma_n * |A||B| must always be allowed ... */
        double s = rng_range(&r, 1e-3, 1e3), gamma = n * u / (1 - n * u);
        double tol = clu_dot_tolerance(n, s);
        CHECK(tol >= gamma * s, "n %d scale %g: tolerance %.6g below gamma_n bound %.6g", n, s, tol,
              gamma * s);
        /* ... but it must stay a meaningful bound for sizes the exercises use */
        if (n <= 4096)
            CHECK(tol <= 4.0 * gamma * s + 1e-20, "n %d scale %g: tolerance %.6g is too loose", n,
                  s, tol);
    }
}

static int cmp_double(const void *x, const void *y) {
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

/* Float dot products of length 1000 in several summation orders pass; dropping a term fails. */
static void dot_tolerance_covers_float_dot_1000(void **state) {
    (void)state;
    struct rng r = TEST_RNG();
    enum { N = 1000 };
    float a[N], b[N], part[N];
    for (int trial = 0; trial < 50; trial++) {
        int positive = trial % 5 == 4; /* same-sign data: rounding errors do not cancel */
        for (int k = 0; k < N; k++) {
            a[k] = (float)rng_range(&r, positive ? 0.0 : -1.0, 1.0);
            b[k] = (float)rng_range(&r, positive ? 0.0 : -1.0, 1.0);
        }
        double ref = 0, scale = 0;
        for (int k = 0; k < N; k++) {
            ref += (double)a[k] * b[k];
            scale += fabs((double)a[k] * b[k]);
        }
        double tol = clu_dot_tolerance(N, scale);
        float fwd = 0, bwd = 0, fused = 0, blocked = 0;
        for (int k = 0; k < N; k++) {
            fwd += a[k] * b[k];
            bwd += a[N - 1 - k] * b[N - 1 - k];
            fused = fmaf(a[k], b[k], fused);
            part[k] = a[k] * b[k];
        }
        for (int k0 = 0; k0 < N; k0 += 16) { /* like a 16-wide tiled kernel */
            float tile = 0;
            for (int k = k0; k < k0 + 16 && k < N; k++)
                tile += a[k] * b[k];
            blocked += tile;
        }
        for (int width = 1; width < N; width *= 2) /* pairwise */
            for (int k = 0; k + width < N; k += 2 * width)
                part[k] += part[k + width];
        const float sums[] = {fwd, bwd, fused, blocked, part[0]};
        for (int s = 0; s < 5; s++)
            CHECK(fabs((double)sums[s] - ref) <= tol,
                  "trial %d order %d: float %.9g vs double %.17g, error %.3g > tolerance %.3g",
                  trial, s, (double)sums[s], ref, fabs((double)sums[s] - ref), tol);
        /* a wrong dot product (the largest term missing) must not pass */
        double terms[N];
        for (int k = 0; k < N; k++)
            terms[k] = fabs((double)a[k] * b[k]);
        qsort(terms, N, sizeof *terms, cmp_double);
        CHECK(terms[N - 1] > tol, "trial %d: largest term %.3g within tolerance %.3g", trial,
              terms[N - 1], tol);
    }
}

/* ------------------------------------------------------------------ clu_compare */

static void compare_equal_data(void **state) {
    (void)state;
    struct rng r = TEST_RNG();
    const size_t sizes[] = {1, 7, 33, 100, 4097};
    for (size_t s = 0; s < 5; s++) {
        size_t n = sizes[s];
        float *got = malloc(n * sizeof *got);
        double *expected = malloc(n * sizeof *expected), *tol = calloc(n, sizeof *tol);
        assert_true(got && expected && tol);
        for (size_t i = 0; i < n; i++) {
            got[i] = (float)rng_range(&r, -100, 100);
            expected[i] = got[i];
        }
        struct clu_mismatch m = clu_compare(got, expected, NULL, 0.0, n);
        CHECK(m.wrong == 0 && m.max_err == 0.0, "n %zu: %zu wrong, max error %g", n, m.wrong,
              m.max_err);
        m = clu_compare(got, expected, tol, 0.0, n);
        CHECK(m.wrong == 0 && m.max_err == 0.0, "n %zu with tol[]: %zu wrong", n, m.wrong);
        free(got);
        free(expected);
        free(tol);
    }
    struct clu_mismatch m = clu_compare(NULL, NULL, NULL, 0.0, 0);
    assert_int_equal(m.wrong, 0);
    assert_true(m.max_err == 0.0);
}

static void compare_nan_and_inf_are_wrong(void **state) {
    (void)state;
    struct rng r = TEST_RNG();
    size_t n = (size_t)rng_int(&r, 2, 500);
    float *got = malloc(n * sizeof *got);
    double *expected = malloc(n * sizeof *expected);
    assert_true(got && expected);
    for (int variant = 0; variant < 4; variant++) {
        for (size_t i = 0; i < n; i++) {
            expected[i] = rng_range(&r, -1, 1);
            got[i] = (float)expected[i];
        }
        size_t p = rng_below(&r, n);
        if (variant == 0)
            got[p] = NAN;
        else if (variant == 1)
            expected[p] = NAN;
        else if (variant == 2)
            got[p] = -NAN;
        else
            got[p] = INFINITY;
        /* a huge tolerance excuses any finite error, but not a NaN or an infinity */
        struct clu_mismatch m = clu_compare(got, expected, NULL, 1e300, n);
        CHECK(m.wrong == 1 && m.first == p && isinf(m.max_err),
              "variant %d at %zu of %zu: wrong %zu first %zu max_err %g", variant, p, n, m.wrong,
              m.first, m.max_err);
    }
    free(got);
    free(expected);
}

static void compare_three_planted_errors(void **state) {
    (void)state;
    struct rng r = TEST_RNG();
    for (int trial = 0; trial < 20; trial++) {
        size_t n = trial == 0 ? 3 : (size_t)rng_int(&r, 3, 5000);
        float *got = malloc(n * sizeof *got);
        double *expected = malloc(n * sizeof *expected);
        assert_true(got && expected);
        for (size_t i = 0; i < n; i++) {
            expected[i] = rng_range(&r, -10, 10);
            got[i] = (float)expected[i]; /* rounding error <= 10 * 2^-24 < 1e-6 */
        }
        size_t pos[3];
        for (int k = 0; k < 3; k++) {
            int fresh;
            do {
                pos[k] = rng_below(&r, n);
                fresh = 1;
                for (int q = 0; q < k; q++)
                    fresh &= pos[q] != pos[k];
            } while (!fresh);
            double off = rng_range(&r, 0.01, 1.0) * (rng_below(&r, 2) ? 1 : -1);
            got[pos[k]] = (float)(expected[pos[k]] + off);
        }
        size_t first = pos[0];
        for (int k = 1; k < 3; k++)
            first = pos[k] < first ? pos[k] : first;
        double max_err = 0;
        for (size_t i = 0; i < n; i++)
            max_err = fmax(max_err, fabs((double)got[i] - expected[i]));
        struct clu_mismatch m = clu_compare(got, expected, NULL, 1e-5, n);
        CHECK(m.wrong == 3 && m.first == first && m.expected == expected[first] &&
                  m.got == got[first] && m.max_err == max_err,
              "n %zu, errors at %zu %zu %zu: wrong %zu first %zu expected %.17g (want %.17g) "
              "got %.9g (want %.9g) max_err %.17g (want %.17g)",
              n, pos[0], pos[1], pos[2], m.wrong, m.first, m.expected, expected[first],
              (double)m.got, (double)got[first], m.max_err, max_err);
        free(got);
        free(expected);
    }
}

/* tol[i] applies per element and overrides tol_all; err == tol passes. */
static void compare_per_element_tol_vs_tol_all(void **state) {
    (void)state;
    struct rng r = TEST_RNG();
    size_t n = (size_t)rng_int(&r, 50, 3000);
    float *got = malloc(n * sizeof *got);
    double *expected = malloc(n * sizeof *expected), *tol = malloc(n * sizeof *tol);
    double *err = malloc(n * sizeof *err);
    assert_true(got && expected && tol && err);
    size_t want_tol = 0, want_all = 0, want_zero = 0, first_tol = n;
    const double tol_all = 0.05;
    for (size_t i = 0; i < n; i++) {
        expected[i] = rng_range(&r, -1, 1);
        got[i] = (float)(expected[i] + rng_range(&r, -0.2, 0.2));
        err[i] = fabs((double)got[i] - expected[i]);
        int mode = (int)rng_below(&r, 3);
        tol[i] = mode == 0 ? err[i] : mode == 1 ? rng_range(&r, 0, 0.1) : 0.0;
        if (err[i] > tol[i]) {
            want_tol++;
            first_tol = first_tol < i ? first_tol : i;
        }
        want_all += err[i] > tol_all;
        want_zero += err[i] > 0;
    }
    struct clu_mismatch m = clu_compare(got, expected, tol, 1e300, n);
    CHECK(m.wrong == want_tol && (want_tol == 0 || m.first == first_tol),
          "per-element: %zu wrong (want %zu), first %zu (want %zu)", m.wrong, want_tol, m.first,
          first_tol);
    m = clu_compare(got, expected, NULL, tol_all, n);
    CHECK(m.wrong == want_all, "tol_all %g: %zu wrong (want %zu)", tol_all, m.wrong, want_all);
    m = clu_compare(got, expected, NULL, 0.0, n);
    CHECK(m.wrong == want_zero, "tol_all 0: %zu wrong (want %zu)", m.wrong, want_zero);
    /* every element exactly at its tolerance: all pass */
    m = clu_compare(got, expected, err, 0.0, n);
    CHECK(m.wrong == 0, "err == tol: %zu wrong", m.wrong);
    free(got);
    free(expected);
    free(tol);
    free(err);
}

/* ------------------------------------------------------------------ clu_stats_of */

static void stats_check(struct rng *r, int n, int few_values) {
    double *x = malloc((size_t)n * sizeof *x), *sorted = malloc((size_t)n * sizeof *x);
    assert_true(x && sorted);
    for (int i = 0; i < n; i++)
        x[i] = few_values ? (double)rng_int(r, 1, 4) : rng_range(r, 1e-6, 1e-2);
    memcpy(sorted, x, (size_t)n * sizeof *x);
    qsort(sorted, (size_t)n, sizeof *sorted, cmp_double);
    double median = n % 2 ? sorted[n / 2] : 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]);
    struct clu_stats s = clu_stats_of(x, n);
    CHECK(s.count == n && s.min == sorted[0] && s.max == sorted[n - 1] && s.median == median,
          "n %d: count %d min %g (want %g) median %g (want %g) max %g (want %g)", n, s.count, s.min,
          sorted[0], s.median, median, s.max, sorted[n - 1]);
    CHECK(memcmp(x, sorted, (size_t)n * sizeof *x) == 0, "n %d: samples not sorted in place", n);
    free(x);
    free(sorted);
}

static void stats_odd_count(void **state) {
    (void)state;
    struct rng r = TEST_RNG();
    stats_check(&r, 1, 0);
    stats_check(&r, 7, 0);
    stats_check(&r, 33, 1);
    for (int t = 0; t < 20; t++)
        stats_check(&r, 2 * rng_int(&r, 0, 60) + 1, t % 2);
    double known[] = {5, 1, 3};
    struct clu_stats s = clu_stats_of(known, 3);
    assert_true(s.min == 1 && s.median == 3 && s.max == 5 && s.count == 3);
}

static void stats_even_count(void **state) {
    (void)state;
    struct rng r = TEST_RNG();
    stats_check(&r, 2, 0);
    stats_check(&r, 100, 0);
    for (int t = 0; t < 20; t++)
        stats_check(&r, 2 * rng_int(&r, 1, 60), t % 2);
    double known[] = {4, 1, 10, 2};
    struct clu_stats s = clu_stats_of(known, 4);
    assert_true(s.min == 1 && s.median == 3 && s.max == 10 && s.count == 4);
}

static void stats_empty(void **state) {
    (void)state;
    double x[1] = {7.0};
    struct clu_stats s = clu_stats_of(x, 0);
    assert_int_equal(s.count, 0);
    assert_true(s.min == 0 && s.median == 0 && s.max == 0);
    assert_true(x[0] == 7.0);
}

/* ------------------------------------------------------------------ clu_divisor_at_most */

static void divisor_examples(void **state) {
    (void)state;
    assert_int_equal(clu_divisor_at_most(100, 64), 50);
    assert_int_equal(clu_divisor_at_most(97, 64), 1);
    assert_int_equal(clu_divisor_at_most(1024, 64), 64);
    assert_int_equal(clu_divisor_at_most(48, 1000), 48);
    assert_int_equal(clu_divisor_at_most(1, 1), 1);
    assert_int_equal(clu_divisor_at_most(1, 256), 1);
    assert_int_equal(clu_divisor_at_most(33, 32), 11);
    assert_int_equal(clu_divisor_at_most(7, 7), 7);
    assert_int_equal(clu_divisor_at_most(1000000, 256), 250);
    assert_int_equal(clu_divisor_at_most(12, 1), 1);
}

static void divisor_property_random(void **state) {
    (void)state;
    struct rng r = TEST_RNG();
    for (int t = 0; t < 3000; t++) {
        size_t n = (size_t)rng_int(&r, 1, t % 3 ? 5000 : 2000000);
        size_t limit = (size_t)rng_int(&r, 1, t % 4 ? 1024 : 10000);
        size_t d = clu_divisor_at_most(n, limit);
        CHECK(d >= 1 && d <= limit && n % d == 0, "(%zu, %zu) -> %zu", n, limit, d);
        for (size_t e = d + 1; e <= limit && e <= n; e++)
            CHECK(n % e != 0, "(%zu, %zu) -> %zu but %zu is a larger divisor", n, limit, d, e);
    }
}

/* ------------------------------------------------------------------ result files */

static void result_round_trip(void **state) {
    (void)state;
    struct rng r = TEST_RNG();
    size_t counts[] = {1, 7, 33, 0};
    counts[3] = 2 * (size_t)rng_int(&r, 50, 20000) + 1;
    for (int c = 0; c < 4; c++) {
        size_t n = counts[c];
        float *x = malloc(n * sizeof *x);
        assert_non_null(x);
        for (size_t i = 0; i < n; i++)
            x[i] = (float)rng_range(&r, -1e6, 1e6);
        if (n > 10) { /* special values survive bit for bit */
            const float special[] = {-0.0f, NAN, INFINITY, -INFINITY, FLT_MIN / 4, FLT_MAX};
            for (int k = 0; k < 6; k++)
                x[rng_below(&r, n)] = special[k];
        }
        char path[PATH_MAX];
        temp_file(path, sizeof path);
        assert_int_equal(clu_save_result(path, x, n), 0);

        /* the layout the header documents */
        size_t len;
        unsigned char *raw = (unsigned char *)slurp(path, &len);
        assert_non_null(raw);
        CHECK(len == 16 + 4 * n, "count %zu: file of %zu bytes", n, len);
        assert_memory_equal(raw, "CLURES1\n", 8);
        uint64_t header = 0;
        for (int i = 0; i < 8; i++)
            header |= (uint64_t)raw[8 + i] << (8 * i);
        CHECK(header == n, "count %zu, header says %llu", n, (unsigned long long)header);
        const uint32_t one = 1;
        if (*(const unsigned char *)&one == 1) /* little-endian host: floats stored as is */
            assert_memory_equal(raw + 16, x, 4 * n);
        free(raw);

        size_t count = 12345;
        char why[200] = "";
        float *y = clu_load_result(path, &count, why, sizeof why);
        CHECK(y != NULL, "count %zu: load failed: %s", n, why);
        CHECK(count == n, "saved %zu, loaded %zu", n, count);
        CHECK(memcmp(x, y, n * sizeof *x) == 0, "count %zu: data differ", n);
        /* into a buffer of exactly n floats, and refused (the buffer untouched) at any other */
        memset(y, 0xab, n * sizeof *y);
        CHECK(clu_load_result_into(path, y, n, why, sizeof why) == 0, "count %zu: into: %s", n,
              why);
        CHECK(memcmp(x, y, n * sizeof *x) == 0, "count %zu: data differ, into", n);
        why[0] = '\0';
        CHECK(clu_load_result_into(path, NULL, n, why, sizeof why) == -1 && why[0],
              "count %zu: loaded into no buffer", n);
        size_t other = rng_below(&r, 2) ? n + 1 + rng_below(&r, 9) : rng_below(&r, n);
        float *z = malloc((other + 1) * sizeof *z);
        assert_non_null(z);
        memset(z, 0xab, (other + 1) * sizeof *z);
        why[0] = '\0';
        CHECK(clu_load_result_into(path, z, other, why, sizeof why) == -1 && why[0],
              "saved %zu, loaded into %zu", n, other);
        for (size_t i = 0; i < other; i++)
            CHECK(((unsigned char *)&z[i])[0] == 0xab, "saved %zu, into %zu: written", n, other);
        free(z);
        free(y);
        free(x);
        unlink(path);
    }
    /* zero elements is a valid (empty) result */
    char path[PATH_MAX], why[200] = "";
    temp_file(path, sizeof path);
    float dummy = 1.0f;
    assert_int_equal(clu_save_result(path, &dummy, 0), 0);
    size_t count = 99;
    float *y = clu_load_result(path, &count, why, sizeof why);
    CHECK(y != NULL && count == 0, "empty result: %p, count %zu, why %s", (void *)y, count, why);
    free(y);
    unlink(path);
}

/* Saves count random floats, lets edit() damage the file, expects the load to fail. */
static void expect_load_fails(const char *path, const char *what) {
    size_t count = 0;
    char why[256];
    memset(why, 0, sizeof why);
    float *y = clu_load_result(path, &count, why, sizeof why);
    CHECK(y == NULL, "%s: loaded %zu elements", what, count);
    CHECK(why[0] != '\0' && strlen(why) < sizeof why, "%s: no reason given", what);
    free(y);
    /* nor into a buffer, of any count the files here were saved with (save_random's) */
    static float into[1002];
    for (size_t n = 0; n < 1002; n++) {
        why[0] = '\0';
        CHECK(clu_load_result_into(path, into, n, why, sizeof why) == -1 && why[0],
              "%s: loaded into %zu floats", what, n);
    }
}

static size_t save_random(struct rng *r, const char *path) {
    size_t n = 2 * (size_t)rng_int(r, 1, 500) + 1;
    float *x = malloc(n * sizeof *x);
    assert_non_null(x);
    for (size_t i = 0; i < n; i++)
        x[i] = (float)rng_range(r, -1, 1);
    assert_int_equal(clu_save_result(path, x, n), 0);
    free(x);
    return n;
}

static void result_truncated(void **state) {
    (void)state;
    struct rng r = TEST_RNG();
    char path[PATH_MAX], what[128];
    temp_file(path, sizeof path);
    for (int t = 0; t < 12; t++) {
        size_t n = save_random(&r, path);
        size_t full = 16 + 4 * n;
        size_t cut = t == 0   ? 0
                     : t == 1 ? 8
                     : t == 2 ? 16
                     : t == 3 ? full - 1
                     : t < 6  ? (size_t)rng_int(&r, 1, 15)
                              : 17 + rng_below(&r, full - 17);
        assert_int_equal(truncate(path, (off_t)cut), 0);
        snprintf(what, sizeof what, "%zu of %zu bytes", cut, full);
        expect_load_fails(path, what);
    }
    unlink(path);
}

static void result_wrong_magic(void **state) {
    (void)state;
    struct rng r = TEST_RNG();
    char path[PATH_MAX], what[64];
    temp_file(path, sizeof path);
    for (int t = 0; t < 8; t++) {
        size_t n = save_random(&r, path);
        size_t len;
        unsigned char *raw = (unsigned char *)slurp(path, &len);
        assert_non_null(raw);
        size_t at = rng_below(&r, 8);
        raw[at] ^= (unsigned char)rng_int(&r, 1, 255);
        write_file(path, raw, len);
        free(raw);
        snprintf(what, sizeof what, "magic byte %zu changed (count %zu)", at, n);
        expect_load_fails(path, what);
    }
    write_file(path, "hello, world, this is not a result file at all", 46);
    expect_load_fails(path, "a text file");
    unlink(path);
}

static void result_trailing_bytes(void **state) {
    (void)state;
    struct rng r = TEST_RNG();
    char path[PATH_MAX], what[64];
    temp_file(path, sizeof path);
    for (int t = 0; t < 6; t++) {
        save_random(&r, path);
        unsigned char extra[9];
        size_t k = (size_t)rng_int(&r, 1, 9);
        for (size_t i = 0; i < k; i++)
            extra[i] = (unsigned char)rng_u64(&r);
        append_file(path, extra, k);
        snprintf(what, sizeof what, "%zu trailing bytes", k);
        expect_load_fails(path, what);
    }
    unlink(path);
}

static void result_bad_count_and_missing_file(void **state) {
    (void)state;
    struct rng r = TEST_RNG();
    char path[PATH_MAX];
    temp_file(path, sizeof path);
    const uint64_t claims[] = {(uint64_t)1 << 40, UINT64_MAX};
    for (int t = 0; t < 2; t++) {
        unsigned char head[24] = "CLURES1\n";
        for (int i = 0; i < 8; i++)
            head[8 + i] = (unsigned char)(claims[t] >> (8 * i));
        write_file(path, head, sizeof head);
        expect_load_fails(path, "header claims a huge count");
    }
    unlink(path);
    expect_load_fails(path, "missing file");

    char dir_path[PATH_MAX];
    snprintf(dir_path, sizeof dir_path, "%s/clu-no-such-dir-%llx/x.bin", tmp_dir(),
             (unsigned long long)rng_u64(&r));
    expect_load_fails(dir_path, "missing directory");
    struct capture c;
    capture_start(&c, 2);
    float x = 1.0f;
    int ret = clu_save_result(dir_path, &x, 1);
    char *err = capture_end(&c);
    CHECK(ret == -1 && err[0] != '\0', "save into a missing directory returned %d, said \"%s\"",
          ret, err);
    free(err);
}

static void result_reason_respects_buffer_size(void **state) {
    (void)state;
    char why[32];
    memset(why, 'Z', sizeof why);
    size_t count;
    float *y = clu_load_result("/nonexistent/clu/result.bin", &count, why, 6);
    assert_null(y);
    CHECK(why[5] == '\0' && strlen(why) == 5, "reason \"%.6s\" not cut to 5 characters", why);
    for (size_t i = 6; i < sizeof why; i++)
        CHECK(why[i] == 'Z', "byte %zu beyond why_size overwritten", i);
}

/* ------------------------------------------------------------------ clu_parse_options */

#define ARGC(a) ((int)(sizeof(a) / sizeof(a)[0]))

static void options_defaults(void **state) {
    (void)state;
    struct rng r = TEST_RNG();
    char *old = getenv("DEVICE") ? strdup(getenv("DEVICE")) : NULL;
    int default_n = rng_int(&r, 1, 5000);
    char *argv[] = {(char *)"prog"};
    struct clu_options opt;
    memset(&opt, 0x5A, sizeof opt);

    unsetenv("DEVICE");
    clu_parse_options(&opt, ARGC(argv), argv, default_n, "summary");
    assert_int_equal(opt.n, default_n);
    assert_int_equal(opt.seed, 42);
    assert_int_equal(opt.repeats, 5);
    assert_int_equal(opt.block, 16);
    assert_int_equal(opt.list, 0);
    assert_null(opt.output);
    assert_null(opt.device);

    char spec[32];
    snprintf(spec, sizeof spec, "dev-%llx", (unsigned long long)rng_u64(&r));
    setenv("DEVICE", spec, 1);
    memset(&opt, 0x5A, sizeof opt);
    clu_parse_options(&opt, 1, argv, default_n, "summary");
    assert_non_null(opt.device);
    assert_string_equal(opt.device, spec);
    assert_null(opt.output);

    if (old)
        setenv("DEVICE", old, 1);
    else
        unsetenv("DEVICE");
    free(old);
}

static void options_each_flag(void **state) {
    (void)state;
    struct rng r = TEST_RNG();
    for (int t = 0; t < 10; t++) {
        char n[24], seed[24], rep[24], block[24], dev[32], out[48];
        int want_n = rng_int(&r, 1, 1 << 28), want_rep = rng_int(&r, 1, 100000);
        int want_block = rng_int(&r, 1, 1024);
        unsigned long long want_seed = rng_u64(&r) >> 1; /* up to INT64_MAX */
        if (t == 0)
            want_seed = 0;
        snprintf(n, sizeof n, "%d", want_n);
        snprintf(seed, sizeof seed, "%llu", want_seed);
        snprintf(rep, sizeof rep, "%d", want_rep);
        snprintf(block, sizeof block, "%d", want_block);
        snprintf(dev, sizeof dev, "gpu-%d", rng_int(&r, 0, 999));
        snprintf(out, sizeof out, "/tmp/out-%d.bin", rng_int(&r, 0, 999));
        struct clu_options opt;
        char *a_n[] = {"p", "--n", n}, *a_seed[] = {"p", "--seed", seed},
             *a_rep[] = {"p", "--repeats", rep}, *a_block[] = {"p", "--block", block},
             *a_dev[] = {"p", "--device", dev}, *a_out[] = {"p", "--output", out},
             *a_list[] = {"p", "--list"};
        clu_parse_options(&opt, 3, a_n, 77, "s");
        assert_int_equal(opt.n, want_n);
        assert_int_equal(opt.repeats, 5); /* the others keep their defaults */
        clu_parse_options(&opt, 3, a_seed, 77, "s");
        CHECK(opt.seed == want_seed, "--seed %s gave %llu", seed, (unsigned long long)opt.seed);
        assert_int_equal(opt.n, 77);
        clu_parse_options(&opt, 3, a_rep, 77, "s");
        assert_int_equal(opt.repeats, want_rep);
        clu_parse_options(&opt, 3, a_block, 77, "s");
        assert_int_equal(opt.block, want_block);
        clu_parse_options(&opt, 3, a_dev, 77, "s");
        assert_string_equal(opt.device, dev);
        clu_parse_options(&opt, 3, a_out, 77, "s");
        assert_string_equal(opt.output, out);
        assert_int_equal(opt.block, 16);
        clu_parse_options(&opt, 2, a_list, 77, "s");
        assert_int_equal(opt.list, 1);
        assert_int_equal(opt.n, 77);

        /* all together, in a random order */
        char *pairs[6][2] = {{"--n", n},         {"--seed", seed},  {"--repeats", rep},
                             {"--block", block}, {"--device", dev}, {"--output", out}};
        for (int i = 5; i > 0; i--) {
            int j = rng_int(&r, 0, i);
            char *t0 = pairs[i][0], *t1 = pairs[i][1];
            pairs[i][0] = pairs[j][0];
            pairs[i][1] = pairs[j][1];
            pairs[j][0] = t0;
            pairs[j][1] = t1;
        }
        char *all[14] = {"p"};
        int argc = 1;
        int list_at = rng_int(&r, 0, 6);
        for (int i = 0; i < 6; i++) {
            if (i == list_at)
                all[argc++] = "--list";
            all[argc++] = pairs[i][0];
            all[argc++] = pairs[i][1];
        }
        if (list_at == 6)
            all[argc++] = "--list";
        clu_parse_options(&opt, argc, all, 77, "s");
        CHECK(opt.n == want_n && opt.seed == want_seed && opt.repeats == want_rep &&
                  opt.block == want_block && opt.list == 1 && strcmp(opt.device, dev) == 0 &&
                  strcmp(opt.output, out) == 0,
              "combined flags parsed as n %d seed %llu repeats %d block %d list %d", opt.n,
              (unsigned long long)opt.seed, opt.repeats, opt.block, opt.list);
    }
}

struct parse_job {
    int argc;
    char **argv;
    unsigned long long want_seed; /* for the seed check: exit 0 if parsed to exactly this */
};

static int parse_child(void *arg) {
    struct parse_job *job = arg;
    struct clu_options opt;
    clu_parse_options(&opt, job->argc, job->argv, 64, "unit-test summary line");
    return opt.seed == job->want_seed ? 0 : 99; /* returned: the flags were accepted */
}

static void options_bad_flags_exit_2(void **state) {
    (void)state;
    char *cases[][4] = {
        {"--bogus"},
        {"--n"},
        {"--n", "0"},
        {"--n", "abc"},
        {"--n", "12x"},
        {"--n", ""},
        {"--n", "-5"},
        {"--n", "268435457"},
        {"--repeats", "0"},
        {"--block", "0"},
        {"--block", "1025"},
        {"--seed", "-1"},
        {"--seed", "1.5"},
        {"--device"},
        {"--output"},
        {"--n", "5", "extra"},
        {"--repeats", "1e3"},
        {"--list", "-x"},
        {"--n", "99999999999999999999"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        char *argv[5] = {"prog"};
        int argc = 1;
        for (int k = 0; k < 4 && cases[c][k]; k++)
            argv[argc++] = cases[c][k];
        struct parse_job job = {argc, argv, 42};
        char *err = NULL;
        int status = run_in_child(parse_child, &job, NULL, &err);
        CHECK(status == 2 && err[0] != '\0', "prog %s %s %s: exit status %d, stderr \"%s\"",
              argv[1], argc > 2 ? argv[2] : "", argc > 3 ? argv[3] : "", status, err);
        free(err);
    }
}

static void options_help_exits_0(void **state) {
    (void)state;
    char *argv[] = {"prog", "--help"};
    struct parse_job job = {2, argv, 42};
    char *out = NULL;
    int status = run_in_child(parse_child, &job, &out, NULL);
    CHECK(status == 0 && strstr(out, "unit-test summary line") && strstr(out, "--n"),
          "--help: status %d, stdout \"%s\"", status, out);
    free(out);
}

/* A seed outside [0, INT64_MAX] must be refused (exit 2), not silently replaced by another
 * seed; 2^63 fits the uint64_t seed, so accepting it exactly is fine too. */
static void options_seed_out_of_range(void **state) {
    (void)state;
    struct {
        const char *text;
        unsigned long long exact; /* exit 0 allowed only if parsed to this; 0: must be refused */
    } cases[] = {
        {"99999999999999999999", 0},
        {"18446744073709551616", 0}, /* 2^64 */
        {"9223372036854775808", 9223372036854775808ull},
    };
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        char *argv[] = {"prog", "--seed", (char *)cases[c].text};
        struct parse_job job = {3, argv, cases[c].exact};
        int status = run_in_child(parse_child, &job, NULL, NULL);
        CHECK(status == 2 || (status == 0 && cases[c].exact != 0),
              "--seed %s: exit status %d (99: accepted as a different seed)", cases[c].text,
              status);
    }
}

/* ------------------------------------------------------------------ clu_read_file, exe dir */

static void read_file_round_trip(void **state) {
    (void)state;
    struct rng r = TEST_RNG();
    size_t sizes[] = {0, 1, 7, 4095, 4096, 4097, 8191, 0};
    sizes[7] = (size_t)rng_int(&r, 10000, 300000);
    char path[PATH_MAX];
    temp_file(path, sizeof path);
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
        size_t n = sizes[s];
        unsigned char *data = malloc(n + 1);
        assert_non_null(data);
        for (size_t i = 0; i < n; i++)
            data[i] = (unsigned char)rng_u64(&r); /* binary, NUL bytes included */
        write_file(path, data, n);
        size_t len = 123456789;
        char *got = clu_read_file(path, &len);
        CHECK(got != NULL, "size %zu: NULL (%s)", n, strerror(errno));
        CHECK(len == n, "size %zu: length %zu", n, len);
        CHECK(memcmp(got, data, n) == 0 && got[n] == '\0', "size %zu: content differs", n);
        free(got);
        free(data);
    }
    unlink(path);
}

static void read_file_missing(void **state) {
    (void)state;
    char path[PATH_MAX];
    temp_file(path, sizeof path);
    unlink(path);
    size_t len = 5;
    errno = 0;
    char *got = clu_read_file(path, &len);
    assert_null(got);
    assert_int_equal(errno, ENOENT);
    errno = 0;
    got = clu_read_file(tmp_dir(), &len); /* a directory is not a readable file */
    assert_null(got);
    assert_int_not_equal(errno, 0);
}

static void exe_dir_is_directory_of_binary(void **state) {
    (void)state;
    char exe[PATH_MAX];
    assert_non_null(realpath("/proc/self/exe", exe));
    *strrchr(exe, '/') = '\0';
    const char *dir = clu_exe_dir();
    assert_string_equal(dir, exe);
    struct stat st;
    assert_int_equal(stat(dir, &st), 0);
    assert_true(S_ISDIR(st.st_mode));
}

/* ------------------------------------------------------------------ result lines */

static void print_verification_pass_and_fail(void **state) {
    (void)state;
    struct rng r = TEST_RNG();
    int width = rng_int(&r, 2, 200);
    size_t count = (size_t)width * width, first = rng_below(&r, count);
    struct clu_mismatch m = {0, 0, 0.0, 0.0f, 3e-6};
    struct capture c;
    capture_start(&c, 1);
    int ret = clu_print_verification(&m, count, width);
    char *out = capture_end(&c);
    char want[128];
    snprintf(want, sizeof want, "all %zu elements", count);
    CHECK(ret == 0 && strstr(out, "PASS") && strstr(out, want), "PASS: %d \"%s\"", ret, out);
    free(out);

    m.wrong = (size_t)rng_int(&r, 1, (int)count);
    m.first = first;
    m.expected = 1.5;
    m.got = -2.25f;
    capture_start(&c, 1);
    ret = clu_print_verification(&m, count, width);
    out = capture_end(&c);
    snprintf(want, sizeof want, "C(%zu,%zu)", first / width, first % width);
    char wrong[64];
    snprintf(wrong, sizeof wrong, "%zu of %zu wrong", m.wrong, count);
    CHECK(ret == 1 && strstr(out, "FAIL") && strstr(out, want) && strstr(out, wrong) &&
              strstr(out, "1.5") && strstr(out, "-2.25"),
          "FAIL (want %s, %s): %d \"%s\"", want, wrong, ret, out);
    free(out);

    capture_start(&c, 1);
    ret = clu_print_verification(&m, count, 0);
    out = capture_end(&c);
    snprintf(want, sizeof want, "[%zu]", first);
    CHECK(ret == 1 && strstr(out, "FAIL") && strstr(out, want), "vector FAIL: %d \"%s\"", ret, out);
    free(out);
}

static void print_timing_line(void **state) {
    (void)state;
    struct rng r = TEST_RNG();
    struct clu_env env;
    memset(&env, 0, sizeof env);
    snprintf(env.device_name, sizeof env.device_name, "dev-%d", rng_int(&r, 0, 9999));
    snprintf(env.platform_name, sizeof env.platform_name, "plat-%d", rng_int(&r, 0, 9999));
    int n = rng_int(&r, 1, 4096), runs = rng_int(&r, 1, 50);
    double median = rng_range(&r, 1e-4, 1e-1);
    struct clu_stats s = {median * 0.5, median, median * 2, runs};
    double flops = 2.0 * n * n * (double)n;
    struct capture c;
    capture_start(&c, 1);
    clu_print_timing(&env, n, &s, flops);
    char *out = capture_end(&c);
    char want_n[32], want_median[64], want_runs[32], want_rate[64];
    snprintf(want_n, sizeof want_n, "N: %d", n);
    snprintf(want_median, sizeof want_median, "median %.3f ms", median * 1e3);
    snprintf(want_runs, sizeof want_runs, "over %d runs", runs);
    snprintf(want_rate, sizeof want_rate, "%.2f GFLOP/s", flops / median * 1e-9);
    CHECK(strstr(out, env.device_name) && strstr(out, want_n) && strstr(out, want_median) &&
              strstr(out, want_runs) && strstr(out, want_rate),
          "want %s, %s, %s, %s in \"%s\"", want_n, want_median, want_runs, want_rate, out);
    free(out);
}

/* ------------------------------------------------------------------ clu_mm_main: size checks */

static void mm_main_rejects_bad_sizes(void **state) {
    (void)state;
    struct rng r = TEST_RNG();
    int limit = rng_int(&r, 8, 100);
    struct clu_mm_exercise ex = {
        .title = "t", .kernel_name = "mm", .default_n = 16, .max_n = limit};
    char n_text[16], block_text[16];
    snprintf(n_text, sizeof n_text, "%d", limit + rng_int(&r, 1, 50));
    char *argv1[] = {"prog", "--n", n_text};
    struct capture c;
    capture_start(&c, 2);
    int status = clu_mm_main(3, argv1, &ex);
    char *err = capture_end(&c);
    CHECK(status == 2 && err[0], "N %s above max_n %d: status %d, \"%s\"", n_text, limit, status,
          err);
    free(err);

    ex.max_n = 0;
    ex.n_multiple_of_block = 1;
    int block = rng_int(&r, 2, 32);
    snprintf(block_text, sizeof block_text, "%d", block);
    snprintf(n_text, sizeof n_text, "%d", block * rng_int(&r, 1, 20) + rng_int(&r, 1, block - 1));
    char *argv2[] = {"prog", "--n", n_text, "--block", block_text};
    capture_start(&c, 2);
    status = clu_mm_main(5, argv2, &ex);
    err = capture_end(&c);
    CHECK(status == 2 && err[0], "N %s not a multiple of %d: status %d, \"%s\"", n_text, block,
          status, err);
    free(err);
}

/* ================================================================== device layer */

static struct clu_env g_env; /* opened by the device group's setup */

static int device_setup(void **state) {
    (void)state;
    return clu_env_open(&g_env, NULL) == 0 ? 0 : -1;
}

static int device_teardown(void **state) {
    (void)state;
    clu_env_close(&g_env);
    return 0;
}

/* clu_env_open with stderr captured; *said gets what it printed. */
static int open_quietly(struct clu_env *env, const char *spec, char **said) {
    struct capture c;
    capture_start(&c, 2);
    int ret = clu_env_open(env, spec);
    char *err = capture_end(&c);
    if (said)
        *said = err;
    else
        free(err);
    return ret;
}

static void env_open_default(void **state) {
    (void)state;
    struct clu_env env;
    assert_int_equal(clu_env_open(&env, NULL), 0);
    assert_true(env.device_name[0] != '\0');
    assert_true(env.platform_name[0] != '\0');
    assert_non_null(env.device);
    assert_non_null(env.context);
    assert_non_null(env.queue);
    cl_command_queue_properties props = 0;
    assert_int_equal(
        clGetCommandQueueInfo(env.queue, CL_QUEUE_PROPERTIES, sizeof props, &props, NULL),
        CL_SUCCESS);
    assert_true(props & CL_QUEUE_PROFILING_ENABLE);
    cl_device_id dev = NULL;
    assert_int_equal(clGetContextInfo(env.context, CL_CONTEXT_DEVICES, sizeof dev, &dev, NULL),
                     CL_SUCCESS);
    assert_ptr_equal(dev, env.device);
    char name[256];
    assert_int_equal(clGetDeviceInfo(env.device, CL_DEVICE_NAME, sizeof name, name, NULL),
                     CL_SUCCESS);
    assert_string_equal(name, env.device_name);
    clu_env_close(&env);
    assert_null(env.queue);
    assert_null(env.context);

    /* "" and "0" choose the same first device */
    assert_int_equal(clu_env_open(&env, ""), 0);
    assert_ptr_equal(env.device, g_env.device);
    clu_env_close(&env);
    assert_int_equal(clu_env_open(&env, "0"), 0);
    assert_ptr_equal(env.device, g_env.device);
    clu_env_close(&env);
}

static void env_open_pocl(void **state) {
    (void)state;
    char vendor[256] = "";
    clGetPlatformInfo(g_env.platform, CL_PLATFORM_VENDOR, sizeof vendor, vendor, NULL);
    if (!strcasestr(vendor, "pocl") && !strcasestr(g_env.platform_name, "pocl") &&
        !strcasestr(g_env.platform_name, "Portable Computing Language"))
        skip(); /* the first device is not POCL here */
    struct clu_env env;
    char *said = NULL;
    int ret = open_quietly(&env, "pocl", &said);
    CHECK(ret == 0, "clu_env_open(\"pocl\") on %s / %s (platform vendor %s) failed: %s",
          g_env.platform_name, g_env.device_name, vendor, said);
    free(said);
    clu_env_close(&env);
    ret = open_quietly(&env, "PoCl", NULL);
    CHECK(ret == 0, "spec \"PoCl\" (case-insensitive) failed");
    clu_env_close(&env);
}

/* Any piece of the device or platform name, in any case, selects a device. */
static void env_open_name_substring(void **state) {
    (void)state;
    struct rng r = TEST_RNG();
    const char *names[] = {g_env.device_name, g_env.platform_name};
    for (int t = 0; t < 6; t++) {
        const char *name = names[t % 2];
        size_t len = strlen(name);
        size_t from = rng_below(&r, len), take = 1 + rng_below(&r, len - from);
        if (take > 12)
            take = 12;
        char spec[16];
        memcpy(spec, name + from, take);
        spec[take] = '\0';
        char *end;
        (void)strtol(spec, &end, 10);
        if (*end == '\0')
            continue; /* all digits: that would be an index */
        for (size_t i = 0; i < take; i++)
            if (rng_below(&r, 2))
                spec[i] = (char)(islower((unsigned char)spec[i]) ? toupper((unsigned char)spec[i])
                                                                 : tolower((unsigned char)spec[i]));
        struct clu_env env;
        int ret = open_quietly(&env, spec, NULL);
        CHECK(ret == 0 && env.device_name[0], "spec \"%s\" (from \"%s\") failed", spec, name);
        clu_env_close(&env);
    }
}

static int count_devices(void) {
    struct capture c;
    capture_start(&c, 1);
    int n = clu_list_devices();
    free(capture_end(&c));
    return n;
}

static void env_open_bad_specs_fail_without_exit(void **state) {
    (void)state;
    int n = count_devices();
    assert_true(n >= 1);
    char beyond[16], last[16];
    snprintf(beyond, sizeof beyond, "%d", n);
    snprintf(last, sizeof last, "%d", n - 1);
    const char *bad[] = {"no-such-device-xyz", "999", "-1", beyond};
    for (int i = 0; i < 4; i++) {
        struct clu_env env;
        char *said = NULL;
        int ret = open_quietly(&env, bad[i], &said);
        CHECK(ret == -1 && said[0] != '\0', "spec \"%s\": returned %d, said \"%s\"", bad[i], ret,
              said);
        free(said);
    }
    struct clu_env env;
    assert_int_equal(open_quietly(&env, last, NULL), 0);
    clu_env_close(&env);
}

static void list_devices_prints_each(void **state) {
    (void)state;
    struct capture c;
    capture_start(&c, 1);
    int n = clu_list_devices();
    char *out = capture_end(&c);
    assert_true(n >= 1);
    CHECK(count_lines(out) == n && strncmp(out, "0: ", 3) == 0 && strstr(out, g_env.device_name),
          "%d devices, listing \"%s\"", n, out);
    free(out);
}

static void device_max_group_matches_device(void **state) {
    (void)state;
    size_t want = 0;
    assert_int_equal(
        clGetDeviceInfo(g_env.device, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof want, &want, NULL),
        CL_SUCCESS);
    size_t got = clu_device_max_group(&g_env);
    assert_true(got >= 1);
    assert_int_equal(got, want);
}

/* The device's fill gives clu_random_fill's bits at sizes of every kind (one, odd, more than the
 * work-items of a launch), and leaves the buffer past n as it was. */
static void device_fill_matches_host(void **state) {
    (void)state;
    struct rng r = TEST_RNG();
    struct clu_device_fill f;
    assert_int_equal(clu_device_fill_open(&g_env, &f), CL_SUCCESS);
    size_t sizes[] = {1, 0, 0, 0};
    sizes[1] = (size_t)rng_int(&r, 2, 5000);
    sizes[2] = (size_t)rng_int(&r, 5000, 300000) * 2 + 1;
    sizes[3] = ((size_t)1 << 20) + (size_t)rng_int(&r, 1, 700000); /* items loop */
    for (int t = 0; t < 4; t++) {
        size_t n = sizes[t], tail = (size_t)rng_int(&r, 1, 64);
        uint64_t seed = rng_u64(&r), stream = rng_below(&r, 4);
        float *want = malloc((n + tail) * sizeof *want), *got = malloc((n + tail) * sizeof *got);
        assert_true(want && got);
        clu_random_fill(want, n, seed, stream);
        clu_fill_unwritten(want + n, tail);
        cl_int err;
        cl_mem x = clCreateBuffer(g_env.context, CL_MEM_READ_WRITE, (n + tail) * sizeof(float),
                                  NULL, &err);
        assert_int_equal(err, CL_SUCCESS);
        const cl_uint unwritten = CLU_UNWRITTEN_BITS;
        assert_int_equal(clEnqueueFillBuffer(g_env.queue, x, &unwritten, sizeof unwritten, 0,
                                             (n + tail) * sizeof(float), 0, NULL, NULL),
                         CL_SUCCESS);
        assert_int_equal(clu_device_fill(&f, g_env.queue, x, n, seed, stream), CL_SUCCESS);
        assert_int_equal(clEnqueueReadBuffer(g_env.queue, x, CL_TRUE, 0, (n + tail) * sizeof(float),
                                             got, 0, NULL, NULL),
                         CL_SUCCESS);
        size_t first = n + tail;
        for (size_t i = 0; i < n + tail && first == n + tail; i++)
            if (memcmp(&want[i], &got[i], sizeof(float)) != 0)
                first = i;
        CHECK(first == n + tail, "n %zu, stream %llu: element %zu is %a, the host's %a", n,
              (unsigned long long)stream, first, (double)got[first], (double)want[first]);
        clReleaseMemObject(x);
        free(want);
        free(got);
    }
    clu_device_fill_close(&f);
}

static const char *fill_kernel_source = "#ifndef VAL\n"
                                        "#error \"VAL missing\"\n"
                                        "#endif\n"
                                        "__kernel void fill(__global int *out, int n) {\n"
                                        "    int i = get_global_id(0);\n"
                                        "    if (i < n)\n"
                                        "        out[i] = VAL + 3 * i;\n"
                                        "}\n";

/* Builds the fill kernel with -DVAL=val (or no option) from a temp file. */
static cl_program build_fill(int val, int with_option, cl_int *err, char **said) {
    char path[PATH_MAX], options[64];
    temp_file(path, sizeof path);
    write_file(path, fill_kernel_source, strlen(fill_kernel_source));
    snprintf(options, sizeof options, "-DVAL=%d", val);
    struct capture c;
    capture_start(&c, 2);
    cl_program p = clu_build_file(&g_env, path, with_option ? options : NULL, err);
    char *text = capture_end(&c);
    unlink(path);
    if (said)
        *said = text;
    else
        free(text);
    return p;
}

struct fill_run {
    cl_kernel kernel;
    cl_mem buf;
    int n;
    int calls, fail_at, launch_until;
    cl_int fail_err;
};

static void fill_prepare(struct fill_run *f, cl_program program, int n) {
    cl_int err;
    memset(f, 0, sizeof *f);
    f->n = n;
    f->fail_at = -1;
    f->launch_until = INT_MAX;
    f->kernel = clCreateKernel(program, "fill", &err);
    assert_int_equal(err, CL_SUCCESS);
    f->buf = clCreateBuffer(g_env.context, CL_MEM_WRITE_ONLY, (size_t)n * sizeof(int), NULL, &err);
    assert_int_equal(err, CL_SUCCESS);
    assert_int_equal(clSetKernelArg(f->kernel, 0, sizeof f->buf, &f->buf), CL_SUCCESS);
    assert_int_equal(clSetKernelArg(f->kernel, 1, sizeof(int), &f->n), CL_SUCCESS);
}

static void fill_release(struct fill_run *f) {
    clReleaseMemObject(f->buf);
    clReleaseKernel(f->kernel);
}

static cl_int fill_launch(void *ctx, cl_command_queue queue, cl_event *done) {
    struct fill_run *f = ctx;
    int call = f->calls++;
    if (call == f->fail_at)
        return f->fail_err;
    if (call >= f->launch_until)
        return CL_SUCCESS; /* *done left NULL: nothing launched */
    size_t global = (size_t)f->n;
    return clEnqueueNDRangeKernel(queue, f->kernel, 1, NULL, &global, NULL, 0, NULL, done);
}

static void build_file_ok_and_options_reach_the_compiler(void **state) {
    (void)state;
    struct rng r = TEST_RNG();
    int val = rng_int(&r, -100000, 100000);
    cl_int err = 12345;
    cl_program program = build_fill(val, 1, &err, NULL);
    assert_non_null(program);
    assert_int_equal(err, CL_SUCCESS);
    const int sizes[] = {1, 7, 33, 100};
    for (int s = 0; s < 4; s++) {
        struct fill_run f;
        fill_prepare(&f, program, sizes[s]);
        cl_event done = NULL;
        assert_int_equal(fill_launch(&f, g_env.queue, &done), CL_SUCCESS);
        int out[100];
        assert_int_equal(clEnqueueReadBuffer(g_env.queue, f.buf, CL_TRUE, 0,
                                             (size_t)f.n * sizeof(int), out, 1, &done, NULL),
                         CL_SUCCESS);
        double seconds = clu_event_seconds(done);
        CHECK(seconds >= 0 && seconds < 10, "event time %g s", seconds);
        clReleaseEvent(done);
        for (int i = 0; i < f.n; i++)
            CHECK(out[i] == val + 3 * i, "n %d: out[%d] = %d, want %d", f.n, i, out[i],
                  val + 3 * i);
        fill_release(&f);
    }
    clReleaseProgram(program);

    /* without the option the source's #error fires: options really are passed on */
    char *said = NULL;
    program = build_fill(val, 0, &err, &said);
    CHECK(program == NULL && err == CL_BUILD_PROGRAM_FAILURE && strstr(said, "VAL missing"),
          "build without -DVAL: program %p, err %s, stderr \"%s\"", (void *)program,
          clu_error_name(err), said);
    free(said);
}

static void build_file_syntax_error_prints_log(void **state) {
    (void)state;
    struct rng r = TEST_RNG();
    char ident[48], source[256], path[PATH_MAX];
    snprintf(ident, sizeof ident, "undeclared_thing_%llx", (unsigned long long)rng_u64(&r));
    snprintf(source, sizeof source,
             "__kernel void broken(__global float *x) {\n"
             "    x[get_global_id(0)] = %s * 2.0f\n" /* undeclared, and no semicolon */
             "}\n",
             ident);
    temp_file(path, sizeof path);
    write_file(path, source, strlen(source));
    cl_int err = CL_SUCCESS;
    struct capture c;
    capture_start(&c, 2);
    cl_program p = clu_build_file(&g_env, path, NULL, &err);
    char *said = capture_end(&c);
    unlink(path);
    CHECK(p == NULL, "broken kernel built");
    CHECK(err == CL_BUILD_PROGRAM_FAILURE, "err %d (%s)", (int)err, clu_error_name(err));
    CHECK(strstr(said, "error") && strstr(said, ident),
          "stderr lacks the build log (want \"error\" and \"%s\"): \"%s\"", ident, said);
    /* the log names the file as the student knows it, at the line of the error, never the
     * compiler's temporary copy */
    char where[PATH_MAX + 8];
    snprintf(where, sizeof where, "%s:2:", strrchr(path, '/') + 1);
    CHECK(strstr(said, where) && !strstr(said, "tempfile_") && !strstr(said, "input.cl"),
          "the log does not name the file as %s: \"%s\"", where, said);
    free(said);
}

static void build_file_missing_source(void **state) {
    (void)state;
    char path[PATH_MAX];
    temp_file(path, sizeof path);
    unlink(path);
    cl_int err = CL_SUCCESS;
    struct capture c;
    capture_start(&c, 2);
    cl_program p = clu_build_file(&g_env, path, NULL, &err);
    char *said = capture_end(&c);
    CHECK(p == NULL && err != CL_SUCCESS && said[0] != '\0',
          "missing source: program %p, err %d, stderr \"%s\"", (void *)p, (int)err, said);
    free(said);
}

static void time_launches_real_kernel(void **state) {
    (void)state;
    struct rng r = TEST_RNG();
    cl_int err;
    cl_program program = build_fill(1, 1, &err, NULL);
    assert_non_null(program);
    for (int t = 0; t < 3; t++) {
        struct fill_run f;
        fill_prepare(&f, program, 4096 + rng_int(&r, 0, 4096));
        int warmup = rng_int(&r, 0, 2), repeats = rng_int(&r, 1, 7);
        struct clu_stats s;
        memset(&s, 0xFF, sizeof s);
        err = clu_time_launches(g_env.queue, fill_launch, &f, warmup, repeats, &s);
        CHECK(err == CL_SUCCESS, "returned %s", clu_error_name(err));
        CHECK(f.calls == warmup + repeats, "%d launches for warmup %d + repeats %d", f.calls,
              warmup, repeats);
        CHECK(s.count == repeats && s.min >= 0 && s.min <= s.median && s.median <= s.max &&
                  s.max > 0 && s.max < 10,
              "repeats %d: count %d min %g median %g max %g", repeats, s.count, s.min, s.median,
              s.max);
        fill_release(&f);
    }
    clReleaseProgram(program);
}

static void time_launches_not_launched_and_errors(void **state) {
    (void)state;
    struct rng r = TEST_RNG();
    cl_int err;
    cl_program program = build_fill(1, 1, &err, NULL);
    assert_non_null(program);
    struct fill_run f;
    fill_prepare(&f, program, 33);

    /* never launches */
    f.launch_until = 0;
    struct clu_stats s;
    err = clu_time_launches(g_env.queue, fill_launch, &f, 1, 5, &s);
    CHECK(err == CLU_NOT_LAUNCHED, "returned %d (%s)", (int)err, clu_error_name(err));
    CHECK(s.count == 0, "count %d", s.count);

    for (int t = 0; t < 4; t++) {
        int warmup = rng_int(&r, 0, 2), repeats = rng_int(&r, 2, 6);
        int stop = rng_int(&r, 0, warmup + repeats - 1);
        int timed_before = stop > warmup ? stop - warmup : 0;
        /* launches until call `stop`, then leaves *done NULL */
        f.calls = 0;
        f.fail_at = -1;
        f.launch_until = stop;
        err = clu_time_launches(g_env.queue, fill_launch, &f, warmup, repeats, &s);
        CHECK(err == CLU_NOT_LAUNCHED && s.count == timed_before && f.calls == stop + 1,
              "stop at call %d (warmup %d, repeats %d): %d, count %d, %d calls", stop, warmup,
              repeats, (int)err, s.count, f.calls);
        /* fails at call `stop` with an OpenCL error: that error comes back, nothing more runs */
        f.calls = 0;
        f.fail_at = stop;
        f.launch_until = INT_MAX;
        f.fail_err = CL_INVALID_KERNEL_ARGS;
        err = clu_time_launches(g_env.queue, fill_launch, &f, warmup, repeats, &s);
        CHECK(err == CL_INVALID_KERNEL_ARGS && s.count == timed_before && f.calls == stop + 1,
              "fail at call %d (warmup %d, repeats %d): %s, count %d, %d calls", stop, warmup,
              repeats, clu_error_name(err), s.count, f.calls);
    }
    fill_release(&f);
    clReleaseProgram(program);
}

/* ------------------------------------------------------------------ clu_mm_main end to end
 * The driver builds kernel.cl next to the executable, so the test copies itself into a temp
 * folder with a kernel.cl and runs that copy in MM_CHILD mode. */

#define MM_CHILD "--clu-unit-mm-child"

static const char *mm_kernel_source =
    "__kernel void mm(int n, __global const float *a, __global const float *b,\n"
    "                 __global float *c) {\n"
    "    int j = get_global_id(0), i = get_global_id(1);\n"
    "    if (i >= n || j >= n)\n"
    "        return;\n"
    "    float s = 0.0f;\n"
    "    for (int k = 0; k < n; k++)\n"
    "        s += a[i * n + k] * b[k * n + j];\n"
    "#if BLOCK >= 100 /* plant one wrong element at flat index BLOCK - 100 */\n"
    "    if (i * n + j == BLOCK - 100)\n"
    "        s += 0.5f;\n"
    "#endif\n"
    "    c[i * n + j] = s;\n"
    "}\n";

static cl_int mm_set_args(struct clu_mm *mm) {
    cl_int err = clSetKernelArg(mm->kernel, 0, sizeof(int), &mm->opt.n);
    if (err == CL_SUCCESS)
        err = clSetKernelArg(mm->kernel, 1, sizeof(cl_mem), &mm->a);
    if (err == CL_SUCCESS)
        err = clSetKernelArg(mm->kernel, 2, sizeof(cl_mem), &mm->b);
    if (err == CL_SUCCESS)
        err = clSetKernelArg(mm->kernel, 3, sizeof(cl_mem), &mm->c);
    return err;
}

static cl_int mm_launch(struct clu_mm *mm, cl_event *done) {
    /* (written unlike 01's solution: make handout's check finds none of a solution's lines here) */
    size_t n = (size_t)mm->opt.n, items[2] = {n, n};
    cl_command_queue q = mm->env.queue;
    return clEnqueueNDRangeKernel(q, mm->kernel, 2, NULL, items, NULL, 0, NULL, done);
}

static cl_int mm_launch_nothing(struct clu_mm *mm, cl_event *done) {
    (void)mm;
    (void)done;
    return CL_SUCCESS; /* a student's unfinished TODO */
}

static int mm_child_main(int argc, char **argv) {
    struct clu_mm_exercise ex = {.title = "unit-test matmul",
                                 .kernel_name = "mm",
                                 .default_n = 16,
                                 .set_args = mm_set_args,
                                 .launch = mm_launch};
    if (strcmp(argv[2], "nothing") == 0)
        ex.launch = mm_launch_nothing;
    return clu_mm_main(argc - 2, argv + 2, &ex);
}

struct mm_dir {
    char dir[PATH_MAX], exe[PATH_MAX + 16], kernel[PATH_MAX + 16], result[PATH_MAX + 16];
};

/* Runs the copy: exe MM_CHILD mode args...; returns its exit status, stdout in *out. */
static int mm_run(const struct mm_dir *d, char *const args[], char **out) {
    char out_path[PATH_MAX], err_path[PATH_MAX];
    temp_file(out_path, sizeof out_path);
    temp_file(err_path, sizeof err_path);
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        int o = open(out_path, O_WRONLY | O_TRUNC), e = open(err_path, O_WRONLY | O_TRUNC);
        if (o < 0 || e < 0 || dup2(o, 1) < 0 || dup2(e, 2) < 0)
            _exit(120);
        execv(d->exe, args);
        _exit(121);
    }
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    char *err = slurp(err_path, NULL);
    *out = slurp(out_path, NULL);
    unlink(out_path);
    unlink(err_path);
    if (err && err[0])
        print_message("    (driver stderr: %s)\n", err);
    free(err);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static void mm_main_end_to_end(void **state) {
    (void)state;
    struct rng r = TEST_RNG();
    struct mm_dir d;
    snprintf(d.dir, sizeof d.dir, "%s/clu_unit_mm_XXXXXX", tmp_dir());
    assert_non_null(mkdtemp(d.dir));
    snprintf(d.exe, sizeof d.exe, "%s/mm_child", d.dir);
    snprintf(d.kernel, sizeof d.kernel, "%s/kernel.cl", d.dir);
    snprintf(d.result, sizeof d.result, "%s/result.bin", d.dir);
    remember(d.dir); /* removed last: the list is emptied from the end */
    remember(d.exe);
    remember(d.kernel);
    remember(d.result);
    size_t exe_len;
    char *exe = slurp("/proc/self/exe", &exe_len);
    assert_non_null(exe);
    write_file(d.exe, exe, exe_len);
    free(exe);
    assert_int_equal(chmod(d.exe, 0755), 0);
    write_file(d.kernel, mm_kernel_source, strlen(mm_kernel_source));

    int n = rng_int(&r, 9, 30);
    unsigned long long seed = rng_u64(&r) >> 20;
    char n_text[16], seed_text[32], block_text[16];
    snprintf(n_text, sizeof n_text, "%d", n);
    snprintf(seed_text, sizeof seed_text, "%llu", seed);

    /* a correct kernel: PASS, exit 0, and the result file holds A*B for the seed's A and B */
    char *good[] = {d.exe,     MM_CHILD,    "good", "--n",      n_text,   "--seed",
                    seed_text, "--repeats", "2",    "--output", d.result, NULL};
    char *out = NULL;
    int status = mm_run(&d, good, &out);
    CHECK(status == 0 && strstr(out, "verification: PASS") && strstr(out, "unit-test matmul"),
          "correct kernel, N %d: status %d, stdout \"%s\"", n, status, out);
    free(out);
    size_t nn = (size_t)n * n, count = 0;
    char why[200] = "";
    float *c = clu_load_result(d.result, &count, why, sizeof why);
    CHECK(c != NULL && count == nn, "result file: %s (count %zu, want %zu)", why, count, nn);
    float *a = malloc(nn * sizeof *a), *b = malloc(nn * sizeof *b);
    double *ref = malloc(nn * sizeof *ref), *abs_ref = malloc(nn * sizeof *abs_ref);
    assert_true(a && b && ref && abs_ref);
    clu_random_fill(a, nn, seed, 0); /* the driver's A and B: streams 0 and 1 of the seed */
    clu_random_fill(b, nn, seed, 1);
    clu_ref_matmul(n, a, b, ref, abs_ref);
    for (size_t i = 0; i < nn; i++)
        CHECK(fabs((double)c[i] - ref[i]) <= clu_dot_tolerance(n, abs_ref[i]),
              "N %d seed %llu: C[%zu] = %.9g, reference %.9g", n, seed, i, (double)c[i], ref[i]);
    free(c);
    unlink(d.result);

    /* one wrong element: FAIL, exit 1, naming the element */
    size_t bad = rng_below(&r, nn);
    snprintf(block_text, sizeof block_text, "%zu", 100 + bad);
    char *wrong[] = {d.exe,     MM_CHILD,    "good", "--n",     n_text,     "--seed",
                     seed_text, "--repeats", "1",    "--block", block_text, NULL};
    status = mm_run(&d, wrong, &out);
    char want[96];
    snprintf(want, sizeof want, "1 of %zu wrong; first C(%zu,%zu)", nn, bad / n, bad % n);
    CHECK(status == 1 && strstr(out, "verification: FAIL") && strstr(out, want),
          "wrong element at %zu: status %d, want \"%s\" in \"%s\"", bad, status, want, out);
    free(out);

    /* a launch that enqueues nothing: exit 1 with the not-launched message */
    char *nothing[] = {d.exe, MM_CHILD, "nothing", "--n", n_text, NULL};
    status = mm_run(&d, nothing, &out);
    CHECK(status == 1 && strstr(out, "not launched"), "not launched: status %d, stdout \"%s\"",
          status, out);
    free(out);

    free(a);
    free(b);
    free(ref);
    free(abs_ref);
    unlink(d.kernel);
    unlink(d.exe);
    rmdir(d.dir);
}

static void mm_main_list(void **state) {
    (void)state;
    struct clu_mm_exercise ex = {.title = "t", .kernel_name = "mm", .default_n = 16};
    char *argv[] = {"prog", "--list"};
    struct capture c;
    capture_start(&c, 1);
    int status = clu_mm_main(2, argv, &ex);
    char *out = capture_end(&c);
    CHECK(status == 0 && strstr(out, g_env.device_name), "--list: status %d, \"%s\"", status, out);
    free(out);
}

/* ================================================================== main */

#define TEST(f) cmocka_unit_test_teardown(f, remove_made)

/* ================================================================== vendor SGEMMs (clu_vendor.h)
 */

/* OpenBLAS and CLBlast (where installed: skipped with a reason otherwise, which must name the
 * package) at random odd M x N x K: every element within clu_dot_tolerance of a double product,
 * twice (a second launch on the same inputs), and BENCH_NO_VENDOR skips each with its reason. */
/* The OpenBLAS core of a CPU's flags (clu_cpu_core.c), on random flag lines: the newest core all
 * of whose instruction sets are there, matched as whole words in any order (a look-alike such as
 * "avx512fx" or "xavx2" is not the flag), and the environment's core kept unless older. */
static void openblas_core_from_flags(void **state) {
    (void)state;
    struct rng r = TEST_RNG();
    static const char *const all[] = {"avx512f", "avx512cd", "avx512bw", "avx512dq", "avx512vl",
                                      "fma",     "avx2",     "avx",      "sse4_2",   "ssse3"};
    static const char *const noise[] = {"fpu",  "sse2",   "avx512fx",    "xavx2", "avx_vnni",
                                        "fma4", "ssse3x", "avx512_bf16", "pni",   "sse4_1"};
    enum { FLAGS = sizeof all / sizeof all[0] };
    /* the rule, written out: the first core whose needs are all present */
    static const struct {
        const char *core;
        int needs[6];
    } rule[] = {{"SkylakeX", {0, 1, 2, 3, 4, 5}},
                {"Haswell", {6, 5, 7, -1}},
                {"SandyBridge", {7, 8, -1}},
                {"Nehalem", {8, 9, -1}},
                {"Core2", {9, -1}}};
    for (int round = 0; round < 2000; round++) {
        int have[FLAGS], order[FLAGS + 10], count = 0;
        char line[600] = "";
        for (int i = 0; i < FLAGS; i++)
            if ((have[i] = rng_int(&r, 0, 3) != 0))
                order[count++] = i;
        for (int i = 0; i < 10; i++)
            if (rng_int(&r, 0, 1))
                order[count++] = FLAGS + i;
        for (int i = count - 1; i > 0; i--) { /* shuffled */
            int j = rng_int(&r, 0, i), t = order[i];
            order[i] = order[j];
            order[j] = t;
        }
        for (int i = 0; i < count; i++) {
            size_t used = strlen(line);
            snprintf(line + used, sizeof line - used, "%s%s", i ? " " : " ",
                     order[i] < FLAGS ? all[order[i]] : noise[order[i] - FLAGS]);
        }
        if (rng_int(&r, 0, 1))
            strcat(line, "\n"); /* (as fgets leaves it) */
        const char *want = NULL;
        for (size_t c = 0; c < sizeof rule / sizeof rule[0] && !want; c++) {
            int ok = 1;
            for (int i = 0; i < 6 && rule[c].needs[i] >= 0 && ok; i++)
                ok = have[rule[c].needs[i]];
            if (ok)
                want = rule[c].core;
        }
        const char *got = clu_openblas_core_of_flags(line);
        CHECK((!want && !got) || (want && got && strcmp(want, got) == 0), "flags '%s': %s, not %s",
              line, got ? got : "none", want ? want : "none");
        /* with the environment's core: kept where as new or unknown, else replaced */
        static const char *const set[] = {NULL,  "",         "Prescott",   "Haswell",
                                          "zen", "SkylakeX", "Cooperlake", "Atom-ish"};
        const char *env = set[rng_int(&r, 0, 7)];
        const char *decided = clu_openblas_core_decide(line, env);
        int env_rank = env && *env ? clu_openblas_core_rank(env) : 0;
        const char *expect = !want                                      ? NULL
                             : !env || !*env                            ? want
                             : env_rank < 0                             ? NULL
                             : env_rank >= clu_openblas_core_rank(want) ? NULL
                                                                        : want;
        CHECK((!expect && !decided) || (expect && decided && strcmp(expect, decided) == 0),
              "flags '%s', OPENBLAS_CORETYPE %s: decided %s, not %s", line, env ? env : "(unset)",
              decided ? decided : "none", expect ? expect : "none");
    }
    CHECK(clu_openblas_core_of_flags(NULL) == NULL, "no flags, a core");
    CHECK(clu_openblas_core_rank("haswell") == clu_openblas_core_rank("Zen") &&
              clu_openblas_core_rank("SkylakeX") > clu_openblas_core_rank("Haswell") &&
              clu_openblas_core_rank("Haswell") > clu_openblas_core_rank("Prescott"),
          "the ranks' order");
}

static void vendor_products_at_odd_sizes(void **state) {
    (void)state;
    struct rng r = TEST_RNG();
    for (int round = 0; round < 3; round++) {
        int m = rng_int(&r, 1, 70), n = rng_int(&r, 1, 70), k = rng_int(&r, 1, 300);
        size_t mn = (size_t)m * (size_t)n;
        float *a = malloc((size_t)m * (size_t)k * sizeof *a);
        float *b = malloc((size_t)k * (size_t)n * sizeof *b);
        float *c = malloc(mn * sizeof *c);
        double *ref = malloc(mn * sizeof *ref), *scale = malloc(mn * sizeof *scale);
        assert_non_null(a && b && c && ref && scale);
        for (size_t i = 0; i < (size_t)m * (size_t)k; i++)
            a[i] = (float)rng_int(&r, -1000, 1000) / 250.0f;
        for (size_t i = 0; i < (size_t)k * (size_t)n; i++)
            b[i] = (float)rng_int(&r, -1000, 1000) / 250.0f;
        clu_ref_gemm(m, n, k, a, b, ref, scale);
        for (enum clu_vendor_id id = CLU_OPENBLAS; id <= CLU_CLBLAST; id++) {
            struct clu_vendor_gemm *g = NULL;
            char library[200], why[300];
            int prepared = clu_vendor_prepare(id, &g_env, m, n, k, a, b, &g, library,
                                              sizeof library, why, sizeof why);
            if (prepared != 0) {
                CHECK(g == NULL && strstr(why, "apt-get install"),
                      "%s skipped without naming a package: \"%s\"", clu_vendor_name(id), why);
                continue;
            }
            CHECK(strstr(library, clu_vendor_name(id)) != NULL, "library \"%s\"", library);
            for (int launch = 0; launch < 2; launch++) {
                double seconds = -1.0;
                memset(c, 0xff, mn * sizeof *c); /* NaN: a C not read back is wrong */
                CHECK(clu_vendor_launch(g, &seconds, why, sizeof why) == 0 && seconds >= 0.0,
                      "%s launch at %dx%dx%d: %s", clu_vendor_name(id), m, n, k, why);
                CHECK(clu_vendor_read(g, c, why, sizeof why) == 0, "%s read: %s",
                      clu_vendor_name(id), why);
                for (size_t e = 0; e < mn; e++)
                    CHECK(fabs((double)c[e] - ref[e]) <= clu_dot_tolerance(k, scale[e]),
                          "%s at %dx%dx%d: C[%zu] = %.9g, expected %.9g", clu_vendor_name(id), m, n,
                          k, e, (double)c[e], ref[e]);
            }
            clu_vendor_release(g);
            setenv("BENCH_NO_VENDOR", rng_int(&r, 0, 1) ? "all" : clu_vendor_key(id), 1);
            g = NULL;
            CHECK(clu_vendor_prepare(id, &g_env, m, n, k, a, b, &g, library, sizeof library, why,
                                     sizeof why) == 1 &&
                      g == NULL && strstr(why, "disabled by BENCH_NO_VENDOR"),
                  "%s under BENCH_NO_VENDOR: \"%s\"", clu_vendor_name(id), why);
            unsetenv("BENCH_NO_VENDOR");
        }
        free(a), free(b), free(c), free(ref), free(scale);
    }
}

int main(int argc, char **argv) {
    if (argc >= 3 && strcmp(argv[1], MM_CHILD) == 0)
        return mm_child_main(argc, argv);

    const char *fixed = getenv("CLU_TEST_SEED");
    if (fixed && *fixed) {
        g_master_seed = strtoull(fixed, NULL, 0);
    } else {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        g_master_seed = ((unsigned long long)ts.tv_sec * 1000000007ull) ^
                        ((unsigned long long)ts.tv_nsec << 20) ^ (unsigned long long)getpid();
    }
    printf("test_common: seed %llu (CLU_TEST_SEED=%llu repeats this run)\n", g_master_seed,
           g_master_seed);

    const struct CMUnitTest host[] = {
        TEST(error_name_known_codes),
        TEST(error_name_unknown_codes),
        TEST(error_name_all_cl12_codes_distinct),
        TEST(report_error_prints_name_operation_place_and_hint),
        TEST(check_exits_3_on_error),
        TEST(random_fill_deterministic),
        TEST(random_next_is_fill_is_splitmix64),
        TEST(parallel_for_covers_each_once),
        TEST(ref_gemm_in_parts_is_one_loop),
        TEST(random_fill_streams_and_seeds_differ),
        TEST(random_fill_range_and_moments),
        TEST(ref_matmul_matches_naive_loop),
        TEST(ref_matmul_identity),
        TEST(ref_matmul_not_symmetric_and_transpose_rule),
        TEST(dot_tolerance_grows_with_n),
        TEST(dot_tolerance_linear_in_scale),
        TEST(dot_tolerance_positive_at_zero_and_above_gamma_n),
        TEST(dot_tolerance_covers_float_dot_1000),
        TEST(compare_equal_data),
        TEST(compare_nan_and_inf_are_wrong),
        TEST(compare_three_planted_errors),
        TEST(compare_per_element_tol_vs_tol_all),
        TEST(stats_odd_count),
        TEST(stats_even_count),
        TEST(stats_empty),
        TEST(divisor_examples),
        TEST(divisor_property_random),
        TEST(result_round_trip),
        TEST(result_truncated),
        TEST(result_wrong_magic),
        TEST(result_trailing_bytes),
        TEST(result_bad_count_and_missing_file),
        TEST(result_reason_respects_buffer_size),
        TEST(options_defaults),
        TEST(options_each_flag),
        TEST(options_bad_flags_exit_2),
        TEST(options_help_exits_0),
        TEST(options_seed_out_of_range),
        TEST(read_file_round_trip),
        TEST(read_file_missing),
        TEST(exe_dir_is_directory_of_binary),
        TEST(print_verification_pass_and_fail),
        TEST(print_timing_line),
        TEST(mm_main_rejects_bad_sizes),
    };
    const struct CMUnitTest device[] = {
        TEST(env_open_default),
        TEST(env_open_pocl),
        TEST(env_open_name_substring),
        TEST(env_open_bad_specs_fail_without_exit),
        TEST(list_devices_prints_each),
        TEST(device_max_group_matches_device),
        TEST(build_file_ok_and_options_reach_the_compiler),
        TEST(build_file_syntax_error_prints_log),
        TEST(build_file_missing_source),
        TEST(time_launches_real_kernel),
        TEST(time_launches_not_launched_and_errors),
        TEST(device_fill_matches_host),
        TEST(mm_main_end_to_end),
        TEST(mm_main_list),
        TEST(vendor_products_at_odd_sizes),
        TEST(openblas_core_from_flags),
    };
    int failed = cmocka_run_group_tests_name("host", host, NULL, NULL);
    failed += cmocka_run_group_tests_name("device", device, device_setup, device_teardown);
    if (failed)
        fprintf(stderr, "test_common: %d failed with seed %llu: rerun with CLU_TEST_SEED=%llu\n",
                failed, g_master_seed, g_master_seed);
    return failed ? 1 : 0;
}
