/* host_test.c - the student's host program: main.c built against the pristine common/ library,
 * run jailed at host_n with the grader's OpenCL layer in it, and the result it saved checked
 * against the reference. A right result earns the points only where the layer saw the program
 * build kernel.cl and enqueue its kernel at the exercise's geometry (host_launches.c); it is then
 * run once more under oclgrind (host_oclgrind.c), whose findings can take the points. */
#include "grade/internal.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#define BUILD_TIMEOUT    120  /* seconds for compiling a student's main.c */
#define NOTE_SIZE        8000 /* bytes of the run under oclgrind's part of the report */
#define LAUNCH_NOTE_SIZE 2000 /* bytes of what the grader's OpenCL layer saw */
#define GUARD_NOTE_SIZE  1500 /* bytes of the writes past a buffer's end it found */

void grade_push_host_size(struct grader_argv *argv, const struct grader_exercise *ex,
                          struct grader_size s, int check) {
    grader_argv_push(argv, "--n");
    grader_argv_pushf(argv, "%d", s.n);
    if (ex->rectangular) {
        grader_argv_push(argv, "--m");
        grader_argv_pushf(argv, "%d", s.m);
        grader_argv_push(argv, "--k");
        grader_argv_pushf(argv, "%d", s.k);
    }
    struct grader_variant v = grader_variant_of(ex, 0, check);
    for (int t = 0; check && v.tuning && t < CLU_MAX_DEFINES && v.tuning[t].name; t++) {
        grader_argv_push(argv, "--define");
        grader_argv_pushf(argv, "%s=%d", v.tuning[t].name, v.tuning[t].value);
    }
}

void grade_host_command(const struct grader_exercise *ex, struct grader_size s, char *buf,
                        size_t size) {
    if (ex->rectangular)
        snprintf(buf, size, "%s --m %d --n %d --k %d", ex->id, s.m, s.n, s.k);
    else
        snprintf(buf, size, "%s --n %d", ex->id, s.n);
}

/* Whether the kernel passed every correctness test so far (at least one): the grader launched it
 * itself, so a wrong result from the host program is main.c's to explain. */
static int kernel_tests_pass(const struct grader_exercise_result *r) {
    int seen = 0;
    for (int i = 0; i < r->test_count; i++)
        if (strstr(r->tests[i].name, "correct at")) {
            if (r->tests[i].verdict != GRADER_PASS)
                return 0;
            seen++;
        }
    return seen > 0;
}

/* Build the student's main.c against the pristine library, run it, check what it saved. */
static void host_program(const struct grader_config *cfg, const struct grader_exercise *ex,
                         const char *kernel, const struct grade_build *graded, const char *dead,
                         const char *dir, struct grader_exercise_result *r);

void grade_test_host(const struct grader_config *cfg, const struct grader_exercise *ex,
                     const char *kernel, const struct grade_build *graded, const char *dead,
                     struct grader_exercise_result *r) {
    char dir[PATH_MAX];
    if (grader_jail_dir_make(dir, sizeof dir) != 0) {
        grader_add_verdict(
            r, GRADER_NOT_RUN, "host program saves the right result", 0, ex->points.host,
            "not run: the grader cannot create its folder in /tmp (%s)", strerror(errno));
        return;
    }
    /* no nice level: every run has a session (an autogroup) or a control group of its own, with
     * the same CPU share as any other; a host program niced to 19 starved beside outside load */
    host_program(cfg, ex, kernel, graded, dead, dir, r);
    grader_jail_dir_remove(dir);
}

/* The host program built and run in dir; its logs stay in the work folder. */
static void host_program(const struct grader_config *cfg, const struct grader_exercise *ex,
                         const char *kernel, const struct grade_build *graded, const char *dead,
                         const char *dir, struct grader_exercise_result *r) {
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
        grader_add_verdict(r, GRADER_NOT_RUN, name, 0, pts, "not run: the grader cannot copy %s",
                           from);
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
        char *shown = grade_host_paths_rewrite(text ? text : "", dir, ex->id);
        grader_describe_run(&run, what, sizeof what);
        grader_add_test(r, name, 0, pts, "%s/main.c does not compile (the compiler %s):\n%s",
                        ex->id, what, shown ? shown : "(grader out of memory)");
        free(shown);
        free(text);
        return;
    }
    if (dead[0]) {
        grader_add_verdict(r, GRADER_NOT_RUN, name, 0, pts, "not run: %s", dead);
        return;
    }
    /* main.c's text (the grader's copy, before any of the student's code ran) for the hints, and
     * oclgrind's folder readied while nothing of the student's has run yet */
    char *main_text = clu_read_file(main_copy, NULL);
    struct host_oclgrind og;
    grade_host_oclgrind_prepare(cfg, graded, prog, &og);
    char seed_text[32], command[120];
    struct grader_size size = grader_host_size(ex);
    uint64_t seed = grader_derive_seed(grader_seed_for(cfg->seed, ex, size), "host", 0);
    snprintf(seed_text, sizeof seed_text, "%llu", (unsigned long long)seed);
    grade_host_command(ex, size, command, sizeof command);
    snprintf(out, sizeof out, "%s/result.bin", dir);
    snprintf(log, sizeof log, "%s/run.txt", logs);
    remove(out);
    /* the grader's OpenCL layer in the run: the host points need a launch it saw */
    struct host_launches launches;
    grade_host_launches_prepare(cfg, dir, &launches);
    struct grader_jail_settings js = grade_host_launches_jail(&cfg->jail, &launches);
    struct grader_argv argv = GRADER_ARGV_INIT;
    int sandboxed = grader_sandbox_push(&js, &cfg->sandbox, dir, &argv);
    grade_host_launches_push(&launches, &argv);
    grader_argv_push(&argv, prog);
    grade_push_host_size(&argv, ex, size, 0);
    grader_argv_push_all(
        &argv, (const char *const[]){"--seed", seed_text, "--repeats", "1", "--output", out, NULL});
    if (cfg->device) {
        grader_argv_push(&argv, "--device");
        grader_argv_push(&argv, cfg->device);
    }
    grader_run_jailed(&js, argv.argv, dir, log, cfg->timeout, &run);
    grader_argv_clear(&argv);
    r->too_busy |= run.how == RUN_TOO_BUSY;
    if (sandboxed && run.how == RUN_EXITED && run.code > 128 && run.code < 128 + 65) {
        /* bubblewrap passes on a signal death as status 128 + signal */
        run.how = RUN_SIGNALED;
        run.code -= 128;
    }
    char *text = grader_read_capped(log, LOG_CAP), what[300], why[200];
    for (size_t end = text ? strlen(text) : 0; end > 0 && text[end - 1] == '\n';)
        text[--end] = '\0'; /* (what follows it starts its own line) */
    grader_describe_run(&run, what, sizeof what);
    size_t count = grader_output_count(ex, size);
    float *c = grader_load_result(dir, "result.bin", count, why, sizeof why);
    double *expected = NULL, *tol = NULL;
    /* (a program that printed nothing is told so, not shown an empty output) */
    const char *said = text && text[0] ? "its output:\n" : "it printed nothing",
               *output = text && text[0] ? text : "";
    /* what the layer saw, for a run that failed: the launches beside the exercise's */
    char failed_seen[LAUNCH_NOTE_SIZE] = "";
    if (run.how != RUN_EXITED || !c)
        grade_host_launches_seen(ex, size, &launches, failed_seen, sizeof failed_seen);
    /* a write past a buffer's end, seen in the layer's guard zones: lost even with C right */
    char past[GUARD_NOTE_SIZE];
    int wrote_past = grade_host_launches_guards(ex, &launches, past, sizeof past);
    if (run.how != RUN_EXITED) {
        grader_add_test(r, name, 0, pts, "`%s` %s; %s%s%s%s", command, what, said, output, past,
                        failed_seen);
    } else if (!c) {
        grader_add_test(r, name, 0, pts,
                        "`%s` %s but saved no result matrix with --output (%s). The "
                        "grader checks the numbers your program computes, never what it "
                        "prints; %s%s%s%s",
                        command, what, why, said, output, past, failed_seen);
    } else if (grader_reference(ex, size, seed, &expected, &tol) != 0) {
        grader_add_test(r, name, 0, pts, "grader out of memory");
    } else {
        struct grader_diagnosis d;
        grader_diagnose(ex, size, seed, c, expected, tol, &d);
        char wrong[1200] = "", seen[LAUNCH_NOTE_SIZE];
        char *note = malloc(NOTE_SIZE);
        if (d.m.wrong == 0) /* an earlier run's picture of a wrong C goes */
            grade_picture(cfg, ex, "host-C", size, c, expected, tol, 0, wrong, sizeof wrong);
        if (d.m.wrong == 0 && !note) {
            grader_add_test(r, name, 0, pts, "grader out of memory");
        } else if (d.m.wrong == 0 && !grade_host_launches_judge(cfg, ex, size, kernel, &launches,
                                                                &r->too_busy, seen, sizeof seen)) {
            /* no launch of the kernel: nothing for oclgrind to judge */
            grader_add_test(r, name, 0, pts, "`%s` saved a right result%s", command, seen);
        } else if (d.m.wrong == 0 && wrote_past) {
            grader_add_test(r, name, 0, pts,
                            "`%s` saved a right result, but its kernel wrote outside a buffer%s%s",
                            command, past, seen);
        } else if (d.m.wrong == 0) {
            int lost = grade_host_oclgrind(cfg, &og, main_text ? main_text : "", note, NOTE_SIZE,
                                           &r->too_busy);
            char held[400];
            grade_host_launches_hygiene(&launches, held, sizeof held);
            grader_add_test(r, name, lost ? 0 : pts, pts, "`%s` saved a right result%s%s%s",
                            command, note, seen, held);
        } else {
            /* a hint read off C's pattern speaks of the kernel's indices; where the kernel's
             * own tests pass, main.c fed it wrong: the pattern is said as main.c's */
            int kernel_right = kernel_tests_pass(r);
            if (kernel_right && d.hint[0]) {
                char pattern[sizeof d.hint];
                snprintf(pattern, sizeof pattern, "%s", d.hint);
                snprintf(d.hint, sizeof d.hint,
                         "kernel.cl passed its own tests above, where the grader launched it: "
                         "look at what main.c hands it. C's pattern: %.400s",
                         pattern);
            } else if (kernel_right) {
                snprintf(d.hint, sizeof d.hint,
                         "kernel.cl passed its own tests above, where the grader launched it: "
                         "look at what main.c hands it (the order of clSetKernelArg's arguments "
                         "against the kernel's parameters, the sizes, the global and local "
                         "sizes below)");
            }
            if (kernel_right && strstr(d.hint, "C holds B*A"))
                snprintf(d.hint, sizeof d.hint,
                         "C holds B*A, not A*B, and kernel.cl passed its own tests above: main.c "
                         "hands B where the kernel takes A, and A where it takes B (the argument "
                         "indices of clSetKernelArg against the kernel's parameters)");
            grader_describe_wrong(ex, size, &d, wrong, sizeof wrong);
            grade_picture(cfg, ex, "host-C", size, c, expected, tol,
                          d.unwritten < grader_output_count(ex, size), wrong, sizeof wrong);
            grade_host_launches_seen(ex, size, &launches, seen, sizeof seen);
            grader_add_test(r, name, 0, pts, "`%s` saved a wrong result: %s%s%s", command, wrong,
                            past, seen);
        }
        free(note);
    }
    grade_host_oclgrind_done(&og);
    grade_host_launches_done(&launches);
    free(main_text);
    free(expected);
    free(tol);
    free(c);
    free(text);
}
