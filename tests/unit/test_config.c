/* test_config.c - unit tests (cmocka) of the instructor's config file (grader_load_config):
 * every documented key changes what it should in the plan and nothing else (the plan rows' sizes,
 * host_n, memcheck_n, perf_n, points.* and quiz.*; the limits; the timeout; the perf_ratio; the
 * Slurm settings; the chosen exercises in order without duplicates, by "04" or by full id);
 * comments, blank lines, spaces, tabs and CRLF line ends; errors that name FILE:LINE: with the
 * right line (unknown key, unknown exercise, bad number, a size the exercise does not allow, a
 * missing '=', an empty exercise list) and a missing file; random files (printable, binary,
 * mutated) that never crash and either load or give an error with a line number.
 *
 * grader_load_config changes only the plan it is given (the table stays as compiled, and a
 * refused file leaves the plan as it was): every load starts from a fresh plan of the defaults,
 * so the tests stay independent.
 *
 * Random inputs come from a seed chosen at run time and printed at the start and in every
 * failure; TEST_CONFIG_SEED=<seed> repeats a run. Built and run by tests/run.sh from the
 * repository root (with every grader source but main.c).
 */
#define _GNU_SOURCE /* mkdtemp */
#include "grader.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

/* ---------------------------------------------------------------- seeds, checks, temp files */

#include "testkit.h"

static char g_tmp[64];

/* ---------------------------------------------------------------- the plan a config changes */

static struct grader_exercise *g_saved_table; /* the table's rows, as compiled */
static struct grader_limits g_saved_limits;   /* the limits every plan starts from */
static const double g_saved_ratio = GRADER_PERF_RATIO;

/* The row index of an exercise of the table (as the plan's chosen list holds it). */
static int row_of(const struct grader_exercise *ex) {
    return (int)(ex - grader_exercises);
}

static int group_setup(void **state) {
    (void)state;
    if (testkit_start("test_config", "TEST_CONFIG_SEED", g_tmp, sizeof g_tmp) != 0)
        return -1;
    g_saved_table = malloc(sizeof grader_exercises[0] * (size_t)grader_exercise_count);
    if (!g_saved_table)
        return -1;
    memcpy(g_saved_table, grader_exercises,
           sizeof grader_exercises[0] * (size_t)grader_exercise_count);
    const struct grader_jail_settings defaults = GRADER_JAIL_DEFAULTS;
    g_saved_limits = defaults.limits;
    return 0;
}

static int group_teardown(void **state) {
    (void)state;
    grader_remove_tree(g_tmp);
    free(g_saved_table);
    return 0;
}

/* ---------------------------------------------------------------- loading a text */

#define TIMEOUT0 123.0 /* the plan's timeout before a load */

static struct grader_plan g_plan; /* the last load's */
static char g_err[600];
static char g_path[128];
static int g_file_no;

/* A fresh plan of the defaults: the table's rows, the limits, TIMEOUT0, the ratio. */
static void fresh_plan(struct grader_plan *plan) {
    grader_plan_init(plan, TIMEOUT0, &g_saved_limits);
}

/* Write length bytes of data to a fresh file and load it into a fresh plan. */
static int load_bytes(const char *data, size_t length) {
    snprintf(g_path, sizeof g_path, "%s/grader-%d.conf", g_tmp, ++g_file_no);
    FILE *f = fopen(g_path, "wb");
    CHECK(f != NULL, "cannot write %s: %s", g_path, strerror(errno));
    CHECK(fwrite(data, 1, length, f) == length, "short write to %s", g_path);
    CHECK(fclose(f) == 0, "cannot close %s", g_path);
    fresh_plan(&g_plan);
    memset(g_err, 0, sizeof g_err);
    int status = grader_load_config(g_path, &g_plan, g_err, sizeof g_err);
    unlink(g_path);
    return status;
}

static int load_text(const char *text) {
    return load_bytes(text, strlen(text));
}

/* The error must be exactly "PATH:LINE: " followed by text holding want. */
static void check_error_at(int status, const char *text, int line, const char *want) {
    CHECK(status == -1, "loaded (status %d), expected an error at line %d:\n%s", status, line,
          text);
    char prefix[200];
    snprintf(prefix, sizeof prefix, "%s:%d: ", g_path, line);
    CHECK(strncmp(g_err, prefix, strlen(prefix)) == 0, "error \"%s\" does not start with \"%s\"",
          g_err, prefix);
    CHECK(strstr(g_err + strlen(prefix), want) != NULL, "error \"%s\" does not say \"%s\"", g_err,
          want);
}

static void check_loaded(int status, const char *text) {
    CHECK(status == 0, "status %d, error \"%s\" loading:\n%s", status, g_err, text);
}

/* Every row of the plan equals the one in want, and the table is still as compiled. */
static void check_table(const struct grader_exercise *want) {
    CHECK(g_plan.row_count == grader_exercise_count, "the plan holds %d rows of %d",
          g_plan.row_count, grader_exercise_count);
    for (int e = 0; e < grader_exercise_count; e++) {
        CHECK(memcmp(&g_plan.rows[e], &want[e], sizeof want[e]) == 0,
              "row %s differs from what the config should have made of it", want[e].id);
        CHECK(memcmp(&grader_exercises[e], &g_saved_table[e], sizeof want[e]) == 0,
              "the table's row %s was changed", want[e].id);
    }
}

static void check_limits_of(const struct grader_plan *plan, const struct grader_limits *want) {
    const struct grader_limits *got = &plan->limits;
    CHECK(got->cpu_seconds == want->cpu_seconds, "cpu_seconds %g, expected %g", got->cpu_seconds,
          want->cpu_seconds);
    CHECK(got->processes == want->processes, "processes %ld, expected %ld", got->processes,
          want->processes);
    CHECK(got->open_files == want->open_files, "open_files %ld, expected %ld", got->open_files,
          want->open_files);
    CHECK(got->memory_bytes == want->memory_bytes, "memory_bytes %lld, expected %lld",
          got->memory_bytes, want->memory_bytes);
    CHECK(got->disk_bytes == want->disk_bytes, "disk_bytes %lld, expected %lld", got->disk_bytes,
          want->disk_bytes);
}

static void check_limits(const struct grader_limits *want) {
    check_limits_of(&g_plan, want);
}

static void check_untouched(void) {
    check_table(g_saved_table);
    check_limits(&g_saved_limits);
    CHECK(g_plan.perf_ratio == g_saved_ratio, "perf_ratio %g, expected %g", g_plan.perf_ratio,
          g_saved_ratio);
    CHECK(!g_plan.slurm.partition[0] && !g_plan.slurm.gres[0] &&
              g_plan.slurm.time_minutes == GRADER_SLURM_MINUTES &&
              g_plan.slurm.memory_mb == GRADER_SLURM_MEMORY_MB &&
              g_plan.slurm.cpus == GRADER_SLURM_CPUS,
          "the Slurm settings changed: partition \"%s\", gres \"%s\", %d min, %d MB, %d cpus",
          g_plan.slurm.partition, g_plan.slurm.gres, g_plan.slurm.time_minutes,
          g_plan.slurm.memory_mb, g_plan.slurm.cpus);
}

/* ---------------------------------------------------------------- building config texts */

/* A config text written line by line, with random spacing, comments and blank lines, and LF or
 * CRLF line ends; lines counts the lines written so far. */
struct text {
    char buf[32768];
    size_t len;
    int lines;
    int crlf;
    struct rng *r;
};

static void text_start(struct text *t, struct rng *r) {
    t->len = 0;
    t->buf[0] = '\0';
    t->lines = 0;
    t->r = r;
    t->crlf = rng_range(r, 0, 3) == 0;
}

/* One line (printf-style), then the line end; returns its line number. */
static int text_line(struct text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int text_line(struct text *t, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(t->buf + t->len, sizeof t->buf - t->len, fmt, ap);
    va_end(ap);
    CHECK(n >= 0 && (size_t)n + 3 < sizeof t->buf - t->len, "config text too long");
    t->len += (size_t)n;
    t->len +=
        (size_t)snprintf(t->buf + t->len, sizeof t->buf - t->len, "%s", t->crlf ? "\r\n" : "\n");
    return ++t->lines;
}

static const char *spaces(struct rng *r) {
    static const char *choices[] = {"", "", " ", "  ", "\t", " \t "};
    return choices[rng_range(r, 0, 5)];
}

/* Zero to two lines that change nothing: blank, spaces only, or comments. */
static void text_noise(struct text *t) {
    for (long i = rng_range(t->r, 0, 2); i > 0; i--) {
        switch (rng_range(t->r, 0, 3)) {
        case 0:
            text_line(t, "%s", "");
            break;
        case 1:
            text_line(t, "%s", spaces(t->r));
            break;
        case 2:
            text_line(t, "# timeout = 1 (a comment: %d)", (int)rng_range(t->r, 0, 99));
            break;
        default:
            text_line(t, "%s#%s exercises = 99_none", spaces(t->r), spaces(t->r));
            break;
        }
    }
}

/* `key = value` with random spacing and sometimes a trailing comment; returns its line number. */
static int text_key(struct text *t, const char *key, const char *value) {
    const char *comment = rng_range(t->r, 0, 2) == 0 ? " # = 7, what it means" : "";
    return text_line(t, "%s%s%s=%s%s%s%s", spaces(t->r), key, spaces(t->r), spaces(t->r), value,
                     spaces(t->r), comment);
}

/* ---------------------------------------------------------------- random valid values */

static int max_size_of(const struct grader_exercise *ex, int cap) {
    return ex->max_n > 0 && ex->max_n < cap ? ex->max_n : cap;
}

/* The step of ex's valid sizes: its multiple, and the tuning values it names (from 07 on). */
static int size_step(const struct grader_exercise *ex) {
    int step = ex->multiple > 1 ? ex->multiple : 1;
    for (int m = 0; m < 4 && ex->multiple_of[m]; m++)
        for (int t = 0; ex->tuning[t].name; t++)
            if (!strcmp(ex->tuning[t].name, ex->multiple_of[m])) {
                int a = step, b = ex->tuning[t].value; /* the least common multiple */
                while (b) {
                    int c = a % b;
                    a = b, b = c;
                }
                step = step / a * ex->tuning[t].value;
            }
    return step;
}

/* A size valid for ex in [1, cap] (cap: the key's own range). */
static int valid_size(struct rng *r, const struct grader_exercise *ex, int cap) {
    int m = size_step(ex);
    return m * (int)rng_range(r, 1, max_size_of(ex, cap) / m);
}

/* Whether a config may set the key of ex: a rectangular row's sizes are M x N x K. */
static int settable(const struct grader_exercise *ex, const char *key) {
    return !ex->rectangular || (strcmp(key, "sizes") && strcmp(key, "host_n"));
}

/* A size in [1, cap] that ex does not allow, or 0 if every one is allowed. */
static int invalid_size(struct rng *r, const struct grader_exercise *ex, int cap) {
    for (int tries = 0; tries < 1000; tries++) {
        int n = (int)rng_range(r, 1, cap);
        if (!grader_size_valid(ex, n))
            return n;
    }
    return 0;
}

/* Random exercise id as written in a config: "04" or "04_local_B". */
static const char *spelling(struct rng *r, const struct grader_exercise *ex, char *buf,
                            size_t size) {
    if (rng_range(r, 0, 1))
        snprintf(buf, size, "%.2s", ex->id);
    else
        snprintf(buf, size, "%s", ex->id);
    return buf;
}

/* ---------------------------------------------------------------- tests: what loads */

static void test_empty_and_comments_change_nothing(void **state) {
    (void)state;
    struct rng r = rng_for("empty");
    const char *fixed[] = {"",
                           "\n",
                           "\r\n",
                           "# only a comment",
                           "# a\n\n   \n\t\n# b = c\n",
                           "#exercises = 99\r\n\r\n"};
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++) {
        check_loaded(load_text(fixed[i]), fixed[i]);
        check_untouched();
        CHECK(g_plan.chosen_count == 0, "chosen_count set to %d without `exercises`",
              g_plan.chosen_count);
        CHECK(g_plan.timeout == TIMEOUT0, "timeout changed to %g", g_plan.timeout);
    }
    for (int i = 0; i < 50; i++) {
        struct text t;
        text_start(&t, &r);
        for (int k = 0; k < 5; k++)
            text_noise(&t);
        check_loaded(load_text(t.buf), t.buf);
        check_untouched();
        CHECK(g_plan.chosen_count == 0, "chosen_count set without `exercises`");
    }
}

static void test_sizes(void **state) {
    (void)state;
    struct rng r = rng_for("sizes");
    struct grader_exercise *want = malloc(sizeof want[0] * (size_t)grader_exercise_count);
    CHECK(want != NULL, "out of memory");
    for (int round = 0; round < 40; round++) {
        memcpy(want, g_saved_table, sizeof want[0] * (size_t)grader_exercise_count);
        struct text t;
        text_start(&t, &r);
        /* some rows, each perhaps set twice (the last line wins) */
        for (int k = (int)rng_range(&r, 1, 2 * grader_exercise_count); k > 0; k--) {
            int e = (int)rng_range(&r, 0, grader_exercise_count - 1);
            struct grader_exercise *ex = &want[e];
            if (!settable(ex, "sizes"))
                continue;
            int count = (int)rng_range(&r, 1, GRADER_MAX_SIZES - 1);
            char list[200] = "", key[64], id[32];
            memset(ex->sizes, 0, sizeof ex->sizes);
            for (int s = 0; s < count; s++) {
                int fresh;
                do { /* a size twice is an error of its own (test_errors_name_file_and_line) */
                    ex->sizes[s] = valid_size(&r, ex, 8192);
                    fresh = 1;
                    for (int t = 0; t < s; t++)
                        fresh &= ex->sizes[t] != ex->sizes[s];
                } while (!fresh);
                size_t used = strlen(list);
                snprintf(list + used, sizeof list - used, "%s%s%d%s", s ? "," : "", spaces(&r),
                         ex->sizes[s], spaces(&r));
            }
            if (rng_range(&r, 0, 3) == 0) /* a trailing comma adds no size */
                strcat(list, ",");
            snprintf(key, sizeof key, "%s.sizes", spelling(&r, ex, id, sizeof id));
            text_noise(&t);
            text_key(&t, key, list);
        }
        check_loaded(load_text(t.buf), t.buf);
        check_table(want);
        check_limits(&g_saved_limits);
        CHECK(g_plan.chosen_count == 0, "chosen set by sizes alone");
    }
    free(want);
}

/* The whole-number keys of a row: name, where, range, and whether it is a size. */
static const struct {
    const char *name;
    size_t offset;
    long low, high;
    int is_size;
} int_keys[] = {
    {"host_n", offsetof(struct grader_exercise, host_n), 1, 8192, 1},
    {"memcheck_n", offsetof(struct grader_exercise, memcheck_n), 1, 512, 1},
    {"perf_n", offsetof(struct grader_exercise, perf_n), 1, 16384, 1},
    {"points.per_size", offsetof(struct grader_exercise, points.per_size), 0, 1000, 0},
    {"points.host", offsetof(struct grader_exercise, points.host), 0, 1000, 0},
    {"points.memcheck", offsetof(struct grader_exercise, points.memcheck), 0, 1000, 0},
    {"points.perf", offsetof(struct grader_exercise, points.perf), 0, 1000, 0},
    {"points.technique", offsetof(struct grader_exercise, points.technique), 0, 1000, 0},
    {"points.cuda_per_size", offsetof(struct grader_exercise, cuda_per_size), 0, 1000, 0},
    {"points.vendor", offsetof(struct grader_exercise, points.vendor), 0, 1000, 0},
};
#define INT_KEYS ((int)(sizeof int_keys / sizeof int_keys[0]))

static int *int_field(struct grader_exercise *ex, int k) {
    return (int *)((char *)ex + int_keys[k].offset);
}

static void test_whole_number_keys(void **state) {
    (void)state;
    struct rng r = rng_for("ints");
    struct grader_exercise *want = malloc(sizeof want[0] * (size_t)grader_exercise_count);
    CHECK(want != NULL, "out of memory");
    /* each key of each row alone, at both ends of its range and in between */
    for (int e = 0; e < grader_exercise_count; e++)
        for (int k = 0; k < INT_KEYS; k++)
            for (int pick = 0; pick < 3; pick++) {
                memcpy(want, g_saved_table, sizeof want[0] * (size_t)grader_exercise_count);
                struct grader_exercise *ex = &want[e];
                int v;
                if (!settable(ex, int_keys[k].name))
                    continue;
                if (int_keys[k].is_size) {
                    int m = size_step(ex);
                    int top = max_size_of(ex, (int)int_keys[k].high) / m * m;
                    v = pick == 0 ? m : pick == 1 ? top : valid_size(&r, ex, top);
                } else {
                    v = pick == 0   ? (int)int_keys[k].low
                        : pick == 1 ? (int)int_keys[k].high
                                    : (int)rng_range(&r, int_keys[k].low, int_keys[k].high);
                }
                *int_field(ex, k) = v;
                ex->perf_fixed |= !strcmp(int_keys[k].name, "perf_n");
                ex->perf_fixed |= !strcmp(int_keys[k].name, "perf_n"); /* it no longer grows */
                char key[64], value[32], id[32];
                snprintf(key, sizeof key, "%s.%s", spelling(&r, ex, id, sizeof id),
                         int_keys[k].name);
                snprintf(value, sizeof value, "%d", v);
                struct text t;
                text_start(&t, &r);
                text_noise(&t);
                text_key(&t, key, value);
                text_noise(&t);
                check_loaded(load_text(t.buf), t.buf);
                check_table(want);
                check_limits(&g_saved_limits);
                CHECK(g_plan.perf_ratio == g_saved_ratio, "perf_ratio changed by %s", key);
                CHECK(g_plan.timeout == TIMEOUT0, "timeout changed by %s", key);
            }
    /* many keys of many rows at once */
    for (int round = 0; round < 30; round++) {
        memcpy(want, g_saved_table, sizeof want[0] * (size_t)grader_exercise_count);
        struct text t;
        text_start(&t, &r);
        for (int i = 0; i < 20; i++) {
            int e = (int)rng_range(&r, 0, grader_exercise_count - 1);
            int k = (int)rng_range(&r, 0, INT_KEYS - 1);
            struct grader_exercise *ex = &want[e];
            if (!settable(ex, int_keys[k].name))
                continue;
            int v = int_keys[k].is_size ? valid_size(&r, ex, (int)int_keys[k].high)
                                        : (int)rng_range(&r, int_keys[k].low, int_keys[k].high);
            *int_field(ex, k) = v;
            ex->perf_fixed |= !strcmp(int_keys[k].name, "perf_n");
            char key[64], value[32], id[32];
            snprintf(key, sizeof key, "%s.%s", spelling(&r, ex, id, sizeof id), int_keys[k].name);
            snprintf(value, sizeof value, "%d", v);
            text_noise(&t);
            text_key(&t, key, value);
        }
        check_loaded(load_text(t.buf), t.buf);
        check_table(want);
    }
    free(want);
}

/* vendor_ratios: a row timed against the vendors takes 1 to GRADER_MAX_RATIOS - 1 ascending
 * fractions in (0, 100] (random ones load exactly); a row without vendors, an empty or
 * overlong list, a fraction not above the one before it, out of range or not a number is
 * refused with the file and line, the plan unchanged. */
static void test_vendor_ratios(void **state) {
    (void)state;
    struct rng r = rng_for("vendor ratios");
    struct grader_exercise *want = malloc(sizeof want[0] * (size_t)grader_exercise_count);
    CHECK(want != NULL, "out of memory");
    int timed = 0;
    for (int e = 0; e < grader_exercise_count; e++) {
        const struct grader_exercise *ex = &g_saved_table[e];
        char key[64], id[32], value[200], line[300];
        snprintf(key, sizeof key, "%s.vendor_ratios", spelling(&r, ex, id, sizeof id));
        if (!ex->vendor_ratios[0]) {
            snprintf(line, sizeof line, "%s = 0.5, 1\n", key);
            check_error_at(load_text(line), line, 1, "not timed against the vendors");
            continue;
        }
        timed++;
        for (int round = 0; round < 20; round++) {
            memcpy(want, g_saved_table, sizeof want[0] * (size_t)grader_exercise_count);
            int count = (int)rng_range(&r, 1, GRADER_MAX_RATIOS - 1);
            double ratios[GRADER_MAX_RATIOS] = {0};
            int used = 0;
            long cents = 0;
            for (int i = 0; i < count; i++) {
                cents += rng_range(&r, 1, 2400);
                double at = (double)cents / 100.0; /* rounded as strtod rounds "x.yz" */
                ratios[i] = at;
                used += snprintf(value + used, sizeof value - (size_t)used, "%s%.2f", i ? ", " : "",
                                 at);
            }
            memcpy(want[e].vendor_ratios, ratios, sizeof ratios);
            struct text t;
            text_start(&t, &r);
            text_noise(&t);
            text_key(&t, key, value);
            check_loaded(load_text(t.buf), t.buf);
            check_table(want);
        }
        const char *bad[] = {"",    "1, 0.5", "0.5, 0.5",      "0",   "-1",
                             "101", "x",      "1, 2, 3, 4, 5", "nan", "inf"};
        for (size_t b = 0; b < sizeof bad / sizeof bad[0]; b++) {
            snprintf(line, sizeof line, "# the capstone\n%s = %s\n", key, bad[b]);
            check_error_at(load_text(line), line, 2, "vendor_ratios");
        }
    }
    CHECK(timed > 0, "no row of the table is timed against the vendors");
    free(want);
}

static void test_quiz_points(void **state) {
    (void)state;
    struct rng r = rng_for("quiz");
    struct grader_exercise *want = malloc(sizeof want[0] * (size_t)grader_exercise_count);
    CHECK(want != NULL, "out of memory");
    int quizzes = 0;
    for (int e = 0; e < grader_exercise_count; e++) {
        if (!g_saved_table[e].quiz[0].id)
            continue;
        quizzes++;
        for (int round = 0; round < 10; round++) {
            memcpy(want, g_saved_table, sizeof want[0] * (size_t)grader_exercise_count);
            struct grader_exercise *ex = &want[e];
            int questions = 0;
            while (questions < GRADER_MAX_QUESTIONS && ex->quiz[questions].id)
                questions++;
            struct text t;
            text_start(&t, &r);
            for (int i = (int)rng_range(&r, 1, 4); i > 0; i--) {
                int q = (int)rng_range(&r, 0, questions - 1);
                ex->quiz[q].points = (int)rng_range(&r, 0, 1000);
                char key[64], value[32], id[32];
                snprintf(key, sizeof key, "%s.quiz.%s", spelling(&r, ex, id, sizeof id),
                         ex->quiz[q].id);
                snprintf(value, sizeof value, "%d", ex->quiz[q].points);
                text_noise(&t);
                text_key(&t, key, value);
            }
            check_loaded(load_text(t.buf), t.buf);
            check_table(want);
            CHECK(grader_max_points(&g_plan.rows[e]) == grader_max_points(ex),
                  "%s: max points %d, expected %d", ex->id, grader_max_points(&g_plan.rows[e]),
                  grader_max_points(ex));
        }
    }
    CHECK(quizzes > 0, "no exercise of the table has a quiz");
    free(want);
}

static void test_limits_timeout_ratio(void **state) {
    (void)state;
    struct rng r = rng_for("limits");
    for (int round = 0; round < 60; round++) {
        struct grader_limits want = g_saved_limits;
        double want_timeout = TIMEOUT0, want_ratio = g_saved_ratio;
        struct text t;
        text_start(&t, &r);
        for (int i = (int)rng_range(&r, 1, 10); i > 0; i--) {
            char value[64];
            const char *key;
            switch (rng_range(&r, 0, 6)) {
            case 0: {
                long mb = rng_range(&r, 0, 1) ? rng_range(&r, 64, 65536)
                                              : (rng_range(&r, 0, 1) ? 64 : 1L << 20);
                want.memory_bytes = (long long)mb << 20;
                key = "memory_mb";
                snprintf(value, sizeof value, "%ld", mb);
                break;
            }
            case 1: {
                long mb = rng_range(&r, 0, 1) ? rng_range(&r, 1, 65536)
                                              : (rng_range(&r, 0, 1) ? 1 : 1L << 20);
                want.disk_bytes = (long long)mb << 20;
                key = "disk_mb";
                snprintf(value, sizeof value, "%ld", mb);
                break;
            }
            case 2:
                want.processes = rng_range(&r, 16, 1 << 20);
                key = "processes";
                snprintf(value, sizeof value, "%ld", want.processes);
                break;
            case 3:
                want.open_files = rng_range(&r, 16, 1 << 20);
                key = "open_files";
                snprintf(value, sizeof value, "%ld", want.open_files);
                break;
            case 4:
                want.cpu_seconds = (double)rng_range(&r, 4, 345600) / 4; /* exact in binary */
                key = "cpu_seconds";
                snprintf(value, sizeof value, "%.2f", want.cpu_seconds);
                break;
            case 5:
                want_timeout = (double)rng_range(&r, 8, 8000) / 8;
                key = "timeout";
                snprintf(value, sizeof value, "%.3f", want_timeout);
                break;
            default:
                want_ratio = (double)rng_range(&r, 0, 800) / 8;
                key = "perf_ratio";
                snprintf(value, sizeof value, "%.3f", want_ratio);
                break;
            }
            text_noise(&t);
            text_key(&t, key, value);
        }
        check_loaded(load_text(t.buf), t.buf);
        check_limits(&want);
        CHECK(g_plan.timeout == want_timeout, "timeout %g, expected %g", g_plan.timeout,
              want_timeout);
        CHECK(g_plan.perf_ratio == want_ratio, "perf_ratio %g, expected %g", g_plan.perf_ratio,
              want_ratio);
        check_table(g_saved_table);
    }
    /* number forms strtod takes */
    check_loaded(load_text("timeout = 1e3\ncpu_seconds=+2.5\nperf_ratio = 0\n"), "forms");
    CHECK(g_plan.timeout == 1000, "timeout = 1e3 gave %g", g_plan.timeout);
    CHECK(g_plan.limits.cpu_seconds == 2.5, "cpu_seconds = +2.5 gave %g",
          g_plan.limits.cpu_seconds);
    CHECK(g_plan.perf_ratio == 0, "perf_ratio = 0 gave %g", g_plan.perf_ratio);
}

static void test_exercises(void **state) {
    (void)state;
    struct rng r = rng_for("exercises");
    for (int round = 0; round < 100; round++) {
        const struct grader_exercise *want[GRADER_MAX_EXERCISES];
        int want_count = 0;
        char list[1024] = "";
        for (int i = (int)rng_range(&r, 1, 12); i > 0; i--) {
            const struct grader_exercise *ex =
                &grader_exercises[rng_range(&r, 0, grader_exercise_count - 1)];
            int already = 0;
            for (int c = 0; c < want_count; c++)
                already |= want[c] == ex;
            if (!already)
                want[want_count++] = ex;
            char id[32];
            size_t used = strlen(list);
            snprintf(list + used, sizeof list - used, "%s%s%s%s", used ? "," : "", spaces(&r),
                     spelling(&r, ex, id, sizeof id), spaces(&r));
        }
        struct text t;
        text_start(&t, &r);
        text_noise(&t);
        if (rng_range(&r, 0, 2) == 0) /* an earlier list is replaced */
            text_key(&t, "exercises", "00, 01, 02, 03, 04, 05");
        text_key(&t, "exercises", list);
        text_noise(&t);
        check_loaded(load_bytes(t.buf, t.len), t.buf);
        CHECK(g_plan.chosen_count == want_count, "%d chosen from \"%s\", expected %d",
              g_plan.chosen_count, list, want_count);
        for (int c = 0; c < want_count; c++)
            CHECK(g_plan.chosen[c] == row_of(want[c]),
                  "chosen[%d] is row %d, expected %s (list \"%s\")", c, g_plan.chosen[c],
                  want[c]->id, list);
        check_untouched();
    }
}

/* A list of up to 64 names (repeats allowed) loads; a longer one is refused with its reason,
 * never cut short (the names past the 64th used to be dropped without a word). */
static void test_long_exercise_lists(void **state) {
    (void)state;
    struct rng r = rng_for("long_lists");
    for (int round = 0; round < 20; round++) {
        int names = round % 2 ? (int)rng_range(&r, 65, 300) : (int)rng_range(&r, 40, 64);
        char text[8192] = "exercises = ";
        for (int i = 0; i < names; i++) {
            const struct grader_exercise *ex =
                &grader_exercises[rng_range(&r, 0, grader_exercise_count - 1)];
            size_t used = strlen(text);
            snprintf(text + used, sizeof text - used, "%s%.2s", i ? ", " : "", ex->id);
        }
        int status = load_text(text);
        if (names <= 64)
            check_loaded(status, text);
        else
            check_error_at(status, text, 1, "exercises lists more than 64 names");
    }
}

static void test_spacing_and_line_ends(void **state) {
    (void)state;
    /* the same settings written five ways load the same */
    const char *texts[] = {
        "timeout=7\n04_local_B.sizes=16,32\nexercises=04\nmemory_mb=100\n",
        "  timeout   =   7   \n\t04_local_B.sizes\t=\t16 ,  32\t\n exercises = 04 \n"
        "memory_mb = 100",
        "timeout = 7 # seconds\r\n04.sizes = 16, 32 # two\r\n\r\n# c\r\nexercises = 04\r\n"
        "memory_mb = 100\r\n",
        "# header\n\n\ntimeout = 7\n   # indented comment\n04.sizes = 16,32,\nexercises = "
        "04_local_B, 04\nmemory_mb = 100 #\n",
        "timeout = 7\r\n04_local_B.sizes = 16, 32\r\nexercises = 04\r\nmemory_mb = 100",
    };
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
        check_loaded(load_text(texts[i]), texts[i]);
        int row = row_of(grader_find_exercise("04_local_B"));
        const struct grader_exercise *ex = &g_plan.rows[row];
        CHECK(g_plan.timeout == 7, "text %zu: timeout %g", i, g_plan.timeout);
        CHECK(ex->sizes[0] == 16 && ex->sizes[1] == 32 && ex->sizes[2] == 0,
              "text %zu: sizes %d %d %d", i, ex->sizes[0], ex->sizes[1], ex->sizes[2]);
        CHECK(g_plan.chosen_count == 1 && g_plan.chosen[0] == row, "text %zu: %d chosen", i,
              g_plan.chosen_count);
        CHECK(g_plan.limits.memory_bytes == 100LL << 20, "text %zu: memory %lld", i,
              g_plan.limits.memory_bytes);
    }
    /* keys are case-sensitive, and a key holds no space */
    check_error_at(load_text("Timeout = 7\n"), "Timeout", 1, "unknown key");
    check_error_at(load_text("\r\ntime out = 7\r\n"), "time out", 2, "unknown key");
}

/* ---------------------------------------------------------------- tests: errors */

struct bad_line {
    const char *line; /* the offending line */
    const char *says; /* what the error must say */
};

/* make batch ENGINE=slurm's keys: the defaults without them, each set alone, the last line wins,
 * an empty text value (the cluster's default partition), and nothing else of the plan changed */
static void test_slurm_keys(void **state) {
    (void)state;
    check_loaded(load_text("# nothing\n"), "nothing");
    check_untouched();
    const char *text = "slurm.partition = gpu-a100\nslurm.gres=gpu:a100:1 # one GPU\n"
                       "slurm.time_minutes = 5\nslurm.memory_mb=100\nslurm.cpus = 3\n"
                       "slurm.time_minutes = 10080\n";
    check_loaded(load_text(text), text);
    CHECK(!strcmp(g_plan.slurm.partition, "gpu-a100"), "partition \"%s\"", g_plan.slurm.partition);
    CHECK(!strcmp(g_plan.slurm.gres, "gpu:a100:1"), "gres \"%s\"", g_plan.slurm.gres);
    CHECK(g_plan.slurm.time_minutes == 10080, "time_minutes %d", g_plan.slurm.time_minutes);
    CHECK(g_plan.slurm.memory_mb == 100, "memory_mb %d", g_plan.slurm.memory_mb);
    CHECK(g_plan.slurm.cpus == 3, "cpus %d", g_plan.slurm.cpus);
    check_table(g_saved_table);
    check_limits(&g_saved_limits);
    text = "slurm.partition = gpu\nslurm.partition =\n";
    check_loaded(load_text(text), text);
    CHECK(!g_plan.slurm.partition[0], "an empty partition gave \"%s\"", g_plan.slurm.partition);
}

static void test_errors_name_file_and_line(void **state) {
    (void)state;
    struct rng r = rng_for("errors");
    const struct bad_line cases[] = {
        {"colour = blue", "unknown key \"colour\""},
        {"exercises_list = 04", "unknown key"},
        {"04_local_B.colour = 3", "unknown key \"04_local_B.colour\""},
        {"04.points.bonus = 3", "unknown key"},
        {"04.sizes.extra = 16", "unknown key"},
        {"07_tensor.sizes = 16", "no exercise \"07_tensor\""},
        {"4.sizes = 16", "no exercise \"4\""},
        {".sizes = 16", "no exercise \"\""},
        {"exercises = 04, 07_tensor", "no exercise \"07_tensor\""},
        {"exercises = 4", "no exercise \"4\""},
        {"exercises =", "exercises lists none"},
        {"exercises = , ,", "exercises lists none"},
        {"timeout = 12abc", "not a number"},
        {"timeout = 0.5", "not a number in range"},
        {"timeout = nan", "not a number"},
        {"timeout = inf", "not a number"},
        {"timeout =", "not a number"},
        {"perf_ratio = -0.1", "not a number"},
        {"perf_ratio = 100.5", "not a number"},
        {"cpu_seconds = many", "not a number"},
        {"memory_mb = 63", "not a number in range"},
        {"memory_mb = -5", "not a number"},
        {"memory_mb = 1.5", "not a number"},
        {"memory_mb = 0x100", "not a number"},
        {"disk_mb = 0", "not a number"},
        {"disk_mb = 1048577", "not a number"},
        {"disk_mb = 99999999999999999999999", "not a number"},
        {"processes = 15", "not a number"},
        {"open_files = 1e3", "not a number"},
        {"04.host_n = x", "wants a whole number"},
        {"04.host_n = 0", "wants a whole number"},
        {"04.perf_n = 16385", "wants a whole number"},
        {"04.memcheck_n = 513", "wants a whole number"},
        {"04.points.host = 1001", "wants a whole number"},
        {"04.points.perf = -1", "wants a whole number"},
        {"04.points.per_size = 2 points", "wants a whole number"},
        {"05.sizes = 16, 20", "\"20\" is not a valid size (multiple of 16"},
        {"11.sizes = 16", "M x N x K sizes of its own"},
        {"11_any_size.host_n = 100", "cannot be set"},
        {"09.sizes = 100", "not a valid size"},
        {"05_blocked_16x16.sizes = 8", "not a valid size"},
        {"05.host_n = 100", "not a valid size of 05_blocked_16x16"},
        {"05.memcheck_n = 24", "not a valid size"},
        {"05.perf_n = 1000", "not a valid size"},
        {"04_local_B.sizes = 16, 1040", "\"1040\" is not a valid size"},
        {"04.perf_n = 2048", "not a valid size of 04_local_B"},
        {"04.host_n = 1025", "not a valid size"},
        {"03.perf_n = 4096", "not a valid size"},
        {"01.sizes = 0", "not a valid size"},
        {"01.sizes = 16, x", "\"x\" is not a valid size"},
        {"01.sizes = 16385", "not a valid size"},
        {"01.sizes = 16, 48, 16", "16 twice"},
        {"timeout, colour = 5", "expected `key = value`"},
        {"01.sizes = 1, 2, 3, 4, 5, 6", "wants 1 to 5 sizes"},
        {"01.sizes = , ", "wants 1 to 5 sizes"},
        {"01.sizes =", "wants 1 to 5 sizes"},
        {"06.quiz.q99 = 1", "no quiz question \"q99\""},
        {"06.quiz.q1 = 1001", "wants points"},
        {"06.quiz.q1 = one", "wants points"},
        {"01.quiz.q1 = 1", "no quiz question"},
        {"timeout 20", "expected `key = value`"},
        {"exercises", "expected `key = value`"},
        {"= 5", "expected `key = value`"},
        {"  =", "expected `key = value`"},
        {"just words here", "expected `key = value`"},
        {"slurm.colour = blue", "unknown key \"slurm.colour\""},
        {"slurm = gpu", "unknown key \"slurm\""},
        {"slurm.partition = gpu; rm -rf /", "slurm.partition wants"},
        {"slurm.partition = a b", "slurm.partition wants"},
        {"slurm.gres = gpu:1 --wrap=x", "slurm.gres wants"},
        {"slurm.gres = 0123456789012345678901234567890123456789012345678901234567890123",
         "slurm.gres wants up to 63"},
        {"slurm.time_minutes = 0", "slurm.time_minutes wants a whole number from 1"},
        {"slurm.time_minutes = 10081", "slurm.time_minutes wants"},
        {"slurm.memory_mb = 1.5", "slurm.memory_mb wants"},
        {"slurm.cpus = -2", "slurm.cpus wants"},
        {"slurm.cpus = 1025", "slurm.cpus wants"},
    };
    int count = (int)(sizeof cases / sizeof cases[0]);
    for (int i = 0; i < count; i++)
        for (int repeat = 0; repeat < 3; repeat++) {
            struct text t;
            text_start(&t, &r);
            /* good lines before: the limits they set must not be applied on an error */
            for (int k = (int)rng_range(&r, 0, 4); k > 0; k--) {
                text_noise(&t);
                text_key(&t, "memory_mb", "100");
            }
            text_noise(&t);
            int line = text_line(&t, "%s%s", spaces(&r), cases[i].line);
            /* and lines after: never read */
            text_noise(&t);
            text_key(&t, "perf_ratio", "7");
            text_key(&t, "colour", "also wrong");
            check_error_at(load_text(t.buf), t.buf, line, cases[i].says);
            check_untouched(); /* a refused file changes nothing, lines before it neither */
            CHECK(g_plan.perf_ratio == g_saved_ratio, "a line after the error was applied:\n%s",
                  t.buf);
        }
    /* a size that one exercise takes and another refuses: every row, random sizes */
    for (int e = 0; e < grader_exercise_count; e++) {
        const struct grader_exercise *ex = &g_saved_table[e];
        for (int k = 0; k < 20 && !ex->rectangular; k++) {
            int bad = invalid_size(&r, ex, 8192);
            if (!bad)
                break;
            char key[64], value[64];
            snprintf(key, sizeof key, "%s.%s", ex->id, rng_range(&r, 0, 1) ? "sizes" : "host_n");
            snprintf(value, sizeof value, "%d", bad);
            struct text t;
            text_start(&t, &r);
            text_noise(&t);
            int line = text_key(&t, key, value);
            check_error_at(load_text(t.buf), t.buf, line, "not a valid size");
        }
    }
}

static void test_missing_file(void **state) {
    (void)state;
    char path[128], err[300];
    snprintf(path, sizeof path, "%s/no-such.conf", g_tmp);
    fresh_plan(&g_plan);
    int status = grader_load_config(path, &g_plan, err, sizeof err);
    CHECK(status == -1, "a missing file loaded (status %d)", status);
    CHECK(strncmp(err, path, strlen(path)) == 0 && err[strlen(path)] == ':',
          "error \"%s\" does not start with \"%s:\"", err, path);
    CHECK(strstr(err, strerror(ENOENT)) != NULL, "error \"%s\" does not say \"%s\"", err,
          strerror(ENOENT));
    CHECK(g_plan.chosen_count == 0 && g_plan.timeout == TIMEOUT0,
          "a missing file changed the plan");
    /* a folder is no config either */
    status = grader_load_config(g_tmp, &g_plan, err, sizeof err);
    CHECK(status == -1, "a folder loaded (status %d)", status);
    CHECK(strncmp(err, g_tmp, strlen(g_tmp)) == 0, "error \"%s\" does not name %s", err, g_tmp);
    check_untouched();
}

/* ---------------------------------------------------------------- tests: random files */

/* After any successful load, every row of the plan still makes sense to the grader. */
static void check_table_sane(const struct grader_plan *plan, const char *text) {
    for (int e = 0; e < grader_exercise_count; e++) {
        const struct grader_exercise *ex = &plan->rows[e];
        int count = 0;
        if (ex->rectangular) { /* M x N x K sizes of its own, which no config changes */
            CHECK(grader_size_count(ex) >= 1, "%s: no sizes after:\n%s", ex->id, text);
            continue;
        }
        while (count < GRADER_MAX_SIZES && ex->sizes[count]) {
            CHECK(grader_size_valid(ex, ex->sizes[count]), "%s: size %d invalid after:\n%s", ex->id,
                  ex->sizes[count], text);
            count++;
        }
        CHECK(count >= 1 && count < GRADER_MAX_SIZES, "%s: %d sizes after:\n%s", ex->id, count,
              text);
        if (ex->kernel)
            CHECK(grader_size_valid(ex, ex->host_n) &&
                      grader_size_valid_at(ex, 1, ex->memcheck_n) &&
                      grader_size_valid(ex, ex->perf_n),
                  "%s: sizes %d %d %d invalid after:\n%s", ex->id, ex->host_n, ex->memcheck_n,
                  ex->perf_n, text);
        CHECK(ex->points.per_size >= 0 && ex->points.host >= 0 && ex->points.memcheck >= 0 &&
                  ex->points.perf >= 0 && ex->points.technique >= 0 && ex->cuda_per_size >= 0,
              "%s: negative points after:\n%s", ex->id, text);
    }
    const struct grader_limits *l = &plan->limits;
    CHECK(l->memory_bytes >= 64LL << 20 && l->disk_bytes >= 1LL << 20 && l->processes >= 16 &&
              l->open_files >= 16 && l->cpu_seconds >= 1,
          "limits out of range after:\n%s", text);
    CHECK(isfinite(plan->perf_ratio) && plan->perf_ratio >= 0, "perf_ratio %g after:\n%s",
          plan->perf_ratio, text);
}

/* Load random bytes: either fine, or an error "PATH:LINE: ..." with 1 <= LINE <= lines. Returns
 * the status. */
static int load_random(const char *data, size_t length, size_t err_size, const char *kind) {
    int lines = 1;
    for (size_t i = 0; i < length; i++)
        lines += data[i] == '\n';
    snprintf(g_path, sizeof g_path, "%s/random.conf", g_tmp);
    FILE *f = fopen(g_path, "wb");
    CHECK(f && fwrite(data, 1, length, f) == length && fclose(f) == 0, "cannot write %s", g_path);
    struct grader_plan plan;
    fresh_plan(&plan);
    char err[700];
    memset(err, 'Z', sizeof err);
    int status = grader_load_config(g_path, &plan, err, err_size);
    CHECK(status == 0 || status == -1, "%s file: status %d", kind, status);
    if (status == 0) {
        check_table_sane(&plan, kind);
        CHECK(plan.chosen_count >= 0 && plan.chosen_count <= grader_exercise_count,
              "%s file: %d chosen", kind, plan.chosen_count);
        CHECK(plan.timeout >= 1 && plan.timeout <= 86400, "%s file: timeout %g", kind,
              plan.timeout);
        return status;
    }
    CHECK(memchr(err, '\0', err_size) != NULL, "%s file: error not terminated in %zu bytes", kind,
          err_size);
    CHECK(err[err_size] == 'Z', "%s file: error written past its %zu bytes", kind, err_size);
    check_limits_of(&plan, &g_saved_limits);
    size_t plen = strlen(g_path);
    if (err_size <= plen + 4)
        return status; /* too short to hold the line number */
    CHECK(strncmp(err, g_path, plen) == 0 && err[plen] == ':', "%s file: error \"%s\"", kind, err);
    char *end;
    long line = strtol(err + plen + 1, &end, 10);
    if (*end == '\0' && (size_t)(end - err) + 1 == err_size)
        return status; /* cut inside the number */
    CHECK(end > err + plen + 1 && *end == ':', "%s file: no line number in \"%s\"", kind, err);
    CHECK(line >= 1 && line <= lines, "%s file: line %ld of %d in \"%s\"", kind, line, lines, err);
    return status;
}

static void test_random_files(void **state) {
    (void)state;
    struct rng r = rng_for("random");
    static const char *words[] = {
        "exercises",
        "timeout",
        "perf_ratio",
        "cpu_seconds",
        "processes",
        "open_files",
        "memory_mb",
        "disk_mb",
        "04",
        "05_blocked_16x16",
        "00_vadd",
        "06",
        "01_per_element",
        ".sizes",
        ".host_n",
        ".memcheck_n",
        ".perf_n",
        ".points.host",
        ".points.per_size",
        ".points.cuda_per_size",
        ".quiz.q1",
        ".quiz.",
        ".",
        "=",
        "=",
        "=",
        ",",
        ",",
        "#",
        " ",
        " ",
        "\t",
        "\r",
        "16",
        "100",
        "1024",
        "0",
        "-1",
        "1e308",
        "nan",
        "99999999999999999999",
        "0x10",
        "junk",
        "é",
        "\\",
        "\"",
        "'",
        "==",
        "%s%n",
        "",
    };
    int nwords = (int)(sizeof words / sizeof words[0]);
    char *data = malloc(65536);
    CHECK(data != NULL, "out of memory");
    int loaded = 0, refused = 0;
    for (int i = 0; i < 1500; i++) {
        size_t len = 0;
        int kind = (int)(i % 3);
        if (kind == 0) { /* printable: config-like words and noise */
            for (int line = (int)rng_range(&r, 0, 20); line > 0; line--) {
                for (int w = (int)rng_range(&r, 0, 7); w > 0 && len < 60000; w--) {
                    const char *word = words[rng_range(&r, 0, nwords - 1)];
                    size_t wl = strlen(word);
                    memcpy(data + len, word, wl);
                    len += wl;
                }
                data[len++] = '\n';
            }
        } else if (kind == 1) { /* binary bytes, NULs included, some line ends */
            len = (size_t)rng_range(&r, 0, rng_range(&r, 0, 1) ? 200 : 20000);
            for (size_t k = 0; k < len; k++) {
                uint64_t x = rng_next(&r);
                data[k] = (x & 0x700) == 0 ? '\n' : (char)(x & 0xff);
            }
        } else { /* a valid config, mutated: bytes changed, cut, doubled */
            static const char *base =
                "# grader.conf\nexercises = 02_per_row, 04_local_B\ntimeout = 20\n"
                "memory_mb = 2048\ndisk_mb = 100\nprocesses = 64\nopen_files = 256\n"
                "cpu_seconds = 30\nperf_ratio = 0.4\n04_local_B.sizes = 16, 100, 200\n"
                "04_local_B.points.host = 3\n05.perf_n = 256\n06.quiz.q8 = 3\n";
            len = strlen(base);
            memcpy(data, base, len);
            for (int m = (int)rng_range(&r, 1, 6); m > 0; m--) {
                size_t at = (size_t)rng_range(&r, 0, (long)len - 1);
                switch (rng_range(&r, 0, 3)) {
                case 0:
                    data[at] = (char)rng_next(&r);
                    break;
                case 1:
                    data[at] = "=,#.\n\r \t0"[rng_range(&r, 0, 9)];
                    break;
                case 2:
                    len = at; /* cut */
                    break;
                default:
                    if (len + 40 < 65536) { /* a stretch repeated */
                        size_t n = (size_t)rng_range(&r, 1, 40);
                        if (at + n > len)
                            n = len - at;
                        memmove(data + at + n, data + at, len - at);
                        len += n;
                    }
                    break;
                }
                if (len == 0)
                    break;
            }
        }
        static const char *kinds[] = {"printable", "binary", "mutated"};
        size_t err_size = rng_range(&r, 0, 4) == 0 ? (size_t)rng_range(&r, 1, 80) : 600;
        int status = load_random(data, len, err_size, kinds[kind]);
        /* the same text again with a roomy error: it names a line */
        if (err_size != 600)
            status = load_random(data, len, 600, kinds[kind]);
        if (status == 0)
            loaded++;
        else
            refused++;
    }
    free(data);
    print_message("random files: %d loaded, %d refused with a line number\n", loaded, refused);
    CHECK(loaded > 0 && refused > 0, "%d loaded, %d refused: the generator is off", loaded,
          refused);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_empty_and_comments_change_nothing),
        cmocka_unit_test(test_sizes),
        cmocka_unit_test(test_whole_number_keys),
        cmocka_unit_test(test_quiz_points),
        cmocka_unit_test(test_limits_timeout_ratio),
        cmocka_unit_test(test_exercises),
        cmocka_unit_test(test_long_exercise_lists),
        cmocka_unit_test(test_spacing_and_line_ends),
        cmocka_unit_test(test_errors_name_file_and_line),
        cmocka_unit_test(test_missing_file),
        cmocka_unit_test(test_random_files),
        cmocka_unit_test(test_vendor_ratios),
        cmocka_unit_test(test_slurm_keys),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
