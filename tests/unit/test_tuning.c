/* test_tuning.c - unit tests (cmocka) of make tune's candidates and tuning files
 * (exercise/tuning.h): the table's candidate lists (names the rows have, the defaults among them);
 * the grid's points, indices and neighbours; the filter of values a launch cannot take (C's tile
 * against a work-item's share, N against multiple_of, the device's work-group) against a model
 * of the rules on random values and devices; device names made file names (fixed cases, random
 * bytes); a tuning file's lines parsed (random valid entries with random spacing and comments,
 * each kind of malformed line, random bytes that never crash); the lookup (the first entry of
 * each side, every bad line said with FILE:LINE, a missing file); and the writer (random files of
 * comments, other entries, bad lines and a missing last line end: every other line kept, the
 * entry replaced in place or added, no temporary file left behind).
 *
 * Random inputs come from a seed chosen at run time and printed; TEST_TUNING_SEED=<seed>
 * repeats a run.
 */
#define _GNU_SOURCE /* mkdtemp */
#include "grader.h"
#include "exercise/tuning.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "testkit.h"

static char g_tmp[64];
static int g_file_no;

static int group_setup(void **state) {
    (void)state;
    return testkit_start("test_tuning", "TEST_TUNING_SEED", g_tmp, sizeof g_tmp);
}

static int group_teardown(void **state) {
    (void)state;
    grader_remove_tree(g_tmp);
    return 0;
}

/* The rows that have candidates (07 on). */
static int tuned_rows(const struct grader_exercise **rows) {
    int count = 0;
    for (int i = 0; i < grader_exercise_count; i++)
        if (grader_exercises[i].candidates[0].name)
            rows[count++] = &grader_exercises[i];
    return count;
}

static int list_count(const struct grader_candidates *c) {
    int count = 0;
    while (count < GRADER_MAX_CANDIDATES && c->values[count] > 0)
        count++;
    return count;
}

static int value_in(const struct grader_values *v, const char *name) {
    for (int t = 0; v->v[t].name; t++)
        if (!strcmp(v->v[t].name, name))
            return v->v[t].value;
    return -1;
}

/* ---------------------------------------------------------------- the table's candidates */

static void test_table_candidates(void **state) {
    (void)state;
    const struct grader_exercise *rows[GRADER_MAX_EXERCISES];
    int count = tuned_rows(rows);
    CHECK(count >= 5, "only %d rows with candidates (07 to 11 have them)", count);
    for (int r = 0; r < count; r++) {
        const struct grader_exercise *ex = rows[r];
        struct grader_values defaults = grader_values_default(ex);
        for (int c = 0; ex->candidates[c].name; c++) {
            CHECK(value_in(&defaults, ex->candidates[c].name) > 0,
                  "%s: candidates for %s, which is none of its tuning values", ex->id,
                  ex->candidates[c].name);
            CHECK(list_count(&ex->candidates[c]) >= 2, "%s: %s has fewer than 2 candidates", ex->id,
                  ex->candidates[c].name);
        }
        CHECK(grader_grid_index(ex, &defaults) >= 0, "%s: its defaults are not on its grid",
              ex->id);
        char why[200];
        CHECK(grader_values_fit(ex, &defaults, ex->perf_n, 0, why, sizeof why),
              "%s: its defaults do not fit its timed size: %s", ex->id, why);
    }
}

/* ---------------------------------------------------------------- the grid */

static void test_grid(void **state) {
    (void)state;
    const struct grader_exercise *rows[GRADER_MAX_EXERCISES];
    int count = tuned_rows(rows);
    for (int r = 0; r < count; r++) {
        const struct grader_exercise *ex = rows[r];
        long size = 1;
        int lists = 0;
        for (; ex->candidates[lists].name; lists++)
            size *= list_count(&ex->candidates[lists]);
        CHECK(grader_grid_size(ex) == size, "%s: grid of %ld, expected %ld", ex->id,
              grader_grid_size(ex), size);
        char *seen = calloc((size_t)size, 1);
        CHECK(seen != NULL, "out of memory");
        for (long i = 0; i < size; i++) {
            struct grader_values v = grader_grid_point(ex, i);
            long back = grader_grid_index(ex, &v);
            CHECK(back == i, "%s: point %ld comes back as %ld", ex->id, i, back);
            for (int c = 0; c < lists; c++) { /* each value one of its list's */
                int value = value_in(&v, ex->candidates[c].name), found = 0;
                for (int k = 0; k < list_count(&ex->candidates[c]); k++)
                    found |= ex->candidates[c].values[k] == value;
                CHECK(found, "%s: point %ld has %s = %d, no candidate", ex->id, i,
                      ex->candidates[c].name, value);
            }
            seen[i] = 1;
            /* a neighbour differs in exactly its list's value, by one place in the list */
            for (int c = 0; c < lists; c++)
                for (int step = -1; step <= 1; step += 2) {
                    long n = grader_grid_neighbour(ex, i, c, step);
                    if (n < 0)
                        continue;
                    struct grader_values w = grader_grid_point(ex, n);
                    for (int d = 0; d < lists; d++) {
                        const char *name = ex->candidates[d].name;
                        int a = value_in(&v, name), b = value_in(&w, name), ka = -1, kb = -1;
                        for (int k = 0; k < list_count(&ex->candidates[d]); k++) {
                            ka = ex->candidates[d].values[k] == a ? k : ka;
                            kb = ex->candidates[d].values[k] == b ? k : kb;
                        }
                        CHECK(d == c ? kb - ka == step : a == b,
                              "%s: neighbour %ld of %ld along %s (step %d) has %s %d, not %d",
                              ex->id, n, i, ex->candidates[c].name, step, name, b, a);
                    }
                }
        }
        for (long i = 0; i < size; i++)
            CHECK(seen[i], "%s: point %ld never reached", ex->id, i);
        free(seen);
        CHECK(grader_grid_neighbour(ex, -1, 0, 1) == -1 &&
                  grader_grid_neighbour(ex, size, 0, -1) == -1 &&
                  grader_grid_neighbour(ex, 0, lists, 1) == -1,
              "%s: a neighbour off the grid", ex->id);
    }
}

/* ---------------------------------------------------------------- the filter */

/* The rules, said once more: the model the filter is held to. */
static int model_fits(const struct grader_exercise *ex, const struct grader_values *v, int n,
                      size_t max_group) {
    long group = 1;
    for (int d = 0; d < 2; d++) {
        int tile = value_in(v, ex->c_tile[d]);
        int share = ex->per_item[d] ? value_in(v, ex->per_item[d]) : 1;
        if (tile % share)
            return 0;
        group *= tile / share;
    }
    for (int i = 0; i < 4 && ex->multiple_of[i]; i++)
        if (n % value_in(v, ex->multiple_of[i]))
            return 0;
    return max_group == 0 || (size_t)group <= max_group;
}

static void test_filter(void **state) {
    (void)state;
    struct rng rng = rng_for("filter");
    const struct grader_exercise *rows[GRADER_MAX_EXERCISES];
    int count = tuned_rows(rows), fits = 0, not = 0;
    static const size_t groups[] = {0, 64, 256, 1024, 4096};
    for (int round = 0; round < 20000; round++) {
        const struct grader_exercise *ex = rows[rng_range(&rng, 0, count - 1)];
        struct grader_values v = grader_values_default(ex);
        for (int t = 0; v.v[t].name; t++) /* any values, on the grid or not */
            v.v[t].value =
                rng_range(&rng, 0, 3) ? 1 << rng_range(&rng, 0, 8) : (int)rng_range(&rng, 1, 300);
        int n = rng_range(&rng, 0, 1) ? 64 * (int)rng_range(&rng, 1, 64)
                                      : (int)rng_range(&rng, 1, 5000);
        size_t max_group = groups[rng_range(&rng, 0, 4)];
        char why[200] = "unset", text[200];
        int got = grader_values_fit(ex, &v, n, max_group, why, sizeof why);
        int want = model_fits(ex, &v, n, max_group);
        grader_values_text(&v, text, sizeof text);
        CHECK(got == want, "%s %s at N = %d on a device of %zu: %d, expected %d (%s)", ex->id, text,
              n, max_group, got, want, why);
        CHECK(got ? why[0] == '\0' : why[0] != '\0', "%s %s: the reason \"%s\" with verdict %d",
              ex->id, text, why, got);
        fits += got, not += !got;
    }
    CHECK(fits > 1000 && not > 1000, "%d fit, %d not: the generator is off", fits, not );
    /* the reasons name what failed */
    const struct grader_exercise *ex = grader_find_exercise("09");
    struct grader_values v = grader_values_default(ex);
    char why[200];
    v.v[0].value = 96, v.v[3].value = 64; /* TSM 96, WPTM 64 */
    CHECK(!grader_values_fit(ex, &v, 1024, 0, why, sizeof why) && strstr(why, "TSM = 96") &&
              strstr(why, "WPTM = 64"),
          "reason \"%s\"", why);
    v = grader_values_default(ex);
    CHECK(!grader_values_fit(ex, &v, 1000, 0, why, sizeof why) && strstr(why, "N = 1000"),
          "reason \"%s\"", why);
    v.v[3].value = v.v[4].value = 2; /* 64 x 64 work-items */
    CHECK(!grader_values_fit(ex, &v, 1024, 1024, why, sizeof why) && strstr(why, "4096") &&
              strstr(why, "1024"),
          "reason \"%s\"", why);
}

/* ---------------------------------------------------------------- device names */

static void check_file_name(const char *device, const char *name) {
    size_t length = strlen(name);
    CHECK(length >= 1 && length <= 100, "\"%s\" -> \"%s\": length %zu", device, name, length);
    for (size_t i = 0; i < length; i++) {
        char c = name[i];
        int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                 c == '.' || c == '-' || c == '_';
        CHECK(ok, "\"%s\" -> \"%s\": byte %zu is 0x%02x", device, name, i, (unsigned char)c);
        CHECK(!(c == '_' && name[i + 1] == '_'), "\"%s\" -> \"%s\": a run of '_'", device, name);
    }
    CHECK(name[0] != '.' && name[0] != '_' && name[length - 1] != '_' && name[length - 1] != '.',
          "\"%s\" -> \"%s\": an end that hides or trails", device, name);
}

static void test_device_names(void **state) {
    (void)state;
    static const struct {
        const char *device, *want;
    } cases[] = {
        {"pthread-AMD EPYC 7B13 64-Core Processor", "pthread-AMD_EPYC_7B13_64-Core_Processor"},
        {"NVIDIA H100 80GB HBM3", "NVIDIA_H100_80GB_HBM3"},
        {"../../etc/passwd", "etc_passwd"},
        {"", "device"},
        {"  / ..  ", "device"},
        {"cpu  (x86_64)\t", "cpu_x86_64"},
        {"a\xc3\xa9z", "a_z"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char name[128];
        grader_tuning_device_file(cases[i].device, name, sizeof name);
        CHECK(!strcmp(name, cases[i].want), "\"%s\" -> \"%s\", expected \"%s\"", cases[i].device,
              name, cases[i].want);
    }
    struct rng rng = rng_for("device names");
    for (int round = 0; round < 5000; round++) {
        char device[300], name[128];
        int length = (int)rng_range(&rng, 0, 299);
        for (int i = 0; i < length; i++)
            device[i] = rng_range(&rng, 0, 1) ? (char)rng_range(&rng, 1, 255)
                                              : "aZ9 ._-/"[rng_range(&rng, 0, 7)];
        device[length] = '\0';
        grader_tuning_device_file(device, name, sizeof name);
        check_file_name(device, name);
        char again[128]; /* a file name is its own file name */
        grader_tuning_device_file(name, again, sizeof again);
        CHECK(!strcmp(name, again) || !strcmp(name, "device"), "\"%s\" -> \"%s\" -> \"%s\"", device,
              name, again);
    }
    char path[64];
    CHECK(grader_tuning_path("/r/t", "NVIDIA H100", path, sizeof path) == 0 &&
              !strcmp(path, "/r/t/NVIDIA_H100.conf"),
          "path \"%s\"", path);
    CHECK(grader_tuning_path("/a/very/long/folder/name/indeed", "NVIDIA H100 80GB HBM3", path,
                             16) == -1,
          "a path too long for its buffer was made");
}

/* ---------------------------------------------------------------- lines */

/* A random valid entry of ex: random spacing, a random subset of names in a random order, a
 * comment or none; *values gets what it says (the defaults elsewhere). */
static void random_entry(struct rng *rng, const struct grader_exercise *ex, int side,
                         struct grader_values *values, char *line, size_t size) {
    static const char *gaps[] = {" ", "  ", "\t", " \t "};
    long point = rng_range(rng, 0, grader_grid_size(ex) - 1);
    char why[100];
    do /* values a launch takes: the parser refuses the others */
        *values = grader_grid_point(ex, point = (point + 1) % grader_grid_size(ex));
    while (!grader_values_fit(ex, values, 0, 0, why, sizeof why));
    struct grader_values defaults = grader_values_default(ex);
    int order[CLU_MAX_DEFINES], names = 0;
    while (values->v[names].name)
        order[names] = names, names++;
    for (int i = names - 1; i > 0; i--) {
        int j = (int)rng_range(rng, 0, i), swap = order[i];
        order[i] = order[j], order[j] = swap;
    }
    size_t used = (size_t)snprintf(
        line, size, "%s%s%s%s", rng_range(rng, 0, 3) ? "" : gaps[rng_range(rng, 0, 3)], ex->id,
        gaps[rng_range(rng, 0, 3)], grader_tuning_side_name((enum grader_tuning_side)side));
    int written = 0;
    for (int i = 0; i < names; i++) {
        int t = order[i];
        if (written && rng_range(rng, 0, 3) == 0) { /* left out: its default stands */
            values->v[t].value = defaults.v[t].value;
            continue;
        }
        used += (size_t)snprintf(line + used, size - used, "%s%s=%d", gaps[rng_range(rng, 0, 3)],
                                 values->v[t].name, values->v[t].value);
        written++;
    }
    if (!grader_values_fit(ex, values, 0, 0, why, sizeof why)) { /* a default broke the fit: all */
        used = (size_t)snprintf(line, size, "%s %s", ex->id,
                                grader_tuning_side_name((enum grader_tuning_side)side));
        *values = grader_grid_point(ex, point);
        for (int t = 0; t < names; t++)
            used += (size_t)snprintf(line + used, size - used, " %s=%d", values->v[t].name,
                                     values->v[t].value);
    }
    if (rng_range(rng, 0, 1))
        snprintf(line + used, size - used, "%s# %d GFLOP/s, N = 512%s", gaps[rng_range(rng, 0, 3)],
                 (int)rng_range(rng, 1, 999), rng_range(rng, 0, 1) ? "\r\n" : "\n");
    else
        snprintf(line + used, size - used, "%s", rng_range(rng, 0, 1) ? "\n" : "");
}

static void test_parse_valid(void **state) {
    (void)state;
    struct rng rng = rng_for("parse valid");
    const struct grader_exercise *rows[GRADER_MAX_EXERCISES];
    int count = tuned_rows(rows);
    for (int round = 0; round < 3000; round++) {
        const struct grader_exercise *ex = rows[rng_range(&rng, 0, count - 1)], *got_ex = NULL;
        int side = (int)rng_range(&rng, 0, 1);
        struct grader_values want, got;
        char line[600], why[300] = "", comment[100];
        enum grader_tuning_side got_side;
        random_entry(&rng, ex, side, &want, line, sizeof line);
        int status = grader_tuning_parse_line(line, &got_ex, &got_side, &got, comment,
                                              sizeof comment, why, sizeof why);
        CHECK(status == 1, "\"%s\": status %d (%s)", line, status, why);
        CHECK(got_ex == ex && (int)got_side == side, "\"%s\": row %s side %d", line,
              got_ex ? got_ex->id : "?", (int)got_side);
        char a[200], b[200];
        grader_values_text(&want, a, sizeof a);
        grader_values_text(&got, b, sizeof b);
        CHECK(grader_values_equal(&want, &got), "\"%s\": %s, expected %s", line, b, a);
        CHECK(!strchr(line, '#') || (strstr(comment, "GFLOP/s") && !strchr(comment, '\n')),
              "\"%s\": comment \"%s\"", line, comment);
    }
    static const char *blank[] = {"", "\n", "   \t \r\n", "# a comment",
                                  "   # 09_register_blocking "
                                  "reference TSM=64"};
    for (size_t i = 0; i < sizeof blank / sizeof blank[0]; i++) {
        const struct grader_exercise *ex = NULL;
        enum grader_tuning_side side;
        struct grader_values v;
        char why[100];
        CHECK(grader_tuning_parse_line(blank[i], &ex, &side, &v, NULL, 0, why, sizeof why) == 0,
              "\"%s\" is not blank", blank[i]);
    }
}

static void test_parse_malformed(void **state) {
    (void)state;
    static const struct {
        const char *line, *says;
    } bad[] = {
        {"09 reference TSM=64", "no exercise"},
        {"99_nothing reference TSM=64", "no exercise"},
        {"05_blocked_16x16 reference BLOCK=8", "no tuning values"},
        {"09_register_blocking", "reference or submission"},
        {"09_register_blocking best TSM=64", "reference or submission"},
        {"09_register_blocking Reference TSM=64", "reference or submission"},
        {"09_register_blocking reference", "no NAME=VALUE"},
        {"09_register_blocking reference # TSM=64", "no NAME=VALUE"},
        {"09_register_blocking reference TS=64", "no tuning value TS"},
        {"07_more_work_per_item submission TSM=64", "no tuning value TSM"},
        {"09_register_blocking reference TSM=64 TSM=32", "given twice"},
        {"09_register_blocking reference TSM", "NAME=VALUE"},
        {"09_register_blocking reference =64", "NAME=VALUE"},
        {"09_register_blocking reference TSM=0", "whole number"},
        {"09_register_blocking reference TSM=-64", "whole number"},
        {"09_register_blocking reference TSM=64k", "whole number"},
        {"09_register_blocking reference TSM=", "whole number"},
        {"09_register_blocking reference TSM=99999999999999999999", "whole number"},
        {"09_register_blocking reference TSM=65537", "whole number"},
        {"09_register_blocking reference TSM=96 WPTM=64", "cannot take"},
        {"07_more_work_per_item reference TS=16 WPT=32", "cannot take"},
        {"09_register_blocking reference TSM=64 TSN=64 TSK=16 WPTM=8 WPTN=8 WPTN=8 TSM=8 TSN=8 "
         "TSK=8 WPTM=8 TSK=8 TSK=8",
         "more words"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const struct grader_exercise *ex = NULL;
        enum grader_tuning_side side;
        struct grader_values v;
        char why[300] = "";
        int status =
            grader_tuning_parse_line(bad[i].line, &ex, &side, &v, NULL, 0, why, sizeof why);
        CHECK(status == -1, "\"%s\" parsed (status %d)", bad[i].line, status);
        CHECK(strstr(why, bad[i].says) != NULL, "\"%s\": \"%s\" does not say \"%s\"", bad[i].line,
              why, bad[i].says);
    }
    /* random bytes: never a crash, a verdict each */
    struct rng rng = rng_for("parse random");
    int verdicts[3] = {0, 0, 0};
    for (int round = 0; round < 20000; round++) {
        char line[1200];
        int length = (int)rng_range(&rng, 0, sizeof line - 1), kind = (int)rng_range(&rng, 0, 2);
        if (kind == 0) { /* a valid entry, mutated */
            struct grader_values v;
            const struct grader_exercise *rows[GRADER_MAX_EXERCISES];
            int count = tuned_rows(rows);
            random_entry(&rng, rows[rng_range(&rng, 0, count - 1)], (int)rng_range(&rng, 0, 1), &v,
                         line, sizeof line);
            length = (int)strlen(line);
            for (int m = (int)rng_range(&rng, 0, 3); m > 0 && length > 0; m--)
                line[rng_range(&rng, 0, length - 1)] = (char)rng_range(&rng, 1, 255);
        } else {
            static const char near[] = "09_TSMNWPK= \t#refsubmion1234568"; /* words' bytes */
            for (int i = 0; i < length; i++)
                line[i] = kind == 1 ? (char)rng_range(&rng, 1, 255)
                                    : near[rng_range(&rng, 0, (long)sizeof near - 2)];
            line[length] = '\0';
        }
        const struct grader_exercise *ex = NULL;
        enum grader_tuning_side side;
        struct grader_values v;
        char why[300] = "", comment[50];
        int status = grader_tuning_parse_line(line, &ex, &side, &v, comment, sizeof comment, why,
                                              sizeof why);
        CHECK(status >= -1 && status <= 1, "status %d", status);
        CHECK(status != -1 || why[0], "refused without a reason: \"%s\"", line);
        CHECK(status != 1 || (ex && ex->tuning[0].name), "an entry without its row: \"%s\"", line);
        verdicts[status + 1]++;
    }
    print_message("random lines: %d refused, %d blank, %d entries\n", verdicts[0], verdicts[1],
                  verdicts[2]);
    CHECK(verdicts[0] > 0 && verdicts[2] > 0, "the generator is off");
}

/* ---------------------------------------------------------------- files */

static void write_file(const char *path, const char *text) {
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL, "cannot write %s: %s", path, strerror(errno));
    fputs(text, f);
    CHECK(fclose(f) == 0, "cannot close %s", path);
}

static char *read_file(const char *path) {
    size_t length;
    char *text = clu_read_file(path, &length);
    CHECK(text != NULL, "cannot read %s", path);
    return text;
}

static void test_lookup(void **state) {
    (void)state;
    char path[128], warnings[2000];
    snprintf(path, sizeof path, "%s/lookup-%d.conf", g_tmp, ++g_file_no);
    const struct grader_exercise *ex = grader_find_exercise("09");
    struct grader_tuned found[2];
    CHECK(grader_tuning_lookup(path, ex, found, warnings, sizeof warnings) == 0 && !found[0].line &&
              !found[1].line && !warnings[0],
          "a missing file: lines %d %d, warnings \"%s\"", found[0].line, found[1].line, warnings);
    write_file(path, "# tuning\n"
                     "09_register_blocking reference TSM=64 TSN=32 TSK=16  # 7 GFLOP/s\n"
                     "09_register_blocking submission TSM=256 TSN=64 # bad: 256 is no tile? fine\n"
                     "09_register_blocking submission TQ=3\n"
                     "07_more_work_per_item reference TS=3 WPT=2\n"
                     "garbage here\n"
                     "09_register_blocking reference TSM=32\n"
                     "\n"
                     "09_register_blocking submission WPTN=4\n");
    CHECK(grader_tuning_lookup(path, ex, found, warnings, sizeof warnings) == 0, "lookup failed");
    CHECK(found[TUNING_REFERENCE].line == 2 && value_in(&found[0].values, "TSM") == 64 &&
              value_in(&found[0].values, "TSN") == 32 && value_in(&found[0].values, "TSK") == 16 &&
              value_in(&found[0].values, "WPTM") == ex->tuning[3].value &&
              !strcmp(found[0].comment, "7 GFLOP/s"),
          "reference: line %d, comment \"%s\"", found[0].line, found[0].comment);
    CHECK(found[TUNING_SUBMISSION].line == 3 && value_in(&found[1].values, "TSM") == 256,
          "submission: line %d", found[1].line);
    char want[200];
    for (int line = 4; line <= 9; line++) {
        snprintf(want, sizeof want, "%s:%d: ", path, line);
        int said = strstr(warnings, want) != NULL;
        /* line 5 is 07's (its own lookup says it), 8 blank */
        CHECK(said == (line != 5 && line != 8), "line %d %s said:\n%s", line,
              said ? "is" : "is not", warnings);
    }
    CHECK(strstr(warnings, "line 2 is used") && strstr(warnings, "the line is ignored"),
          "warnings:\n%s", warnings);
    /* 07's lookup says its own bad line and the one of no exercise */
    CHECK(grader_tuning_lookup(path, grader_find_exercise("07"), found, warnings,
                               sizeof warnings) == 0 &&
              !found[0].line && !found[1].line,
          "07 found a line");
    snprintf(want, sizeof want, "%s:5: ", path);
    CHECK(strstr(warnings, want) != NULL, "07's bad line not said:\n%s", warnings);
    /* a small warnings buffer: cut, never overrun (ASan watches) */
    char small[24];
    grader_tuning_lookup(path, ex, found, small, sizeof small);
    CHECK(strlen(small) < sizeof small, "overrun");
    unlink(path);
}

/* After the line text begins with (its end if it has no line end). */
static char *skip_line(char *text) {
    char *end = strchr(text, '\n');
    return end ? end + 1 : text + strlen(text);
}

/* The names in dir that begin with prefix. */
static int files_like(const char *dir, const char *prefix) {
    DIR *d = opendir(dir);
    int count = 0;
    for (struct dirent *e; d && (e = readdir(d));)
        count += strncmp(e->d_name, prefix, strlen(prefix)) == 0;
    if (d)
        closedir(d);
    return count;
}

static void test_write_keeps_other_lines(void **state) {
    (void)state;
    struct rng rng = rng_for("write");
    const struct grader_exercise *rows[GRADER_MAX_EXERCISES];
    int count = tuned_rows(rows);
    char dir[128];
    snprintf(dir, sizeof dir, "%s/write/sub", g_tmp); /* made by the writer */
    for (int round = 0; round < 300; round++) {
        char path[200];
        snprintf(path, sizeof path, "%s/dev-%d.conf", dir, round);
        /* an old file of random lines, or none */
        int lines = (int)rng_range(&rng, 0, 12), has_target = 0, target_line = 0;
        const struct grader_exercise *ex = rows[rng_range(&rng, 0, count - 1)];
        int side = (int)rng_range(&rng, 0, 1);
        char *old = calloc(1, 12 * 700 + 1);
        CHECK(old != NULL, "out of memory");
        for (int l = 0; l < lines; l++) {
            char line[700];
            struct grader_values v;
            int kind = (int)rng_range(&rng, 0, 4);
            const struct grader_exercise *row = rows[rng_range(&rng, 0, count - 1)];
            int row_side = (int)rng_range(&rng, 0, 1);
            if (kind == 0)
                snprintf(line, sizeof line, "# comment %d\n", l);
            else if (kind == 1)
                snprintf(line, sizeof line, "%s %s TSM=banana\n", row->id,
                         grader_tuning_side_name((enum grader_tuning_side)row_side));
            else if (kind == 2)
                snprintf(line, sizeof line, "\n");
            else
                random_entry(&rng, row, row_side, &v, line, sizeof line);
            if (!strchr(line, '\n'))
                strcat(line, "\n");
            if (row == ex && row_side == side && kind != 0 && kind != 2 && !has_target)
                has_target = 1, target_line = l + 1;
            strcat(old, line);
        }
        int no_end = lines > 0 && rng_range(&rng, 0, 1);
        if (no_end)
            old[strlen(old) - 1] = '\0';
        if (lines) {
            grader_make_dirs(dir);
            write_file(path, old);
        }
        struct grader_values values =
            grader_grid_point(ex, rng_range(&rng, 0, grader_grid_size(ex) - 1));
        char why[300] = "";
        CHECK(grader_tuning_write(path, ex->id, (enum grader_tuning_side)side, &values,
                                  "9.99 GFLOP/s at N = 512", why, sizeof why) == 0,
              "write failed: %s", why);
        char *now_text = read_file(path);
        /* line by line: the old ones but the target's, which is now the entry */
        char *o = old, *n = now_text;
        if (!lines) { /* a new file: a comment line first */
            CHECK(n[0] == '#' && strchr(n, '\n'), "a new file begins \"%.40s\"", n);
            n = skip_line(n);
        }
        for (int l = 1; *o; l++) {
            char *oe = strchr(o, '\n'), *ne = strchr(n, '\n');
            size_t ol = oe ? (size_t)(oe - o) : strlen(o);
            CHECK(ne != NULL, "round %d: the new file ends early at line %d", round, l);
            size_t nl = (size_t)(ne - n);
            if (l == target_line) {
                char head[200];
                snprintf(head, sizeof head, "%s %s ", ex->id,
                         grader_tuning_side_name((enum grader_tuning_side)side));
                CHECK(strncmp(n, head, strlen(head)) == 0, "round %d line %d: \"%.*s\"", round, l,
                      (int)nl, n);
            } else {
                CHECK(ol == nl && strncmp(o, n, ol) == 0,
                      "round %d line %d changed: \"%.*s\" -> \"%.*s\"", round, l, (int)ol, o,
                      (int)nl, n);
            }
            o += ol + (oe ? 1 : 0);
            n = ne + 1;
        }
        if (!has_target) { /* added at the end */
            char head[200];
            snprintf(head, sizeof head, "%s %s ", ex->id,
                     grader_tuning_side_name((enum grader_tuning_side)side));
            CHECK(strncmp(n, head, strlen(head)) == 0 && strchr(n, '\n'), "round %d: added \"%s\"",
                  round, n);
            n = skip_line(n);
        }
        CHECK(*n == '\0', "round %d: more after the old lines: \"%s\"", round, n);
        /* and it reads back */
        struct grader_tuned found[2];
        grader_tuning_lookup(path, ex, found, NULL, 0);
        CHECK(found[side].line > 0 && grader_values_equal(&found[side].values, &values) &&
                  strstr(found[side].comment, "9.99 GFLOP/s"),
              "round %d: read back line %d", round, found[side].line);
        free(now_text);
        free(old);
        /* twice: the same file */
        char *before = read_file(path);
        CHECK(grader_tuning_write(path, ex->id, (enum grader_tuning_side)side, &values,
                                  "9.99 GFLOP/s at N = 512", why, sizeof why) == 0,
              "write failed: %s", why);
        char *after = read_file(path);
        CHECK(!strcmp(before, after), "round %d: a second write changed the file", round);
        free(before);
        free(after);
        char prefix[64];
        snprintf(prefix, sizeof prefix, "dev-%d.conf.", round);
        CHECK(files_like(dir, prefix) == 0, "round %d: a temporary file was left", round);
    }
    /* a folder that cannot be written: an error, the reason said */
    struct grader_values v = grader_values_default(grader_find_exercise("07"));
    char why[300] = "";
    CHECK(grader_tuning_write("/proc/no-such/x.conf", "07_more_work_per_item", TUNING_REFERENCE, &v,
                              NULL, why, sizeof why) == -1 &&
              why[0],
          "wrote to /proc");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table_candidates), cmocka_unit_test(test_grid),
        cmocka_unit_test(test_filter),           cmocka_unit_test(test_device_names),
        cmocka_unit_test(test_parse_valid),      cmocka_unit_test(test_parse_malformed),
        cmocka_unit_test(test_lookup),           cmocka_unit_test(test_write_keeps_other_lines),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
