/* grade.c - grading one exercise of a submission: the kernel at each hidden size, the host
 * program, the memory check and the timing against the reference, each a test with points. */
#define _GNU_SOURCE /* O_NOFOLLOW, strdup, mkdtemp */
#include "grade/grade.h"
#include "grade/canon.h"
#include "exercise/protocol.h"
#include "exercise/traffic.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define LOG_CAP       6000 /* bytes of a child's output shown in a report */
#define BUILD_TIMEOUT 120  /* seconds for compiling a student's main.c */

static int exists(const char *path) {
    return access(path, R_OK) == 0;
}

/* POCL's kernel cache of this exercise's jailed kernel runs (see grader_jail_settings). */
static const char *kernel_cache;

/* ---------------------------------------------------------------- harness children */

struct harness_run {
    struct grader_run_result run;
    char dir[PATH_MAX]; /* where it saved its files (its jail, removed by harness_done) */
    char *log;          /* its output, capped */
    struct grader_jail jail;
};

static void harness_done(struct harness_run *h) {
    free(h->log);
    h->log = NULL;
    grader_jail_dir_remove(h->jail.dir);
}

/* The harness runs the student's kernel: it runs jailed like the student's own program (its
 * uid, its limits, the sandbox), since a kernel is code too (POCL runs it in the harness's own
 * process). With memcheck, under oclgrind, whose findings go to oclgrind.txt in h->dir. */
static void run_harness(const struct grader_config *cfg, const struct grader_exercise *ex,
                        const char *kernel, int n, const char *tag, int memcheck,
                        struct harness_run *h) {
    memset(h, 0, sizeof *h);
    char logs[PATH_MAX], log[PATH_MAX + 16], oclgrind[PATH_MAX];
    snprintf(logs, sizeof logs, "%s/%s/%s", cfg->work, ex->id, tag);
    grader_make_dirs(logs);
    snprintf(log, sizeof log, "%s/log.txt", logs);
    if (grader_jail_open(cfg->self, kernel, &h->jail) != 0) {
        h->run.how = RUN_NO_START;
        h->run.code = errno;
        h->log = strdup("the grader cannot prepare its folder in /tmp");
        return;
    }
    snprintf(h->dir, sizeof h->dir, "%s", h->jail.dir);
    struct grader_jail_settings js = cfg->jail;
    js.kernel_cache = kernel_cache; /* bound by the prefix below, named in the env */
    char wrapper_log[PATH_MAX + 16];
    snprintf(wrapper_log, sizeof wrapper_log, "%s/oclgrind.txt", h->dir);
    struct grader_argv argv = GRADER_ARGV_INIT;
    grader_sandbox_push(&js, &cfg->sandbox, h->dir, &argv);
    if (memcheck) {
        /* the memory check: oclgrind interprets the kernel and logs every bad access */
        grader_find_program("oclgrind", oclgrind, sizeof oclgrind);
        grader_argv_push_all(
            &argv, (const char *const[]){oclgrind, "--data-races", "--uninitialized", "--check-api",
                                         "--max-errors", "500", "--log", wrapper_log, NULL});
    }
    grader_argv_push_all(&argv,
                         (const char *const[]){h->jail.self, "--harness", "--ex", ex->id,
                                               "--kernel", h->jail.kernel, "--out", h->dir, NULL});
    grader_argv_push(&argv, "--n");
    grader_argv_pushf(&argv, "%d", n);
    grader_argv_push(&argv, "--seed");
    grader_argv_pushf(&argv, "%llu", (unsigned long long)grader_seed_for(cfg->seed, ex, n));
    if (cfg->device && !memcheck) { /* under oclgrind its device is the only one */
        grader_argv_push(&argv, "--device");
        grader_argv_push(&argv, cfg->device);
    }
    if (memcheck)
        grader_argv_push(&argv, "--exact"); /* no guard zone: oclgrind must see C's true end */
    double limit = memcheck ? 3 * cfg->timeout : cfg->timeout;
    grader_run_jailed(&js, argv.argv, h->dir, log, limit, &h->run);
    grader_argv_clear(&argv);
    h->log = grader_read_capped(log, LOG_CAP);
}

/* Why a harness run failed, for the report; sets *dead when no later run of this kernel can
 * work (it does not build, or it hangs). Returns NULL when the run succeeded. */
char *grader_harness_failure(const struct grader_run_result *run, const char *log, int n,
                             char *dead, size_t dead_size) {
    char what[300], *text;
    grader_describe_run(run, what, sizeof what);
    if (run->how == RUN_EXITED && run->code == HARNESS_OK)
        return NULL;
    size_t size = strlen(log) + 600;
    text = malloc(size);
    if (!text)
        return NULL;
    if (run->how == RUN_EXITED && run->code == HARNESS_BUILD) {
        snprintf(text, size, "kernel.cl does not build; the OpenCL build log:\n%s", log);
        snprintf(dead, dead_size, "kernel.cl does not build (see the first test)");
    } else if (run->how == RUN_EXITED && run->code == HARNESS_NO_KERNEL) {
        snprintf(text, size, "%s", log);
        snprintf(dead, dead_size, "the kernel function is missing (see the first test)");
    } else if (run->how == RUN_TOO_BUSY) {
        snprintf(text, size, "at N = %d the kernel run %s", n, what);
        snprintf(dead, dead_size, "the machine was too busy to grade this");
    } else if (run->how == RUN_TIMEOUT) {
        snprintf(text, size, "at N = %d the kernel %s\n%s", n, what, log);
        snprintf(dead, dead_size, "the kernel timed out at N = %d", n);
    } else if (run->how == RUN_EXITED && run->code == HARNESS_BAD_DEVICE) {
        snprintf(text, size, "the device cannot run this exercise:\n%s", log);
        snprintf(dead, dead_size, "the device cannot run this exercise");
    } else if (run->how == RUN_EXITED && run->code == HARNESS_OPENCL) {
        snprintf(text, size, "at N = %d an OpenCL call failed running the kernel:\n%s", n, log);
    } else {
        snprintf(text, size, "at N = %d the kernel run %s\n%s", n, what, log);
    }
    return text;
}

float *grader_load_result(const char *dir, const char *name, size_t want, char *why,
                          size_t why_size) {
    char path[PATH_MAX + 16];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    /* a student's program wrote this folder: only a plain file is read (no FIFO, no link) */
    struct stat st;
    if (lstat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        snprintf(why, why_size, "%s is not a plain file", name);
        return NULL;
    }
    size_t count = 0;
    float *x = clu_load_result(path, &count, why, why_size);
    if (x && count != want) {
        snprintf(why, why_size, "%s holds %zu elements, expected %zu", name, count, want);
        free(x);
        return NULL;
    }
    return x;
}

/* ---------------------------------------------------------------- the tests */

/* One hidden size. Returns 1 if right; *untouched is set when nothing at all was written. */
static int test_size(const struct grader_config *cfg, const struct grader_exercise *ex,
                     const char *kernel, int n, char *dead, size_t dead_size, int *untouched,
                     struct grader_exercise_result *r) {
    char name[64], tag[32];
    snprintf(name, sizeof name, "correct at N=%d", n);
    int pts = ex->points.per_size;
    *untouched = 0;
    if (dead[0]) {
        grader_add_test(r, name, 0, pts, "not run: %s", dead);
        return 0;
    }
    snprintf(tag, sizeof tag, "n%d", n);
    struct harness_run h;
    run_harness(cfg, ex, kernel, n, tag, 0, &h);
    r->too_busy |= h.run.how == RUN_TOO_BUSY;
    char *failure = grader_harness_failure(&h.run, h.log, n, dead, dead_size);
    if (failure) {
        grader_add_test(r, name, 0, pts, "%s", failure);
        free(failure);
        harness_done(&h);
        return 0;
    }
    size_t count = grader_output_count(ex, n), in_count = ex->is_vector ? count : count;
    uint64_t seed = grader_seed_for(cfg->seed, ex, n);
    char why[200] = "";
    float *c = grader_load_result(h.dir, "c.bin", count + HARNESS_GUARD, why, sizeof why);
    float *a = c ? grader_load_result(h.dir, "a.bin", in_count, why, sizeof why) : NULL;
    float *b = a ? grader_load_result(h.dir, "b.bin", in_count, why, sizeof why) : NULL;
    double *expected = NULL, *tol = NULL;
    int ok = 0;
    if (!b) {
        grader_add_test(r, name, 0, pts, "the harness saved no usable output (%s)\n%s", why, h.log);
    } else if (grader_reference(ex, n, seed, &expected, &tol) != 0) {
        grader_add_test(r, name, 0, pts, "grader out of memory at N = %d", n);
    } else {
        struct grader_diagnosis d;
        grader_diagnose(ex, n, seed, c, expected, tol, &d);
        size_t damaged = grader_guard_damage(c + count, HARNESS_GUARD);
        int changed_a = grader_input_changed(a, in_count, seed, 0);
        int changed_b = grader_input_changed(b, in_count, seed, 1);
        char wrong[800] = "";
        if (d.m.wrong)
            grader_describe_wrong(ex, n, &d, wrong, sizeof wrong);
        ok = d.m.wrong == 0 && damaged == 0 && !changed_a && !changed_b;
        *untouched = d.unwritten == count;
        if (ok)
            grader_add_test(r, name, pts, pts, "all %zu elements within tolerance (max error %.2g)",
                            count, d.m.max_err);
        else
            grader_add_test(
                r, name, 0, pts, "%s%s%s%s%s", wrong, wrong[0] && damaged ? "\n" : "",
                damaged ? "wrote past the end of C (the grader keeps a guard zone there): an "
                          "index goes out of bounds"
                        : "",
                changed_a || changed_b ? (wrong[0] || damaged ? "\n" : "") : "",
                changed_a || changed_b ? "changed an input (A or B): the kernel may only read "
                                         "them"
                                       : "");
    }
    free(expected);
    free(tol);
    free(a);
    free(b);
    free(c);
    harness_done(&h);
    return ok;
}

/* Build the student's main.c against the pristine library, run it, check what it saved. */
static void host_program(const struct grader_config *cfg, const struct grader_exercise *ex,
                         const char *kernel, const char *dead, const char *dir,
                         struct grader_exercise_result *r);

static void test_host(const struct grader_config *cfg, const struct grader_exercise *ex,
                      const char *kernel, const char *dead, struct grader_exercise_result *r) {
    char dir[PATH_MAX];
    if (grader_jail_dir_make(dir, sizeof dir) != 0) {
        grader_add_test(r, "host program saves the right result", 0, ex->points.host,
                        "not run: the grader cannot create its folder in /tmp (%s)",
                        strerror(errno));
        return;
    }
    /* no nice level: every run has a session (an autogroup) or a control group of its own, with
     * the same CPU share as any other; a host program niced to 19 starved beside outside load */
    host_program(cfg, ex, kernel, dead, dir, r);
    grader_jail_dir_remove(dir);
}

/* The host program built and run in dir; its logs stay in the work folder. */
static void host_program(const struct grader_config *cfg, const struct grader_exercise *ex,
                         const char *kernel, const char *dead, const char *dir,
                         struct grader_exercise_result *r) {
    const char *name = "host program saves the right result";
    int pts = ex->points.host;
    char src[PATH_MAX], logs[PATH_MAX], main_copy[PATH_MAX + 16], kernel_copy[PATH_MAX + 16];
    char prog[PATH_MAX + 16], log[PATH_MAX + 16], out[PATH_MAX + 16], lib[PATH_MAX + 16],
        inc[PATH_MAX + 4], from[PATH_MAX + 32], to[PATH_MAX + 16];
    snprintf(logs, sizeof logs, "%s/%s/host", cfg->work, ex->id);
    grader_make_dirs(logs);
    /* only main.c and kernel.cl are the student's: the header and library are the workbook's */
    snprintf(main_copy, sizeof main_copy, "%s/main.c", dir);
    snprintf(kernel_copy, sizeof kernel_copy, "%s/kernel.cl", dir);
    snprintf(lib, sizeof lib, "%s/libclu.a", dir);
    snprintf(inc, sizeof inc, "-I%s", dir);
    snprintf(from, sizeof from, "%s/common/clu.h", cfg->root);
    snprintf(to, sizeof to, "%s/clu.h", dir);
    int copied = grader_copy_trusted(from, to) == 0;
    snprintf(from, sizeof from, "%s/build/libclu.a", cfg->root);
    copied &= grader_copy_trusted(from, lib) == 0;
    if (!copied) {
        grader_add_test(r, name, 0, pts, "not run: the grader cannot copy %s", from);
        return;
    }
    char bad[100];
    snprintf(src, sizeof src, "%s/%s/main.c", cfg->submission, ex->id);
    if (grader_copy_source(src, main_copy, bad, sizeof bad) != 0) {
        grader_add_test(r, name, 0, pts, "%s/main.c: %s", ex->id, bad);
        return;
    }
    if (grader_copy_source(kernel, kernel_copy, bad, sizeof bad) != 0) {
        grader_add_test(r, name, 0, pts, "%s/kernel.cl: %s", ex->id, bad);
        return;
    }
    snprintf(prog, sizeof prog, "%s/%s", dir, ex->id);
    snprintf(log, sizeof log, "%s/build.txt", logs);
    char cc[PATH_MAX];
    if (grader_find_program("cc", cc, sizeof cc) != 0)
        snprintf(cc, sizeof cc, "/usr/bin/cc");
    struct grader_argv build = GRADER_ARGV_INIT;
    grader_sandbox_push(&cfg->jail, &cfg->sandbox, dir, &build);
    grader_argv_push_all(&build,
                         (const char *const[]){cc, "-std=c11", "-O2", "-Wall", "-Wextra", inc, "-o",
                                               prog, main_copy, lib, "-lOpenCL", "-lm", NULL});
    struct grader_run_result run;
    remove(prog);
    grader_run_jailed(&cfg->jail, build.argv, dir, log, BUILD_TIMEOUT, &run);
    grader_argv_clear(&build);
    r->too_busy |= run.how == RUN_TOO_BUSY;
    if (run.how != RUN_EXITED || run.code != 0) {
        char *text = grader_read_capped(log, LOG_CAP), what[300];
        grader_describe_run(&run, what, sizeof what);
        grader_add_test(r, name, 0, pts, "main.c does not compile (the compiler %s):\n%s", what,
                        text);
        free(text);
        return;
    }
    if (dead[0]) {
        grader_add_test(r, name, 0, pts, "not run: %s", dead);
        return;
    }
    char n_text[16], seed_text[32];
    uint64_t seed = grader_derive_seed(grader_seed_for(cfg->seed, ex, ex->host_n), "host", 0);
    snprintf(n_text, sizeof n_text, "%d", ex->host_n);
    snprintf(seed_text, sizeof seed_text, "%llu", (unsigned long long)seed);
    snprintf(out, sizeof out, "%s/result.bin", dir);
    snprintf(log, sizeof log, "%s/run.txt", logs);
    remove(out);
    struct grader_argv argv = GRADER_ARGV_INIT;
    int sandboxed = grader_sandbox_push(&cfg->jail, &cfg->sandbox, dir, &argv);
    grader_argv_push_all(&argv, (const char *const[]){prog, "--n", n_text, "--seed", seed_text,
                                                      "--repeats", "1", "--output", out, NULL});
    if (cfg->device) {
        grader_argv_push(&argv, "--device");
        grader_argv_push(&argv, cfg->device);
    }
    grader_run_jailed(&cfg->jail, argv.argv, dir, log, cfg->timeout, &run);
    grader_argv_clear(&argv);
    r->too_busy |= run.how == RUN_TOO_BUSY;
    if (sandboxed && run.how == RUN_EXITED && run.code > 128 && run.code < 128 + 65) {
        /* bubblewrap passes on a signal death as status 128 + signal */
        run.how = RUN_SIGNALED;
        run.code -= 128;
    }
    char *text = grader_read_capped(log, LOG_CAP), what[300], why[200];
    grader_describe_run(&run, what, sizeof what);
    size_t count = grader_output_count(ex, ex->host_n);
    float *c = grader_load_result(dir, "result.bin", count, why, sizeof why);
    double *expected = NULL, *tol = NULL;
    if (run.how != RUN_EXITED) {
        grader_add_test(r, name, 0, pts, "`%s --n %d` %s; its output:\n%s", ex->id, ex->host_n,
                        what, text);
    } else if (!c) {
        grader_add_test(r, name, 0, pts,
                        "the program %s but saved no result matrix with --output (%s). The "
                        "grader checks the numbers your program computes, never what it "
                        "prints; its output:\n%s",
                        what, why, text);
    } else if (grader_reference(ex, ex->host_n, seed, &expected, &tol) != 0) {
        grader_add_test(r, name, 0, pts, "grader out of memory");
    } else {
        struct grader_diagnosis d;
        grader_diagnose(ex, ex->host_n, seed, c, expected, tol, &d);
        char wrong[800];
        if (d.m.wrong == 0) {
            grader_add_test(r, name, pts, pts, "`%s --n %d` saved a right result", ex->id,
                            ex->host_n);
        } else {
            grader_describe_wrong(ex, ex->host_n, &d, wrong, sizeof wrong);
            grader_add_test(r, name, 0, pts, "`%s --n %d` saved a wrong result: %s", ex->id,
                            ex->host_n, wrong);
        }
    }
    free(expected);
    free(tol);
    free(c);
    free(text);
}

/* oclgrind's log: entries separated by blank lines, each opening with what was found, e.g.
 * "Invalid write of size 4 at global memory address ..." or "Read-write data race at local ...".
 * Summarise it as counts by kind, a hint, and the first two entries in full (with source line). */
static char *summarise_oclgrind(const char *log) {
    static const char out_of_bounds[] =
        "an index goes past the end of a buffer (check the loop bounds and i*N + j)";
    static const struct {
        const char *needle, *what, *hint;
    } kinds[] = {
        {"Invalid read", "out-of-bounds reads", out_of_bounds},
        {"Invalid write", "out-of-bounds writes", out_of_bounds},
        {"data race at local", "data races in local memory",
         "work-items of a group read and write the same local memory with no "
         "barrier(CLK_LOCAL_MEM_FENCE) between: fill, barrier, use, barrier before refilling"},
        {"data race at global", "data races in global memory",
         "two work-items write the same element of C, or one reads what another writes"},
        {"ninitiali", "uses of uninitialised values",
         "a value is read before anything was written to it: a private variable without a "
         "start value (float tmp; instead of float tmp = 0.0f;), or local memory read before "
         "the work-items that fill it reached a barrier(CLK_LOCAL_MEM_FENCE)"},
        {"divergence", "barrier divergences",
         "every work-item of a group must reach the same barriers: a barrier inside an if, or "
         "after a return that only some work-items take, breaks the group"},
        {"rror detected", "OpenCL API errors", "a call the harness made was refused"},
    };
    size_t counts[sizeof kinds / sizeof kinds[0]] = {0}, other = 0;
    size_t size = strlen(log) + 2000;
    char *text = malloc(size);
    if (!text)
        return NULL;
    /* count the entries: a line at the start of the log or after a blank line */
    for (const char *p = log; *p;) {
        while (*p == '\n')
            p++;
        if (!*p)
            break;
        int known = 0;
        const char *eol = strchr(p, '\n');
        size_t len = eol ? (size_t)(eol - p) : strlen(p);
        for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
            const char *hit = strstr(p, kinds[k].needle);
            if (hit && hit < p + len) {
                counts[k]++;
                known = 1;
                break;
            }
        }
        other += !known && strncmp(p, "Oclgrind:", 9) != 0;
        const char *blank = strstr(p, "\n\n");
        p = blank ? blank + 2 : p + strlen(p);
    }
    int used = snprintf(text, size, "oclgrind found:");
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++)
        if (counts[k])
            used +=
                snprintf(text + used, size - (size_t)used, " %zu %s;", counts[k], kinds[k].what);
    if (other)
        used += snprintf(text + used, size - (size_t)used, " %zu other messages;", other);
    const char *last_hint = NULL;
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++)
        if (counts[k] && kinds[k].hint != last_hint) {
            used += snprintf(text + used, size - (size_t)used, "\nhint: %s", kinds[k].hint);
            last_hint = kinds[k].hint;
        }
    /* the first two entries in full */
    const char *start = log;
    while (*start == '\n')
        start++;
    const char *cut = start;
    for (int e = 0; e < 2 && cut; e++) {
        cut = strstr(cut, "\n\n");
        if (cut)
            cut += 2;
    }
    size_t keep = cut ? (size_t)(cut - start) : strlen(start);
    snprintf(text + used, size - (size_t)used, "\nthe first findings:\n%.*s", (int)keep, start);
    return text;
}

static void test_memcheck(const struct grader_config *cfg, const struct grader_exercise *ex,
                          const char *kernel, const char *dead, struct grader_exercise_result *r) {
    const char *name = "memory check (oclgrind): bounds, races, uninitialised values, barriers";
    int pts = ex->points.memcheck;
    char oclgrind[PATH_MAX];
    if (dead[0]) {
        grader_add_test(r, name, 0, pts, "not run: %s", dead);
        return;
    }
    if (grader_find_program("oclgrind", oclgrind, sizeof oclgrind) != 0) {
        grader_add_test(r, name, 0, pts,
                        "not run: oclgrind is not installed (apt-get install oclgrind)");
        return;
    }
    char log[PATH_MAX + 32];
    struct harness_run h;
    run_harness(cfg, ex, kernel, ex->memcheck_n, "memcheck", 1, &h);
    r->too_busy |= h.run.how == RUN_TOO_BUSY;
    snprintf(log, sizeof log, "%s/oclgrind.txt", h.dir);
    char *found = grader_read_capped(log, 1 << 20), what[300]; /* whole, to count findings */
    grader_describe_run(&h.run, what, sizeof what);
    int clean = strspn(found, " \t\n") == strlen(found); /* the log holds only findings */
    if (h.run.how == RUN_EXITED && h.run.code == HARNESS_OK && clean) {
        grader_add_test(r, name, pts, pts, "clean at N = %d", ex->memcheck_n);
    } else if (!clean) {
        char *summary = summarise_oclgrind(found);
        grader_add_test(r, name, 0, pts, "at N = %d %s", ex->memcheck_n, summary ? summary : found);
        free(summary);
    } else {
        grader_add_test(r, name, 0, pts, "the run under oclgrind at N = %d %s\n%s", ex->memcheck_n,
                        what, h.log);
    }
    free(found);
    harness_done(&h);
}

/* Memory traffic of a kernel at memcheck_n, counted under oclgrind in the work folder `tag`:
 * 0, or -1 with t->why set. */
static int count_traffic(const struct grader_config *cfg, const struct grader_exercise *ex,
                         const char *kernel, const char *tag, struct grader_traffic *t) {
    (void)tag;
    struct grader_jail j;
    if (grader_jail_open(cfg->self, kernel, &j) != 0) {
        memset(t, 0, sizeof *t);
        snprintf(t->why, sizeof t->why, "the grader cannot prepare its folder in /tmp");
        return -1;
    }
    struct grader_argv prefix = GRADER_ARGV_INIT;
    struct grader_jail_settings js = cfg->jail;
    js.kernel_cache = kernel_cache;
    grader_sandbox_push(&js, &cfg->sandbox, j.dir, &prefix);
    grader_argv_push(&prefix, "--"); /* bench_traffic stops at NULL: a placeholder, dropped below */
    free(prefix.argv[--prefix.count]);
    prefix.argv[prefix.count] = NULL;
    int status = grader_traffic(j.self, ex, j.kernel, ex->block, ex->memcheck_n, j.dir, t,
                                (const char *const *)prefix.argv, &js, j.dir);
    grader_argv_clear(&prefix);
    grader_jail_dir_remove(j.dir);
    return status;
}

/* The reference kernel's traffic: the same for every student, so counted once per cache folder
 * (a batch shares one) and kept in a file written whole and renamed into place. */
static int reference_traffic(const struct grader_config *cfg, const struct grader_exercise *ex,
                             const char *reference, struct grader_traffic *t) {
    char path[PATH_MAX + 128] = "", tmp[PATH_MAX + 160];
    uint64_t h = grader_file_hash(reference);
    if (cfg->cache && h) {
        grader_make_dirs(cfg->cache);
        snprintf(path, sizeof path, "%s/traffic-%s-%d-%016llx.txt", cfg->cache, ex->id,
                 ex->memcheck_n, (unsigned long long)h);
        FILE *f = fopen(path, "r");
        int got = f && fscanf(f, "%lf %lf %lf %lf", &t->global_loads, &t->global_stores,
                              &t->local_loads, &t->local_stores) == 4;
        if (f)
            fclose(f);
        if (got) {
            t->n = ex->memcheck_n;
            return 0;
        }
    }
    if (count_traffic(cfg, ex, reference, "traffic-reference", t) != 0)
        return -1;
    if (path[0]) {
        /* a name of its own: parallel graders (each pid 2 in its sandbox) never share it */
        snprintf(tmp, sizeof tmp, "%s.XXXXXX", path);
        int fd = mkstemp(tmp);
        FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
        if (!f && fd >= 0)
            close(fd);
        if (f) {
            fprintf(f, "%.17g %.17g %.17g %.17g\n", t->global_loads, t->global_stores,
                    t->local_loads, t->local_stores);
            if (fclose(f) != 0 || rename(tmp, path) != 0)
                remove(tmp);
        }
    }
    return 0;
}

/* The student's memory traffic beside the reference's (make bench's columns), for the report:
 * the measured form of "for every memory access, as many flops as possible". "" when either
 * could not be counted (the memory check says why). */
static void traffic_rows(const struct grader_config *cfg, const struct grader_exercise *ex,
                         const struct grader_traffic *mine, const char *reference, char *out,
                         size_t size) {
    struct grader_traffic ref;
    out[0] = '\0';
    if (!mine || reference_traffic(cfg, ex, reference, &ref) != 0)
        return;
    const struct grader_traffic *rows[2] = {mine, &ref};
    const char *who[2] = {"yours     ", "reference "};
    int used = snprintf(out, size,
                        "\nmemory traffic per multiply-add (oclgrind, N = %d):", ex->memcheck_n);
    for (int w = 0; w < 2 && used > 0 && (size_t)used < size; w++)
        used += snprintf(out + used, size - (size_t)used,
                         "\n%s global %.3f loads, %.3f stores; local %.3f loads, %.3f stores",
                         who[w], rows[w]->global_loads, rows[w]->global_stores,
                         rows[w]->local_loads, rows[w]->local_stores);
}

/* The step's technique, from the memory traffic oclgrind counts in the student's kernel. */
static void test_technique(const struct grader_exercise *ex, int all_right,
                           const struct grader_traffic *got, struct grader_exercise_result *r) {
    const struct grader_technique *t = &ex->technique;
    char name[120];
    int pts = ex->points.technique;
    snprintf(name, sizeof name, "technique: %s", t->what);
    if (!all_right) {
        grader_add_test(r, name, 0, pts,
                        "not checked: the kernel must first be right at every size");
        return;
    }
    if (got->why[0]) {
        grader_add_test(r, name, 0, pts, "not checked: %s", got->why);
        return;
    }
    int global_ok = t->max_global_loads <= 0 || got->global_loads <= t->max_global_loads;
    int local_ok = t->min_local_loads <= 0 || got->local_loads >= t->min_local_loads;
    char global_bound[64] = "", local_bound[64] = "";
    if (t->max_global_loads > 0)
        snprintf(global_bound, sizeof global_bound, " (this step: at most %.2f)",
                 t->max_global_loads);
    if (t->min_local_loads > 0)
        snprintf(local_bound, sizeof local_bound, " (this step: at least %.2f)",
                 t->min_local_loads);
    grader_add_test(r, name, global_ok && local_ok ? pts : 0, pts,
                    "loads per multiply-add counted by oclgrind at N = %d: global %.3f%s, local "
                    "%.3f%s%s",
                    ex->memcheck_n, got->global_loads, global_bound, got->local_loads, local_bound,
                    global_ok && local_ok
                        ? ""
                        : "\nhint: the result is right but the step's technique does not show: "
                          "where does each operand come from in the inner loop?");
}

static void test_perf(const struct grader_config *cfg, const struct grader_exercise *ex,
                      const char *kernel, int all_right, const struct grader_traffic *mine,
                      struct grader_exercise_result *r) {
    const char *name = "performance against the reference solution";
    int pts = ex->points.perf;
    if (!all_right) {
        grader_add_test(r, name, 0, pts, "not timed: the kernel must first be right at every size");
        return;
    }
    char reference[PATH_MAX], text[4000], traffic[400] = "";
    snprintf(reference, sizeof reference, "%s/solutions/%s/kernel.cl", cfg->root, ex->id);
    int earned = 0, too_busy = 0;
    struct grader_config timed = *cfg; /* its jailed runs share the exercise's kernel cache */
    timed.jail.kernel_cache = kernel_cache;
    grader_perf_test(&timed, ex, kernel, reference, &r->gflops, &r->ref_gflops, text, sizeof text,
                     &earned, &too_busy);
    r->too_busy |= too_busy;
    if (earned && !ex->is_vector)
        traffic_rows(cfg, ex, mine, reference, traffic, sizeof traffic);
    grader_add_test(r, name, earned ? pts : 0, pts, "%s%s", text, traffic);
}

void grader_grade_exercise(const struct grader_config *cfg, const struct grader_exercise *ex,
                           struct grader_exercise_result *r) {
    memset(r, 0, sizeof *r);
    r->ex = ex;
    if (!ex->kernel) { /* no OpenCL kernel: a quiz and a CUDA twin, as the row says */
        int first_question = r->test_count, unanswered = 1;
        if (ex->quiz[0].id)
            grader_quiz_tests(cfg, ex, r);
        for (int t = first_question; t < r->test_count; t++)
            unanswered &= strncmp(r->tests[t].output, "no answer", 9) == 0;
        int cuda_untouched = 1;
        if (ex->cuda_per_size) {
            grader_cuda_tests(cfg, ex, r); /* not_implemented: kernel.cu wrote nothing */
            cuda_untouched = r->not_implemented ||
                             strncmp(r->tests[r->test_count - 1].output, "skipped", 7) == 0;
        }
        r->not_implemented = unanswered && cuda_untouched && grader_result_score(r) == 0;
        return;
    }
    /* the memory check and the technique at a size drawn from the hidden seed, printed only
     * afterwards: a kernel cannot behave at one known size and differently at the others */
    struct grader_exercise drawn = *ex;
    drawn.memcheck_n = grader_memcheck_size(ex, grader_derive_seed(cfg->seed, ex->id, -1));
    ex = &drawn;
    char kernel[PATH_MAX + 128], dead[200] = "", src[PATH_MAX], work[PATH_MAX + 32], why[100];
    /* a fresh work folder: nothing of an earlier run or submission can be picked up */
    snprintf(work, sizeof work, "%s/%s", cfg->work, ex->id);
    grader_remove_tree(work);
    grader_make_dirs(work);
    /* every run uses the grader's own checked copy of kernel.cl */
    snprintf(src, sizeof src, "%s/%s/kernel.cl", cfg->submission, ex->id);
    snprintf(kernel, sizeof kernel, "%s/kernel.cl", work);
    if (!exists(src))
        snprintf(dead, sizeof dead, "%s/kernel.cl is missing from the submission", ex->id);
    else if (grader_copy_source(src, kernel, why, sizeof why) != 0)
        snprintf(dead, sizeof dead, "%s/kernel.cl: %s", ex->id, why);
    /* every build (device, oclgrind, traffic count, timing, the host program) compiles one
     * text: the grader's own preprocessing of kernel.cl (canon.c), so no build can take another
     * branch than the others, and nothing is included */
    char canonical[PATH_MAX + 96], refusal[400] = "";
    snprintf(canonical, sizeof canonical, "%s/kernel.canonical.cl", work);
    if (!dead[0] && grader_canonicalise(kernel, canonical, ex->block, refusal, sizeof refusal) != 0)
        snprintf(dead, sizeof dead, "%s/%.*s", ex->id, (int)(sizeof dead - 64), refusal);
    if (!dead[0])
        snprintf(kernel, sizeof kernel, "%s", canonical);

    /* one POCL cache for the kernel runs of this exercise, handed to the student's uid */
    char cache[PATH_MAX] = "";
    if (grader_jail_dir_make(cache, sizeof cache) == 0 &&
        (grader_jail_uid() == (uid_t)-1 || chown(cache, grader_jail_uid(), grader_jail_uid()) == 0))
        kernel_cache = cache;
    int passed = 0, sizes = 0, untouched_all = 1, passed_only_16 = 1, failed_not_16 = 1;
    for (; sizes < GRADER_MAX_SIZES && ex->sizes[sizes]; sizes++) {
        int n = ex->sizes[sizes], untouched = 0;
        int ok = test_size(cfg, ex, kernel, n, dead, sizeof dead, &untouched, r);
        passed += ok;
        untouched_all &= untouched;
        if (ok && n % 16 != 0)
            passed_only_16 = 0;
        if (!ok && n % 16 == 0)
            failed_not_16 = 0;
    }
    if (passed > 0 && passed < sizes && passed_only_16 && failed_not_16) {
        struct grader_test *last = &r->tests[r->test_count - 1];
        char *more = malloc(strlen(last->output) + 200);
        if (more) {
            sprintf(more,
                    "%s\nhint: right only at sizes that are multiples of 16: does the "
                    "kernel assume N is one?",
                    last->output);
            free(last->output);
            last->output = more;
        }
    }
    test_host(cfg, ex, kernel, dead, r);
    if (!dead[0] && untouched_all) /* a clean check of a kernel that writes nothing is no merit */
        snprintf(dead, sizeof dead, "the kernel writes nothing to C yet");
    if (cfg->memcheck)
        test_memcheck(cfg, ex, kernel, dead, r);
    else
        grader_add_test(r, "memory check (oclgrind): bounds, races, uninitialised values, barriers",
                        0, 0,
                        "skipped: the memory check was switched off (--no-memcheck), so its %d "
                        "point%s and the technique's are left out of the maximum",
                        ex->points.memcheck, ex->points.memcheck == 1 ? "" : "s");
    /* the kernel's memory traffic, counted once: for the technique and for the report */
    struct grader_traffic traffic = {0};
    int counted = 0;
    if (passed == sizes && !ex->is_vector && cfg->memcheck)
        counted = count_traffic(cfg, ex, kernel, "traffic", &traffic) == 0;
    if (ex->points.technique > 0 && cfg->memcheck)
        test_technique(ex, passed == sizes, &traffic, r);
    else if (ex->points.technique > 0)
        grader_add_test(r, "technique: counted by oclgrind", 0, 0,
                        "skipped: oclgrind's counts were switched off (--no-memcheck)");
    if (cfg->perf)
        test_perf(cfg, ex, kernel, passed == sizes, counted ? &traffic : NULL, r);
    else
        grader_add_test(r, "performance against the reference solution", 0, 0,
                        "skipped: timing was switched off (--no-perf), so its point is left out "
                        "of the maximum");
    r->not_implemented = untouched_all && passed == 0;
    kernel_cache = NULL;
    if (cache[0])
        grader_jail_dir_remove(cache);
}
