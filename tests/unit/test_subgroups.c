/* test_subgroups.c - unit tests of the grader's own sub-groups (grader/grade/subgroups.h), with
 * cmocka: the rewrite keeps every line at its number (random calls spread over random lines),
 * leaves strings, pragmas and other names alone, declares its array once in the kernel's body;
 * the rewritten solution and skeleton of 12 build on a device without sub-groups (POCL 3.1);
 * and the memory check of 12 runs here, where the device has no sub-groups and 12 is otherwise
 * skipped: the solution keeps its point, two of tests/planted's kernels of 12 (a race only where
 * a sub-group is more than one work-item, a race behind a sub-group barrier) lose it, each for
 * its own finding.
 *
 * Run from the repository root (tests/run.sh does), with the grader built beside this program
 * (build/grader/grader; build/asan/unit/'s take it too where it is built, else
 * build/asan/grader/grader): the memory check runs its harness. TEST_SUBGROUPS_SEED=<seed> repeats
 * a run.
 */
#define _GNU_SOURCE /* mkdtemp, realpath */
#include "text/canon.h"
#include "grade/subgroups.h"
#include "grader.h"

#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "testkit.h"

/* the preprocessor's jail (canon.c): the defaults, no sandbox (as the harness runs here) */
static struct grader_config g_canon_cfg = {.jail = GRADER_JAIL_DEFAULTS,
                                           .sandbox = {.mode = SANDBOX_NONE}};

static char g_tmp[256];

static const struct grader_exercise *row12(void) {
    const struct grader_exercise *ex = grader_find_exercise("12_subgroups");
    CHECK(ex != NULL, "no row 12_subgroups in the table");
    return ex;
}

/* The line (from 1) at which `marker` begins in text, 0 if it is not there. */
static int line_of(const char *text, const char *marker) {
    const char *at = strstr(text, marker);
    if (!at)
        return 0;
    int line = 1;
    for (const char *p = text; p < at; p++)
        line += *p == '\n';
    return line;
}

static int count_lines(const char *text) {
    int lines = 1;
    for (; *text; text++)
        lines += *text == '\n';
    return lines;
}

static char *rewrite(const char *text, enum grader_sub_groups layout,
                     struct grader_sub_group_text *did) {
    char *out = NULL;
    size_t length = 0;
    CHECK(grader_sub_groups_rewrite(text, strlen(text), "mmul", layout, 16, &out, &length, did) ==
                  0 &&
              out && length == strlen(out),
          "rewrite failed");
    if (!out)
        abort(); /* (CHECK has failed the test) */
    return out;
}

/* Whitespace with a random number of newlines in it (0 to 2). */
static const char *random_gap(struct rng *r) {
    static const char *gaps[] = {"", " ", "\n", " \n  ", "\n\n"};
    return gaps[rng_range(r, 0, 4)];
}

/* Calls of every kind over random lines, each statement tagged with a marker on its own line:
 * every marker keeps its line in both layouts, no sub-group name is left, nothing of the
 * grader's lands before the kernel. */
static void test_rewrite_keeps_lines(void **state) {
    (void)state;
    struct rng r = rng_for("lines");
    static const char *calls[] = {
        "sub_group_broadcast(x%s,%s k)",
        "sub_group_broadcast(sub_group_reduce_add(x)%s,%s get_sub_group_local_id())",
        "sub_group_reduce_min(%sx%s)",
        "sub_group_reduce_max(x%s)%s",
        "sub_group_scan_inclusive_add(%sx%s)",
        "sub_group_scan_exclusive_max(x)%s%s",
        "sub_group_scan_exclusive_min(%sx)%s",
        "sub_group_all(x > 0.0f%s)%s",
        "sub_group_any(%sx > 0.0f%s)",
        "get_sub_group_size(%s)%s",
        "get_max_sub_group_size%s(%s)",
        "get_num_sub_groups(%s%s)",
        "get_enqueued_num_sub_groups(%s)%s",
        "get_sub_group_id(%s%s)",
        "get_sub_group_local_id(%s%s)",
    };
    for (int round = 0; round < 40; round++) {
        char text[8192], markers[32][32];
        int used = snprintf(text, sizeof text,
                            "#pragma OPENCL EXTENSION cl_khr_subgroups : enable\n"
                            "__kernel void mmul(const int N, __global float *C);\n"
                            "__kernel void mmul(const int N, __global float *C)%s{\n"
                            "    float x = C[0];%s uint k = 0;\n",
                            random_gap(&r), random_gap(&r));
        int count = (int)rng_range(&r, 1, 20);
        for (int i = 0; i < count; i++) {
            char call[256];
            snprintf(call, sizeof call, calls[rng_range(&r, 0, 14)], random_gap(&r),
                     random_gap(&r));
            snprintf(markers[i], sizeof markers[i], "marker_%d_%08llx", i,
                     (unsigned long long)(rng_next(&r) & 0xffffffff));
            used += snprintf(text + used, sizeof text - (size_t)used,
                             "    x += (float)(%s);%s float %s = 1;\n", call, random_gap(&r),
                             markers[i]);
        }
        snprintf(text + used, sizeof text - (size_t)used,
                 "    sub_group_barrier(CLK_LOCAL_MEM_FENCE%s);\n    C[0] = x;\n}\n",
                 rng_range(&r, 0, 1) ? ",\n memory_scope_sub_group" : "");
        for (int layout = 0; layout < 2; layout++) {
            struct grader_sub_group_text did;
            char *out = rewrite(text, (enum grader_sub_groups)layout, &did);
            CHECK(count_lines(out) == count_lines(text), "%d lines became %d:\n%s\n->\n%s",
                  count_lines(text), count_lines(out), text, out);
            for (int i = 0; i < count; i++)
                CHECK(line_of(out, markers[i]) == line_of(text, markers[i]),
                      "%s moved from line %d to %d:\n%s", markers[i], line_of(text, markers[i]),
                      line_of(out, markers[i]), out);
            CHECK(did.calls >= count && did.injected == 1 && did.outside == 0,
                  "%d calls rewritten of %d, injected %d, %d outside the body", did.calls, count,
                  did.injected, did.outside);
            /* the array in the body, on the line of its brace; the pragma and prototype as they
             * were */
            CHECK(strstr(out, SUB_GROUP_SLOTS "[16]") &&
                      line_of(out, SUB_GROUP_SLOTS "[16]") == line_of(text, "{"),
                  "no array after the body's brace:\n%s", out);
            size_t head = strcspn(text, "{");
            CHECK(strncmp(out, text, head) == 0, "the text before the body changed (seed above)");
            CHECK(!strstr(out, "get_sub_group") && !strstr(out, "sub_group_b") &&
                      !strstr(out, "sub_group_re") && !strstr(out, "sub_group_sc") &&
                      !strstr(out, "sub_group_a"),
                  "a sub-group function is left:\n%s", out);
            free(out);
        }
    }
}

/* What is not a call of a sub-group function stays as it was: a string, a longer name, a call
 * of another arity, a name with no call; an unclosed call does not stop the rewrite. */
static void test_rewrite_leaves_the_rest(void **state) {
    (void)state;
    static const char *kept[] = {
        "printf(\"sub_group_broadcast(x, 1)\\n\");",
        "float v = my_sub_group_broadcast(x, 1) + sub_group_broadcast_x;",
        "float v = sub_group_broadcast(x);",
        "float v = sub_group_reduce_add(x, y);",
        "int get_sub_group_size_ok = 1;",
        "char c = '('; float v = x;",
    };
    for (size_t i = 0; i < sizeof kept / sizeof kept[0]; i++) {
        char text[512];
        snprintf(text, sizeof text, "__kernel void other(float x, float y) {\n    %s\n}\n",
                 kept[i]);
        struct grader_sub_group_text did;
        char *out = rewrite(text, SUB_GROUPS_ROW, &did);
        CHECK(strcmp(out, text) == 0 && did.calls == 0 && !did.injected, "changed:\n%s\n->\n%s",
              text, out);
        free(out);
    }
    const char *unclosed = "__kernel void mmul(float x) {\n  x = sub_group_reduce_add(x;\n}\n";
    struct grader_sub_group_text did;
    char *out = rewrite(unclosed, SUB_GROUPS_ONE, &did);
    CHECK(count_lines(out) == count_lines(unclosed) && strstr(out, "sub_group_reduce_add(x;"),
          "an unclosed call:\n%s", out);
    free(out);
}

/* A call that exchanges values outside the kernel's body (a function of the student's, another
 * kernel) is counted with its line, where the array is out of reach; a query is not, nor a call
 * in the body's inner blocks. */
static void test_rewrite_finds_calls_outside_the_body(void **state) {
    (void)state;
    struct rng r = rng_for("outside");
    for (int round = 0; round < 20; round++) {
        int before = (int)rng_range(&r, 0, 5), after = (int)rng_range(&r, 0, 5);
        char text[2048];
        int used =
            snprintf(text, sizeof text, "uint lane(void) { return get_sub_group_local_id(); }\n");
        for (int i = 0; i < before; i++)
            used += snprintf(text + (size_t)used, sizeof text - (size_t)used, "\n");
        used += snprintf(text + (size_t)used, sizeof text - (size_t)used,
                         "float share(float x) { return sub_group_broadcast(x, 0); }\n"
                         "__kernel void mmul(float x) {\n"
                         "    if (x > 0) { { x = sub_group_reduce_add(x); } }\n");
        for (int i = 0; i < after; i++)
            used += snprintf(text + (size_t)used, sizeof text - (size_t)used, "\n");
        snprintf(text + (size_t)used, sizeof text - (size_t)used,
                 "}\n__kernel void other(float x) { x = sub_group_any(x > 0); }\n");
        struct grader_sub_group_text did;
        char *out = rewrite(text, (enum grader_sub_groups)(round % 2), &did);
        CHECK(did.calls == 4 && did.outside == 2 && did.outside_line == 2 + before &&
                  strcmp(did.outside_name, "sub_group_broadcast") == 0,
              "%d calls, %d outside, the first at line %d (%s):\n%s", did.calls, did.outside,
              did.outside_line, did.outside_name, text);
        free(out);
    }
}

/* A text that no device builds in time is refused (-2), not rewritten without end: calls nested
 * deeper than a compiler's brackets, or so many that the rewrite passes 64 MB; nesting as deep as
 * clang takes is rewritten. */
static void test_rewrite_refuses_the_unbuildable(void **state) {
    (void)state;
    struct rng r = rng_for("unbuildable");
    for (int round = 0; round < 3; round++) {
        int depth = round == 0 ? (int)rng_range(&r, 200, 250) : (int)rng_range(&r, 400, 2000);
        size_t size = (size_t)depth * 32 + 256;
        char *text = malloc(size), *out = NULL;
        if (!text)
            abort();
        size_t used = (size_t)snprintf(text, size, "__kernel void mmul(float x) {\n x = ");
        for (int d = 0; d < depth; d++)
            used += (size_t)snprintf(text + used, size - used, "sub_group_reduce_add(");
        used += (size_t)snprintf(text + used, size - used, "x");
        for (int d = 0; d < depth; d++)
            text[used++] = ')';
        snprintf(text + used, size - used, ";\n}\n");
        size_t length = 0;
        int rc = grader_sub_groups_rewrite(text, strlen(text), "mmul", SUB_GROUPS_ONE, 16, &out,
                                           &length, NULL);
        CHECK(rc == (round == 0 ? 0 : -2), "%d calls nested: %d", depth, rc);
        free(out);
        free(text);
    }
    /* many calls, each a few hundred bytes rewritten */
    size_t calls = 300000, size = calls * 32 + 64;
    char *text = malloc(size), *out = NULL;
    if (!text)
        abort();
    size_t used = (size_t)snprintf(text, size, "__kernel void mmul(float x) {\n");
    for (size_t c = 0; c < calls; c++)
        used += (size_t)snprintf(text + used, size - used, "x=sub_group_broadcast(x,0);\n");
    snprintf(text + used, size - used, "}\n");
    size_t length = 0;
    CHECK(grader_sub_groups_rewrite(text, strlen(text), "mmul", SUB_GROUPS_ROW, 16, &out, &length,
                                    NULL) == -2,
          "%zu calls rewritten into %zu bytes", calls, length);
    free(out);
    free(text);
}

/* The solution and the skeleton of 12, canonicalised and rewritten for each layout, build on
 * the device (which needs no sub-groups for them). */
static void test_rewritten_kernels_build(void **state) {
    (void)state;
    struct clu_env env;
    if (clu_env_open(&env, getenv("DEVICE")) != 0) {
        print_message("no OpenCL device: skipped\n");
        skip();
    }
    const struct grader_exercise *ex = row12();
    const char *skeletons = getenv("SKELETONS");
    const char *folders[] = {"solutions", skeletons && *skeletons ? skeletons : "exercises"};
    for (int f = 0; f < 2; f++)
        for (int layout = 0; layout < 2; layout++) {
            char src[PATH_MAX], canon[PATH_MAX], out[PATH_MAX], why[400];
            snprintf(src, sizeof src, "%s/%s/kernel.cl", folders[f], ex->id);
            snprintf(canon, sizeof canon, "%s/canon-%d.cl", g_tmp, f);
            snprintf(out, sizeof out, "%s/rewritten-%d-%d.cl", g_tmp, f, layout);
            struct grader_variant v = grader_variant_of(ex, 0, 0);
            CHECK(grader_canonicalise(&g_canon_cfg.jail, &g_canon_cfg.sandbox, src, canon, &v, why,
                                      sizeof why) == 0,
                  "%s: %s", src, why);
            struct grader_sub_group_text did;
            CHECK(grader_sub_groups_file(canon, out, ex->kernel, (enum grader_sub_groups)layout, 16,
                                         &did, why, sizeof why) == 0,
                  "%s: %s", src, why);
            CHECK(did.injected && (f == 1 || did.calls >= 3), "%s: %d calls, injected %d", src,
                  did.calls, did.injected);
            cl_int err;
            cl_program program = clu_build_file(&env, out, "", &err);
            CHECK(program != NULL, "%s rewritten (layout %d) does not build (%d)", src, layout,
                  err);
            clReleaseProgram(program);
        }
    clu_env_close(&env);
}

/* 12's memory check on kernel.cl at path, into r (one test). */
static void memcheck(const char *path, struct grader_exercise_result *r) {
    const struct grader_exercise *ex = row12();
    char self[PATH_MAX + 32], self_real[PATH_MAX], work[PATH_MAX], canon[PATH_MAX + 64], why[400];
    /* the harness run under oclgrind: the plain build's where there is one (the grader's reading
     * of oclgrind is what this judges, in this process; an ASan harness under oclgrind ran each
     * case in 25 s instead of 7), else the one beside this test */
    snprintf(self, sizeof self, "build/grader/grader");
    if (access(self, X_OK) != 0)
        snprintf(self, sizeof self, "%s/../grader/grader", clu_exe_dir());
    CHECK(realpath(self, self_real) != NULL, "no grader beside this test (%s)", self);
    snprintf(work, sizeof work, "%s/work", g_tmp);
    char dir[PATH_MAX + 32];
    snprintf(dir, sizeof dir, "%s/%s", work, ex->id);
    grader_make_dirs(dir);
    snprintf(canon, sizeof canon, "%s/kernel.canonical.cl", dir);
    struct grader_variant v = grader_variant_of(ex, 0, 0);
    CHECK(grader_canonicalise(&g_canon_cfg.jail, &g_canon_cfg.sandbox, path, canon, &v, why,
                              sizeof why) == 0,
          "%s: %s", path, why);
    char cwd[PATH_MAX];
    CHECK(getcwd(cwd, sizeof cwd) != NULL, "getcwd");
    struct grader_config cfg = {
        .root = cwd,
        .submission = g_tmp,
        .work = work,
        .results = g_tmp,
        .device = getenv("DEVICE"),
        .self = self_real,
        .seed = g_seed,
        .timeout = 30,
        .memcheck = 1,
        .sandbox = {.mode = SANDBOX_NONE},
        .jail = GRADER_JAIL_DEFAULTS,
    };
    cfg.jail.limits.memory_bytes = 64LL << 40; /* an ASan harness's shadow (tests/run.sh) */
    memset(r, 0, sizeof *r);
    r->ex = ex;
    grade_test_sub_group_memcheck(&cfg, ex, canon, canon, 1, "", r);
    CHECK(r->test_count == 1, "%d tests", r->test_count);
}

/* The solution keeps the point; planted kernels of 12 lose it: a race that only the run with
 * sub-groups of a row finds, and one that only the run with sub-groups of one finds (and a wrong
 * C there). (tests/planted's subgroups_read_past_A, found by both, is left to planted.sh: each
 * case here costs two runs under oclgrind at N = 128.) */
static void test_memcheck_of_12(void **state) {
    (void)state;
    char oclgrind[PATH_MAX];
    struct clu_env env;
    if (grader_find_program("oclgrind", oclgrind, sizeof oclgrind) != 0 ||
        clu_env_open(&env, getenv("DEVICE")) != 0) {
        print_message("no oclgrind or no OpenCL device: skipped\n");
        skip();
    }
    clu_env_close(&env);
    static const struct {
        const char *path;
        int keeps;
        const char *says, *found; /* found: which run found it */
    } cases[] = {
        {"solutions/12_subgroups/kernel.cl", 1, "clean at N = 128", "and of one work-item"},
        {"tests/planted/subgroups_race_beyond_one/kernel.cl", 0, "data races in local memory",
         "sub-groups of a row of the work-group (16 work-items, as POCL makes them): at N = 128"},
        {"tests/planted/subgroups_barrier_of_a_sub_group/kernel.cl", 0,
         "data races in local memory", "sub-groups of one work-item: at N = 128"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct grader_exercise_result r;
        double start = now();
        memcheck(cases[i].path, &r);
        const struct grader_test *t = &r.tests[0];
        print_message("%s: %d/%d in %.1f s\n", cases[i].path, t->score, t->max, now() - start);
        CHECK(t->max == 1 && t->score == cases[i].keeps &&
                  t->verdict == (cases[i].keeps ? GRADER_PASS : GRADER_FAIL) &&
                  strstr(t->output, cases[i].says) && strstr(t->output, cases[i].found),
              "%s: %d/%d, expected %d/1 saying \"%s\" and \"%s\":\n%s", cases[i].path, t->score,
              t->max, cases[i].keeps, cases[i].says, cases[i].found, t->output);
        grader_free_result(&r);
    }
}

static int group_setup(void **state) {
    (void)state;
    return testkit_start("test_subgroups", "TEST_SUBGROUPS_SEED", g_tmp, sizeof g_tmp);
}

static int group_teardown(void **state) {
    (void)state;
    grader_remove_tree(g_tmp);
    return 0;
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rewrite_keeps_lines),
        cmocka_unit_test(test_rewrite_leaves_the_rest),
        cmocka_unit_test(test_rewrite_finds_calls_outside_the_body),
        cmocka_unit_test(test_rewrite_refuses_the_unbuildable),
        cmocka_unit_test(test_rewritten_kernels_build),
        cmocka_unit_test(test_memcheck_of_12),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
