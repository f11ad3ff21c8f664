/* test_canon.c - unit tests of grader_canonicalise (grader/text/canon.h), with cmocka: hostile
 * kernels (written here into a fresh folder, with random names and values) are refused with a
 * reason that names the problem, legitimate ones are accepted with BLOCK honoured, a "reference"
 * that every uid can read, included by every route, leaves no word of itself in any refusal with
 * the sandbox and without it, the pragmas public kernels keep pass, and every solution and
 * skeleton of the workbook canonicalises and still builds on an OpenCL device (POCL in CI).
 *
 * Build (from the repository root, as tests/run.sh does):
 *   cc -std=c11 -O2 -g -Wall -Wextra -Werror -Icommon -Igrader -o build/tests/test_canon \
 *      tests/unit/test_canon.c <every grader source but main.c> build/libclu.a \
 *      -lcmocka -lOpenCL -lcrypt -lm
 * TEST_CANON_SEED=<seed> repeats a run.
 */
#define _GNU_SOURCE /* mkdtemp */
#include "text/canon.h"
#include "grader.h"

#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "testkit.h"

static char g_tmp[256];
/* the grader's settings for the preprocessor's jail: the defaults, the sandbox where bubblewrap
 * works here (hiding g_secret as it hides solutions/), or none */
static struct grader_config g_cfg = {.jail = GRADER_JAIL_DEFAULTS};
static int g_sandbox;     /* SANDBOX_OWN_PROC where bubblewrap works, else SANDBOX_NONE */
static char g_secret[64]; /* a folder every uid can read: the "reference" lives there */

/* A random identifier of the test's own (so no canned name passes by chance). */
static void random_name(struct rng *r, const char *prefix, char *buf, size_t size) {
    snprintf(buf, size, "%s%08llx", prefix, (unsigned long long)(rng_next(r) & 0xffffffffu));
}

/* Write text to <tmp>/<name> and return its path in path. */
static void write_file(const char *name, const char *text, char *path, size_t size) {
    snprintf(path, size, "%s/%s", g_tmp, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
}

/* Canonicalise the kernel text; the output's text (malloc'd, "" if none) into *out. */
static int canon_text(const char *kernel, int block, char *why, size_t why_size, char **out) {
    char src[PATH_MAX], dst[PATH_MAX];
    write_file("kernel.cl", kernel, src, sizeof src);
    snprintf(dst, sizeof dst, "%s/canonical.cl", g_tmp);
    unlink(dst);
    struct grader_variant v = {block, NULL};
    int status = grader_canonicalise(&g_cfg.jail, &g_cfg.sandbox, src, dst, &v, why, why_size);
    char *text = clu_read_file(dst, NULL);
    if (out)
        *out = text ? text : strdup("");
    else
        free(text);
    return status;
}

/* The kernel is refused, within the time limit, with a reason holding `named`. */
static void expect_refused(const char *what, const char *kernel, const char *named) {
    char why[1024];
    double start = now();
    int status = canon_text(kernel, 16, why, sizeof why, NULL);
    double took = now() - start;
    CHECK(status == -1, "%s: accepted, should be refused:\n%s", what, kernel);
    CHECK(why[0] && !strchr(why, '\n'), "%s: the reason is not one line: \"%s\"", what, why);
    CHECK(strstr(why, named), "%s: the reason \"%s\" does not name \"%s\"", what, why, named);
    CHECK(took < CANON_TIMEOUT + 5.0, "%s: refused only after %.1f s", what, took);
    print_message("  refused %-26s %s\n", what, why);
}

static void test_includes_refused(void **state) {
    (void)state;
    struct rng r = rng_for("includes");
    char name[64], header[PATH_MAX], kernel[4 * PATH_MAX], macro[64];
    random_name(&r, "inc_", name, sizeof name);
    strcat(name, ".h");
    char value[64];
    snprintf(value, sizeof value, "#define %s %ld\n", "INCLUDED_VALUE", rng_range(&r, 1, 1 << 20));
    write_file(name, value, header, sizeof header);

    snprintf(kernel, sizeof kernel, "#include \"%s\"\n__kernel void f(void) {}\n", header);
    expect_refused("#include", kernel, "includes a file");
    snprintf(kernel, sizeof kernel, "/* x */ # /**/ include \"%s\"\n", header);
    expect_refused("comment before #include", kernel, "includes a file");
    snprintf(kernel, sizeof kernel, "int a;\n%%:include \"%s\"\n", header);
    expect_refused("digraph %:include", kernel, "includes a file");
    snprintf(kernel, sizeof kernel, "int a;\n?\?=include \"%s\"\n", header);
    expect_refused("trigraph ?\?=include", kernel, "includes a file");
    snprintf(kernel, sizeof kernel, "#inc\\\nlude \"%s\"\n", header);
    expect_refused("spliced #include", kernel, "includes a file");
    random_name(&r, "P", macro, sizeof macro);
    snprintf(kernel, sizeof kernel, "#define %s(x) #x\n#define Q(x) %s(x)\n#include Q(%s)\n", macro,
             macro, header);
    expect_refused("macro-built #include", kernel, "includes a file");
    snprintf(kernel, sizeof kernel, "#include \"%s\"\n", name); /* relative to kernel.cl */
    expect_refused("relative #include", kernel, "includes a file");
    snprintf(kernel, sizeof kernel, "#include \"%s/no_such_%s\"\n", g_tmp, name);
    expect_refused("missing #include", kernel, "includes a file");
    snprintf(kernel, sizeof kernel, "#import \"%s\"\n", header);
    expect_refused("#import", kernel, "includes a file");
    snprintf(kernel, sizeof kernel, "int a;\n#include_next \"%s\"\n", header);
    expect_refused("#include_next", kernel, "includes a file");
    snprintf(kernel, sizeof kernel, "#if __has_include(\"%s\")\nint a;\n#endif\n", header);
    expect_refused("__has_include", kernel, "__has_include");
    snprintf(kernel, sizeof kernel, "#define %s __has_include\n#if %s(<%s>)\nint a;\n#endif\n",
             macro, macro, header);
    expect_refused("__has_include by a macro", kernel, "__has_include");
    snprintf(kernel, sizeof kernel,
             "#ifdef __has_include_next\nint a;\n#endif\nint k = "
             "__has_include_next;\n");
    expect_refused("__has_include_next", kernel, "__has_include_next");
}

static void test_second_pass_directives_refused(void **state) {
    (void)state;
    struct rng r = rng_for("directives");
    char h[64], kernel[2048];
    random_name(&r, "H", h, sizeof h);
    snprintf(kernel, sizeof kernel, "#define %s #\n%s include \"/etc/hostname\"\nint a;\n", h, h);
    expect_refused("#define H # / H include", kernel, "directive");
    snprintf(kernel, sizeof kernel, "#define %s %%:\n%s define X 1\n", h, h);
    expect_refused("%: from a macro", kernel, "directive");
    snprintf(kernel, sizeof kernel, "#define %s(x) x\n%s(#) if 1\n", h, h);
    expect_refused("# passed through a macro", kernel, "directive");
    snprintf(kernel, sizeof kernel, "#define %s #\n%s pragma push_macro(\"X\")\n", h, h);
    expect_refused("#pragma built by a macro", kernel, "push_macro");
    expect_refused("#ident", "int a;\n#ident \"x\"\n", "directive");
}

static void test_asm_refused(void **state) {
    (void)state;
    expect_refused("__asm__", "void f(void) { __asm__(\"nop\"); }\n", "asm");
    expect_refused("asm volatile", "void f(void) { asm volatile(\"nop\"); }\n", "asm");
    expect_refused("__asm by a macro", "#define A(x) __as##x\nvoid f(void) { A(m)(\"nop\"); }\n",
                   "asm");
}

static void test_platform_macros_refused(void **state) {
    (void)state;
    struct rng r = rng_for("platform");
    char kernel[1024];
    const char *names[] = {"__SPIR__",     "__x86_64__", "__NV_CL_C_VERSION", "__IMAGE_SUPPORT__",
                           "linux",        "i386",       "cl_khr_fp64",       "CL_VERSION_2_0",
                           "FP_FAST_FMAF", "_LP64"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        snprintf(kernel, sizeof kernel, "__kernel void f(__global int *c) { c[0] = %s + %ld; }\n",
                 names[i], rng_range(&r, 0, 1000));
        expect_refused(names[i], kernel, names[i]);
    }
    /* glued by ## into one: the second pass would see it whole */
    expect_refused("__SPIR__ by ##", "#define G(a, b) a##b\nint k = G(__SP, IR__);\n", "__SPIR__");
}

/* #ifdef of a device's macro takes the same branch for every device: the #else. */
static void test_device_macros_undefined(void **state) {
    (void)state;
    struct rng r = rng_for("undefined");
    const char *tests[] = {
        "#ifdef __SPIR__",          "#if defined(__x86_64__)",
        "#ifdef cl_khr_fp64",       "#if defined(__NV_CL_C_VERSION) || defined(__AMD__)",
        "#ifdef __IMAGE_SUPPORT__", "#if __GNUC__",
        "#ifdef FP_FAST_FMAF"};
    for (size_t i = 0; i < sizeof tests / sizeof tests[0]; i++) {
        char a[64], b[64], kernel[1024], why[512];
        random_name(&r, "then_", a, sizeof a);
        random_name(&r, "else_", b, sizeof b);
        snprintf(kernel, sizeof kernel, "%s\nint %s;\n#else\nint %s;\n#endif\n", tests[i], a, b);
        char *out;
        CHECK(canon_text(kernel, 16, why, sizeof why, &out) == 0, "%s refused: %s", tests[i], why);
        CHECK(strstr(out, b) && !strstr(out, a), "%s: the output is not the #else branch:\n%s",
              tests[i], out);
        free(out);
    }
}

static void test_dev_zero_and_bombs_refused(void **state) {
    (void)state;
    expect_refused("#include /dev/zero", "#include \"/dev/zero\"\n", "include");
    char kernel[4096];
    size_t used =
        (size_t)snprintf(kernel, sizeof kernel, "#define X0 aaaaaaaaaaaa bbbbbbbbbbbbb\n");
    for (int i = 1; i <= 40; i++)
        used += (size_t)snprintf(kernel + used, sizeof kernel - used, "#define X%d X%d X%d\n", i,
                                 i - 1, i - 1);
    snprintf(kernel + used, sizeof kernel - used, "X40\n");
    expect_refused("macro bomb", kernel, "expand");
    expect_refused("#error", "#error stop here\n", "stop here");
}

/* A "reference" every uid may read (as solutions/ is in a checkout), with words of its own, is
 * included by every route a student has (its absolute path, /proc/self/cwd/ from the grader's
 * folder, a macro-built name, behind __has_include) inside traps that would print it: a macro
 * call left open that a _Pragma("GCC error") stringises, the reference's own #error. Refused,
 * with the sandbox and without it (uid and limits only), and no word of it in the reason. */
static void test_reference_never_quoted(void **state) {
    (void)state;
    struct rng r = rng_for("reference");
    char words[5][32], name[64], ref[160], text[2048];
    for (int i = 0; i < 5; i++)
        random_name(&r, "secret_", words[i], sizeof words[i]);
    random_name(&r, "ref_", name, sizeof name);
    snprintf(ref, sizeof ref, "%s/%s.cl", g_secret, name);
    snprintf(text, sizeof text,
             "#ifndef TILE\n#define TILE 8\n#endif\n#if TILE == 3\n#error \"%s %s\"\n#endif\n"
             "__kernel void %s(const int %s, __global float *%s) { }\n",
             words[0], words[1], words[2], words[3], words[4]);
    FILE *f = fopen(ref, "w");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
    assert_int_equal(chmod(ref, 0644), 0);
    const char *trap = "#define STR2(...) #__VA_ARGS__\n#define STR(...) STR2(__VA_ARGS__)\n"
                       "#define LEAK(...) _Pragma(STR(GCC error STR(__VA_ARGS__)))\n"
                       "#define int LEAK(\n";
    char kernels[6][1024];
    snprintf(kernels[0], sizeof kernels[0], "%s#include \"%s\"\n", trap, ref);
    snprintf(kernels[1], sizeof kernels[1], "#define TILE 3\n%%:include \"%s\"\n", ref);
    snprintf(kernels[2], sizeof kernels[2], "%s#include \"/proc/self/cwd/%s.cl\"\n", trap, name);
    snprintf(kernels[3], sizeof kernels[3], "%s#define PATH(x) STR(x)\n#include PATH(%s)\n", trap,
             ref);
    snprintf(kernels[4], sizeof kernels[4],
             "%s#if __has_include(\"%s\")\n#include \"%s\"\n#endif\n", trap, ref, ref);
    snprintf(kernels[5], sizeof kernels[5], "%s#include \"/proc/self/cwd/%s.cl\"\n",
             "#define TILE 3\n", name);
    const char *routes[] = {"absolute path, _Pragma trap",  "digraph, the reference's #error",
                            "/proc/self/cwd, _Pragma trap", "macro-built name, _Pragma trap",
                            "__has_include, _Pragma trap",  "/proc/self/cwd, its #error"};
    char here[PATH_MAX];
    assert_non_null(getcwd(here, sizeof here));
    assert_int_equal(chdir(g_secret), 0); /* where an unjailed preprocessor would look */
    for (int mode = 0; mode < 2; mode++) {
        g_cfg.sandbox.mode = mode ? SANDBOX_NONE : g_sandbox;
        if (!mode && g_sandbox == SANDBOX_NONE)
            continue;
        for (int k = 0; k < 6; k++) {
            char why[1024];
            int status = canon_text(kernels[k], 16, why, sizeof why, NULL);
            CHECK(status == CANON_REFUSED, "%s (%s): not refused (%d)", routes[k],
                  mode ? "no sandbox" : "sandbox", status);
            for (int i = 0; i < 5; i++)
                CHECK(!strstr(why, words[i]), "%s (%s): the reference's %s is in \"%s\"", routes[k],
                      mode ? "no sandbox" : "sandbox", words[i], why);
            CHECK(strstr(why, "includes a file") || strstr(why, "__has_include"),
                  "%s (%s): \"%s\" does not say it includes a file", routes[k],
                  mode ? "no sandbox" : "sandbox", why);
            print_message("  %-10s %-32s %s\n", mode ? "no sandbox" : "sandbox", routes[k], why);
        }
    }
    assert_int_equal(chdir(here), 0);
    g_cfg.sandbox.mode = g_sandbox;
}

/* Pragmas that no compiler acts on beyond a loop or a floating-point mode pass, made by _Pragma
 * too; those that act on files, macros, symbols, the compiler or a loop's dependences are
 * refused with a reason that names the pragma and speaks of no macro building a directive. */
static void test_pragmas(void **state) {
    (void)state;
    const char *passed[] = {"#pragma promote_to_registers",
                            "_Pragma(\"promote_to_registers\") int x;",
                            "#define U _Pragma(\"unroll\")\nU for (;;) {}",
                            "#pragma unroll",
                            "#pragma unroll 4",
                            "#pragma unroll(8)",
                            "#pragma nounroll",
                            "#pragma GCC unroll 2",
                            "#pragma clang loop unroll(full) vectorize(enable)",
                            "#pragma OPENCL EXTENSION cl_khr_fp64 : enable",
                            "#pragma OPENCL FP_CONTRACT OFF",
                            "#pragma STDC FP_CONTRACT ON",
                            "#pragma my_own_hint 3 (a, b)"};
    for (size_t i = 0; i < sizeof passed / sizeof passed[0]; i++) {
        char kernel[512], why[512];
        char *out;
        snprintf(kernel, sizeof kernel, "void f(void) {\n%s\n}\n", passed[i]);
        CHECK(canon_text(kernel, 16, why, sizeof why, &out) == 0, "%s: refused: %s", passed[i],
              why);
        CHECK(strstr(out, "#pragma"), "%s: the pragma is lost:\n%s", passed[i], out);
        free(out);
    }
    const struct {
        const char *pragma, *named;
    } refused[] = {
        {"#define P _Pragma(\"redefine_extname get_global_id my_id\")\nP", "redefine_extname"},
        {"#pragma clang diagnostic error \"-Wall\"", "clang"},
        {"#pragma clang __debug crash", "clang"},
        {"#pragma clang loop vectorize(assume_safety)", "assume_safety"},
        {"#pragma GCC diagnostic push", "GCC"},
        {"#pragma omp parallel for", "omp"},
        {"#pragma ivdep", "ivdep"},
        {"#pragma weak f", "weak"},
        {"#pragma unroll N_ITEMS", "unroll"},
        {"#pragma my_own_hint __SPIR__", "__SPIR__"},
        {"#pragma OPENCL EXTENSION __SPIR__ : enable", "OPENCL"},
        {"#pragma STDC FENV_ACCESS ON", "STDC"},
    };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        char kernel[512], why[1024];
        snprintf(kernel, sizeof kernel, "void f(void) {\n%s\n}\n", refused[i].pragma);
        expect_refused(refused[i].named, kernel, refused[i].named);
        canon_text(kernel, 16, why, sizeof why, NULL);
        CHECK(!strstr(why, "expands to #"), "%s: a plain pragma's reason speaks of macros: %s",
              refused[i].pragma, why);
    }
}

/* A line that _Pragma splits in two puts the text after it one line late only until the next
 * blank line: build logs cite the student's line numbers again from there. */
static void test_pragma_lines_caught_up(void **state) {
    (void)state;
    char why[512];
    char *out;
    CHECK(canon_text("int a;\nvoid f(void) {\n  _Pragma(\"unroll\") for (;;) {}\n  int b;\n\n"
                     "  int c;\n}\n",
                     16, why, sizeof why, &out) == 0,
          "refused: %s", why);
    const char *line = out;
    for (int n = 1; n < 6 && line; n++)
        line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL;
    CHECK(line && !strncmp(line, "  int c;", 8), "line 6 is not the kernel's line 6:\n%s", out);
    CHECK(strstr(out, "#pragma unroll\n  for (;;)"), "the pragma is not before its loop:\n%s", out);
    free(out);
}

/* What gcc predefines from the file and the clock is fixed: the text made in a jail folder of a
 * random name, a second later, is the same. */
static void test_file_and_clock_fixed(void **state) {
    (void)state;
    char why[512];
    char *out;
    CHECK(canon_text("const char *a = __FILE__, *b = __BASE_FILE__, *c = __DATE__, *d = __TIME__, "
                     "*e = __TIMESTAMP__;\n",
                     16, why, sizeof why, &out) == 0,
          "refused: %s", why);
    CHECK(strstr(out, "a = \"kernel.cl\", *b = \"kernel.cl\", *c = \"Jan  1 2000\", *d = "
                      "\"00:00:00\", *e = \"Sat Jan  1 00:00:00 2000\""),
          "not the fixed values:\n%s", out);
    free(out);
}

/* An error is cited by the student's own line, never by the preprocessor's words. */
static void test_errors_cite_lines(void **state) {
    (void)state;
    struct rng r = rng_for("errors");
    char word[32], kernel[512], why[1024];
    random_name(&r, "said_", word, sizeof word);
    /* the message's words come from line 1's definition; the error is on line 3 */
    snprintf(kernel, sizeof kernel,
             "#define E _Pragma(\"GCC error \\\"%s\\\"\")\nint a;\nE\n#if 1 +\n#endif\n", word);
    CHECK(canon_text(kernel, 16, why, sizeof why, NULL) == CANON_REFUSED, "accepted:\n%s", kernel);
    CHECK(!strstr(why, word), "the preprocessor's words are quoted: %s", why);
    CHECK(strstr(why, "line 3: \"E\"") && strstr(why, "line 4: \"#if 1 +\" (an expression"),
          "the lines are not cited: %s", why);
    print_message("  %s\n", why);
}

/* A legitimate kernel: macros, a BLOCK default under #ifndef, an extension pragma, an unroll
 * pragma, function-like macros, OpenCL's own macros at their fixed values, lines kept. */
static void test_legit_kernels_accepted(void **state) {
    (void)state;
    struct rng r = rng_for("legit");
    for (int round = 0; round < 4; round++) {
        int block = round == 0 ? 0 : (int)rng_range(&r, 2, 64);
        int fallback = (int)rng_range(&r, 65, 999);
        long scale = rng_range(&r, 1000, 99999);
        char kernel[4096], why[512], expect[128];
        snprintf(kernel, sizeof kernel,
                 "/* a comment\n * over lines */\n"
                 "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
                 "#ifndef BLOCK\n#define BLOCK %d\n#endif\n"
                 "#define SCALE %ld\n"
                 "#define AT(m, i, j, n) m[(i) * (n) + (j)]\n"
                 "__kernel __attribute__((reqd_work_group_size(1, 1, 1)))\n"
                 "void mmul(const int N, __global float *C, __local float *W, __constant float "
                 "*K) {\n"
                 "    int i = get_global_id(0); // line comment\n"
                 "    float v = BLOCK * SCALE + __OPENCL_VERSION__ + CL_VERSION_1_2;\n"
                 "#pragma unroll 4\n"
                 "    for (int k = 0; k < 4; k++) v += 1.0e-3f;\n"
                 "    AT(C, i, 0, N) = v + __LINE__;\n"
                 "    barrier(CLK_LOCAL_MEM_FENCE);\n"
                 "}\n",
                 fallback, scale);
        char *out;
        CHECK(canon_text(kernel, block, why, sizeof why, &out) == 0, "refused: %s\n%s", why,
              kernel);
        snprintf(expect, sizeof expect, "float v = %d * %ld + 120 + 120;",
                 block > 0 ? block : fallback, scale);
        CHECK(strstr(out, expect), "no \"%s\" in:\n%s", expect, out);
        CHECK(strstr(out, "C[(i) * (N) + (0)] = v + 15;"), "__LINE__ or the macro is wrong:\n%s",
              out);
        CHECK(strstr(out, "#pragma OPENCL EXTENSION cl_khr_fp64 : enable") &&
                  strstr(out, "#pragma unroll 4"),
              "a pragma is lost:\n%s", out);
        CHECK(!strstr(out, "comment"), "a comment is kept:\n%s", out);
        /* each line where it was: the kernel's line 12 (the v line) is the output's line 12 */
        const char *line = out;
        for (int n = 1; n < 12 && line; n++)
            line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL;
        CHECK(line && !strncmp(line, "    float v", 11), "line 12 moved:\n%s", out);
        free(out);
    }
}

/* Every solution and skeleton canonicalises with the table's BLOCK and builds on the device. */
static void test_workbook_kernels_build(void **state) {
    (void)state;
    struct clu_env env;
    if (clu_env_open(&env, NULL) != 0) {
        print_message("no OpenCL device: the build half is skipped\n");
        skip();
    }
    int built = 0;
    char extensions[8192] = "";
    clGetDeviceInfo(env.device, CL_DEVICE_EXTENSIONS, sizeof extensions - 1, extensions, NULL);
    /* tests/run.sh exports the skeletons as committed: exercises/ may hold a student's work */
    const char *skeletons = getenv("SKELETONS");
    const char *folders[] = {"solutions", skeletons && *skeletons ? skeletons : "exercises"};
    for (int f = 0; f < 2; f++)
        for (int e = 0; e < grader_exercise_count; e++) {
            const struct grader_exercise *ex = &grader_exercises[e];
            char src[PATH_MAX], dst[PATH_MAX], why[512], options[64];
            snprintf(src, sizeof src, "%s/%s/kernel.cl", folders[f], ex->id);
            if (access(src, R_OK) != 0)
                continue; /* the CUDA exercise */
            if (ex->needs_extension && !grader_has_extension(extensions, ex->needs_extension))
                continue; /* (12's sub-groups: not on POCL 3.1) */
            snprintf(dst, sizeof dst, "%s/%s-%s.cl", g_tmp, f ? "skeleton" : "solution", ex->id);
            struct grader_variant v = grader_variant_of(ex, 0, 0);
            CHECK(grader_canonicalise(&g_cfg.jail, &g_cfg.sandbox, src, dst, &v, why, sizeof why) ==
                      0,
                  "%s: %s", src, why);
            options[0] = '\0';
            if (ex->block > 0)
                snprintf(options, sizeof options, "-DBLOCK=%d", ex->block);
            cl_int err;
            cl_program program = clu_build_file(&env, dst, options, &err);
            CHECK(program != NULL, "%s canonicalised does not build (%d)", src, err);
            clReleaseProgram(program);
            built++;
        }
    clu_env_close(&env);
    CHECK(built >= 10, "only %d kernels found: run from the repository root", built);
}

static int group_setup(void **state) {
    (void)state;
    if (testkit_start("test_canon", "TEST_CANON_SEED", g_tmp, sizeof g_tmp) != 0)
        return -1;
    snprintf(g_secret, sizeof g_secret, "/tmp/test_canon_secret.XXXXXX");
    if (!mkdtemp(g_secret) || chmod(g_secret, 0755) != 0)
        return -1;
    /* the sandbox as the grader probes it (its prefix, run in the jail), hiding the secret folder
     * as it hides solutions/ */
    snprintf(g_cfg.sandbox.hidden[0], sizeof g_cfg.sandbox.hidden[0], "%s", g_secret);
    snprintf(g_cfg.sandbox.hidden[1], sizeof g_cfg.sandbox.hidden[1], "%s", g_tmp);
    g_cfg.sandbox.mode = SANDBOX_OWN_PROC;
    char dir[PATH_MAX], log[PATH_MAX + 16];
    struct grader_run_result run = {.how = RUN_NO_START};
    struct grader_argv probe = GRADER_ARGV_INIT;
    if (grader_jail_dir_make(dir, sizeof dir) == 0 &&
        grader_sandbox_push(&g_cfg.jail, &g_cfg.sandbox, dir, &probe)) {
        grader_argv_push(&probe, "/bin/true");
        snprintf(log, sizeof log, "%s/probe.txt", g_tmp);
        grader_run_jailed(&g_cfg.jail, probe.argv, dir, log, 20, &run);
    }
    grader_argv_clear(&probe);
    grader_jail_dir_remove(dir);
    g_sandbox = run.how == RUN_EXITED && run.code == 0 ? SANDBOX_OWN_PROC : SANDBOX_NONE;
    g_cfg.sandbox.mode = g_sandbox;
    print_message("test_canon: %s\n", g_sandbox ? "with the sandbox, and without it"
                                                : "bubblewrap cannot run here: no sandbox");
    return 0;
}

static int group_teardown(void **state) {
    (void)state;
    grader_remove_tree(g_tmp);
    grader_remove_tree(g_secret);
    return 0;
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_includes_refused),
        cmocka_unit_test(test_second_pass_directives_refused),
        cmocka_unit_test(test_asm_refused),
        cmocka_unit_test(test_platform_macros_refused),
        cmocka_unit_test(test_device_macros_undefined),
        cmocka_unit_test(test_dev_zero_and_bombs_refused),
        cmocka_unit_test(test_reference_never_quoted),
        cmocka_unit_test(test_pragmas),
        cmocka_unit_test(test_pragma_lines_caught_up),
        cmocka_unit_test(test_file_and_clock_fixed),
        cmocka_unit_test(test_errors_cite_lines),
        cmocka_unit_test(test_legit_kernels_accepted),
        cmocka_unit_test(test_workbook_kernels_build),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
