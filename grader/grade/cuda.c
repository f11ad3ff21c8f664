/* cuda.c - the CUDA twin's tests: the student's kernel.cu built with nvcc and run by the CUDA
 * harness child (child/cuda_harness.c) at the hidden sizes, checked like every OpenCL kernel, and
 * timed beside a reference OpenCL kernel on the same GPU (the row's cuda_beside, or its own).
 * 06's twin is mmul_blocked(N, ...) built with -DBLOCK; a row with tuning values (the capstone)
 * has its twin built with those values (cuda_tuning where CUDA needs others) and launched on its
 * OpenCL geometry, block for work-group. Where nvcc, the driver or an NVIDIA GPU is missing, the
 * CUDA part is one test worth 0 of 0 saying why (skipped, no points lost).
 */
#define _GNU_SOURCE
#include "grade/cuda_build.h"
#include "grade/grade.h"
#include "exercise/protocol.h"
#include "exercise/tuning.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#define LOG_CAP       6000 /* bytes of a child's output shown in a report */
#define PROBE_TIMEOUT 60   /* seconds for the probe (the first cuInit can be slow) */
/* the largest N at which one timed launch's C is checked element by element (the grader's
 * reference in doubles: N^3 multiply-adds on the CPU); above it Freivalds' check serves alone */
#define FULL_CHECK_MAX 1024

/* ---------------------------------------------------------------- the grader's side */

/* How the twin is built and launched: BLOCK, or the row's tuning values and its geometry. */
struct cuda_twin {
    const struct grader_exercise *ex;
    struct grader_values values; /* the row's tuning values as nvcc gets them (none: BLOCK) */
    struct grader_variant variant;
    int block;
};

/* One launch of the twin: its size, and its grid and blocks where the row has tuning values. */
struct cuda_shape {
    struct grader_size size;
    size_t groups[2], threads[2];
};

/* The twin's launch at size s: 0, or -1 with why when its values do not fit the launch. */
static int cuda_shape_of(const struct cuda_twin *t, struct grader_size s, struct cuda_shape *shape,
                         char *why, size_t why_size) {
    memset(shape, 0, sizeof *shape);
    shape->size = s;
    if (!t->variant.tuning)
        return 0;
    struct grader_launch l;
    if (grader_plan_launch(t->ex, NULL, s, &t->variant, &l) != 0) {
        snprintf(why, why_size, "the row's tuning values do not fit its launch");
        return -1;
    }
    for (int d = 0; d < 2; d++) {
        shape->threads[d] = l.local[d];
        shape->groups[d] = l.global[d] / l.local[d];
    }
    return 0;
}

struct cuda_run {
    struct grader_run_result run;
    char dir[PATH_MAX]; /* its jail, where it saved its files (removed by cuda_run_done) */
    char *log;          /* its output, capped */
};

/* `grader --cuda-harness ...` jailed like the OpenCL harness (the student's module runs in its
 * process): the student's uid, the jail's limits and the sandbox, in a folder of its own holding
 * copies of the grader and of the module (the uid may not reach the originals). Its log goes to
 * a folder `tag` under the CUDA work folder; h->dir is the jail, removed by cuda_run_done. */
static void run_cuda_harness(const struct grader_config *cfg, const char *work, const char *tag,
                             const char *module, const struct cuda_twin *t,
                             const struct cuda_shape *shape, uint64_t seed, int timed,
                             struct cuda_run *h) {
    memset(h, 0, sizeof *h);
    char logs[PATH_MAX], log[PATH_MAX + 16], self[PATH_MAX + 16], cubin[PATH_MAX + 16], why[100];
    snprintf(logs, sizeof logs, "%s/%s", work, tag);
    grader_make_dirs(logs);
    snprintf(log, sizeof log, "%s/log.txt", logs);
    if (grader_jail_dir_make(h->dir, sizeof h->dir) != 0) {
        grader_jail_dir_remove(h->dir); /* its top folder, if made */
        h->dir[0] = '\0';
        h->run.how = RUN_NO_START;
        h->log = strdup("the grader cannot prepare its folder in /tmp");
        return;
    }
    snprintf(self, sizeof self, "%s/grader", h->dir);
    snprintf(cubin, sizeof cubin, "%s/kernel.fatbin", h->dir);
    if (grader_copy_trusted(cfg->self, self) != 0 || chmod(self, 0755) != 0 ||
        (module && grader_copy_source(module, cubin, why, sizeof why) != 0)) {
        h->run.how = RUN_NO_START;
        h->log = strdup("the grader cannot copy itself and the module into its folder in /tmp");
        return;
    }
    struct grader_argv argv = GRADER_ARGV_INIT;
    grader_sandbox_push(&cfg->jail, &cfg->sandbox, h->dir, &argv);
    grader_argv_push_all(&argv,
                         (const char *const[]){self, CUDA_HARNESS_COMMAND, FLAG_OUT, h->dir, NULL});
    if (!module) {
        grader_argv_push(&argv, FLAG_PROBE);
    } else {
        grader_argv_push_all(&argv, (const char *const[]){FLAG_CUBIN, cubin, FLAG_N, NULL});
        grader_argv_pushf(&argv, "%d", shape->size.n);
        grader_argv_push(&argv, FLAG_SEED);
        grader_argv_pushf(&argv, "%llu", (unsigned long long)seed);
        if (!t->variant.tuning) {
            grader_argv_push(&argv, FLAG_BLOCK);
            grader_argv_pushf(&argv, "%d", t->block);
        } else {
            grader_argv_push_all(&argv, (const char *const[]){FLAG_EX, t->ex->id, FLAG_M, NULL});
            grader_argv_pushf(&argv, "%d", shape->size.m);
            grader_argv_push(&argv, FLAG_K);
            grader_argv_pushf(&argv, "%d", shape->size.k);
            const char *flags[4] = {FLAG_GROUPS_X, FLAG_GROUPS_Y, FLAG_THREADS_X, FLAG_THREADS_Y};
            size_t values[4] = {shape->groups[0], shape->groups[1], shape->threads[0],
                                shape->threads[1]};
            for (int i = 0; i < 4; i++) {
                grader_argv_push(&argv, flags[i]);
                grader_argv_pushf(&argv, "%zu", values[i]);
            }
        }
        if (timed)
            grader_argv_push(&argv, FLAG_TIME);
    }
    double limit = !module ? PROBE_TIMEOUT : timed ? 3 * cfg->timeout : cfg->timeout;
    grader_run_jailed(&cfg->jail, argv.argv, h->dir, log, limit, &h->run);
    grader_argv_clear(&argv);
    h->log = grader_read_capped(log, LOG_CAP);
}

static void cuda_run_done(struct cuda_run *h) {
    free(h->log);
    h->log = NULL;
    if (h->dir[0])
        grader_jail_dir_remove(h->dir);
    h->dir[0] = '\0';
}

static int exited_with(const struct grader_run_result *run, int code) {
    return run->how == RUN_EXITED && run->code == code;
}

/* Check what a harness run at size n saved. Returns 1 if right; *untouched when nothing was
 * written. why gets the report's text. */
static int check_output(const struct grader_exercise *ex, const char *dir, struct grader_size s,
                        uint64_t seed, int *untouched, char *why, size_t why_size) {
    size_t count = grader_output_count(ex, s), a_count = grader_a_count(ex, s),
           b_count = grader_b_count(ex, s);
    char reason[200] = "";
    float *c = grader_load_result(dir, RESULT_C, count + HARNESS_GUARD, reason, sizeof reason);
    float *a = c ? grader_load_result(dir, RESULT_A, a_count, reason, sizeof reason) : NULL;
    float *b = a ? grader_load_result(dir, RESULT_B, b_count, reason, sizeof reason) : NULL;
    double *expected = NULL, *tol = NULL;
    int ok = 0;
    *untouched = 0;
    if (!b) {
        snprintf(why, why_size, "the harness saved no usable output (%s)", reason);
    } else if (grader_reference(ex, s, seed, &expected, &tol) != 0) {
        snprintf(why, why_size, "grader out of memory at M x N x K = %d x %d x %d", s.m, s.n, s.k);
    } else {
        struct grader_diagnosis d;
        grader_diagnose(ex, s, seed, c, expected, tol, &d);
        size_t damaged = grader_guard_damage(c + count, HARNESS_GUARD);
        int changed =
            grader_input_changed(a, a_count, seed, 0) || grader_input_changed(b, b_count, seed, 1);
        *untouched = d.unwritten == count;
        ok = d.m.wrong == 0 && damaged == 0 && !changed;
        size_t used = 0;
        why[0] = '\0';
        if (ok)
            snprintf(why, why_size, "all %zu elements within tolerance (max error %.2g)", count,
                     d.m.max_err);
        if (d.m.wrong)
            grader_describe_wrong(ex, s, &d, why, why_size);
        used = strlen(why);
        if (damaged && used < why_size)
            used += (size_t)snprintf(why + used, why_size - used,
                                     "%swrote past the end of C (the grader keeps a guard zone "
                                     "there): an index goes out of bounds",
                                     used ? "\n" : "");
        if (changed && used < why_size)
            snprintf(why + used, why_size - used,
                     "%schanged an input (A or B): the kernel may only read them",
                     used ? "\n" : "");
    }
    free(expected);
    free(tol);
    free(a);
    free(b);
    free(c);
    return ok;
}

/* Why a harness run failed, for the report (NULL if it succeeded); dead is set when no later
 * run of this module can work. */
static char *run_failure(const struct cuda_run *h, const char *at, char *dead, size_t dead_size) {
    if (exited_with(&h->run, CUDA_HARNESS_OK))
        return NULL;
    char what[300];
    grader_describe_run(&h->run, what, sizeof what);
    size_t size = strlen(h->log) + 600;
    char *text = malloc(size);
    if (!text)
        return NULL;
    if (exited_with(&h->run, CUDA_HARNESS_MODULE)) {
        snprintf(text, size, "%s", h->log);
        snprintf(dead, dead_size, "the kernel does not load (see the first test)");
    } else if (h->run.how == RUN_TIMEOUT) {
        snprintf(text, size, "at %s the kernel %s\n%s", at, what, h->log);
        snprintf(dead, dead_size, "the kernel timed out at %s", at);
    } else if (exited_with(&h->run, CUDA_HARNESS_FAILED)) {
        snprintf(text, size, "at %s a CUDA call failed running the kernel:\n%s", at, h->log);
    } else {
        snprintf(text, size, "at %s the CUDA harness %s\n%s", at, what, h->log);
    }
    return text;
}

/* Drop the tests added since `first` and say, in one skipped test, why the CUDA twin was not
 * graded here: its points leave the maximum. */
static void skip_all(struct grader_exercise_result *r, int first, const char *why) {
    while (r->test_count > first) {
        r->test_count--;
        free(r->tests[r->test_count].output);
        free(r->tests[r->test_count].detail);
    }
    grader_add_verdict(r, GRADER_SKIPPED, "CUDA twin", 0,
                       grader_size_count(r->ex) * r->ex->cuda_per_size,
                       "skipped: %s (no points lost: they are left out of the maximum)", why);
}

/* The reference OpenCL kernel the twin is timed beside (the row's cuda_beside, or its own) on the
 * grader's OpenCL device, when that device is the GPU the CUDA twin ran on, timed at n on the
 * grader's clock (a launch command's round trip, so a little above its GPU events): 0 with its
 * min, median and max seconds in ref and the row in *beside, or -1 with why. */
static int opencl_reference(const struct grader_config *cfg, const struct grader_exercise *ex,
                            const char *work, int n, const char *cuda_device, double ref[3],
                            const struct grader_exercise **beside, char *why, size_t why_size) {
    const char *id = ex->cuda_beside ? ex->cuda_beside : ex->id;
    const struct grader_exercise *row = grader_find_exercise(id);
    char kernel[PATH_MAX + 64], dir[PATH_MAX + 32];
    snprintf(kernel, sizeof kernel, "%s/solutions/%s/kernel.cl", cfg->root, id);
    *beside = row;
    if (!row || !row->kernel || access(kernel, R_OK) != 0 || !grader_size_valid(row, n)) {
        snprintf(why, why_size, "the OpenCL kernel of %s is not there to compare", id);
        return -1;
    }
    struct clu_env env;
    if (clu_env_open(&env, cfg->device) != 0) {
        snprintf(why, why_size, "no OpenCL device to compare on");
        return -1;
    }
    char device[256];
    snprintf(device, sizeof device, "%s", env.device_name);
    clu_env_close(&env);
    if (strcasecmp(device, cuda_device) != 0) {
        snprintf(why, why_size,
                 "the grader's OpenCL device is %s, not this GPU: DEVICE=nvidia compares the "
                 "two APIs on one device",
                 device);
        return -1;
    }
    snprintf(dir, sizeof dir, "%s/opencl", work);
    grader_make_dirs(dir);
    return grader_time_trusted(cfg, row, kernel, n, dir, ref, why, why_size);
}

/* Why the C of timed round `round` at n is wrong ("" if right): every element against the
 * reference when full, else Freivalds' O(N^2) check against A(Bx), on the inputs the parent
 * derives itself from the round's seed. */
static void timed_round_wrong(const struct grader_config *cfg, const struct grader_exercise *ex,
                              const char *dir, int n, uint64_t seed, int round, int full, char *why,
                              size_t why_size) {
    size_t count = (size_t)n * (size_t)n;
    uint64_t inputs = cuda_round_seed(seed, round);
    char reason[200] = "", name[32];
    snprintf(name, sizeof name, RESULT_ROUND, round);
    float *c = grader_load_result(dir, name, count + HARNESS_GUARD, reason, sizeof reason);
    double *expected = NULL, *tol = NULL;
    /* the grader's fill tells a store that never happened from a NaN computed */
    struct grader_nans nans = c ? grader_count_nans(c, count) : (struct grader_nans){0};
    why[0] = '\0';
    if (!c) {
        snprintf(why, why_size, "no result saved (%s)", reason);
    } else if (grader_guard_damage(c + count, HARNESS_GUARD)) {
        snprintf(why, why_size, "it wrote past the end of C");
    } else if (full && n <= FULL_CHECK_MAX) {
        struct grader_diagnosis d;
        if (grader_reference(ex, grader_square(n), inputs, &expected, &tol) != 0) {
            snprintf(why, why_size, "grader out of memory");
        } else {
            grader_diagnose(ex, grader_square(n), inputs, c, expected, tol, &d);
            if (d.m.wrong)
                grader_describe_wrong(ex, grader_square(n), &d, why, why_size);
        }
    } else if (nans.unwritten + nans.from_unwritten + nans.computed + nans.past_end > 0) {
        grader_nan_hint(&nans, count, why, why_size);
    } else {
        /* x from the hidden seed, not from the round seed the child was given; A and B drawn as
         * read */
        uint64_t x_seed = cfg->seed ^ (0x9e3779b97f4a7c15ull * (uint64_t)(round + 1));
        size_t rows = grader_freivalds_drawn(grader_square(n), inputs, c, x_seed);
        if (rows)
            snprintf(why, why_size,
                     "C is not A*B (%zu of %d rows fail a check against A(Bx) for a random x)",
                     rows, n);
    }
    free(c);
    free(expected);
    free(tol);
}

/* Every timed launch computed the product on its round's inputs: "" or why not, naming the
 * first wrong launch. The one checked element by element is chosen from the hidden seed. */
static void timed_rounds_wrong(const struct grader_config *cfg, const struct grader_exercise *ex,
                               const char *dir, int n, uint64_t seed, int rounds, char *why,
                               size_t why_size) {
    why[0] = '\0';
    if (rounds != CUDA_TIME_ROUNDS) {
        snprintf(why, why_size, "the timing run reported %d launches, not %d", rounds,
                 CUDA_TIME_ROUNDS);
        return;
    }
    uint64_t mixed = cfg->seed ^ ((uint64_t)n << 32);
    int full = (int)(grader_fnv1a(&mixed, sizeof mixed) % (uint64_t)rounds);
    for (int round = 0; round < rounds; round++) {
        char wrong[800];
        timed_round_wrong(cfg, ex, dir, n, seed, round, round == full, wrong, sizeof wrong);
        if (wrong[0]) {
            snprintf(why, why_size, "timed launch %d of %d: %s", round + 1, rounds, wrong);
            return;
        }
    }
}

/* The timing at cuda_perf_n (else perf_n), a test worth nothing: the CUDA figure, and the OpenCL
 * one beside it. Every timed launch's C is checked; a wrong one leaves the exercise with no CUDA
 * figure. */
static void test_speed(const struct grader_config *cfg, const struct cuda_twin *twin,
                       const char *work, const char *module, struct grader_exercise_result *r) {
    const struct grader_exercise *ex = twin->ex;
    char name[96], at[32];
    int n = ex->cuda_perf_n > 0 ? ex->cuda_perf_n : ex->perf_n > 0 ? ex->perf_n : 1024;
    snprintf(name, sizeof name, "CUDA twin: performance at N=%d (not scored)", n);
    snprintf(at, sizeof at, "N = %d", n);
    uint64_t seed = grader_seed_for(cfg->seed, ex, grader_square(n));
    struct cuda_shape shape;
    char dead[200] = "", wrong[1000] = "", figures[400] = "";
    if (cuda_shape_of(twin, grader_square(n), &shape, dead, sizeof dead) != 0) {
        grader_add_verdict(r, GRADER_NOT_RUN, name, 0, 0, "not timed: %s", dead);
        return;
    }
    struct cuda_run h;
    run_cuda_harness(cfg, work, "perf", module, twin, &shape, seed, 1, &h);
    char *failure = run_failure(&h, at, dead, sizeof dead);
    struct grader_cuda_timing t = {0};
    int parsed = !failure && grader_cuda_timing_read(h.dir, &t) == 0;
    const double *s = t.seconds;
    int runs = t.runs;
    const char *device = t.device;
    if (parsed)
        timed_rounds_wrong(cfg, ex, h.dir, n, seed, runs, wrong, sizeof wrong);
    if (parsed && wrong[0]) {
        grader_add_verdict(r, GRADER_NOT_RUN, name, 0, 0,
                           "not timed: the timed launches at N = %d did not all compute C: %s", n,
                           wrong);
    } else if (!parsed || s[1] <= 0) {
        grader_add_verdict(r, GRADER_FAIL, name, 0, 0, "%s",
                           failure ? failure : "the timing run saved no figures");
    } else {
        double flops = grader_flops(ex, grader_square(n));
        r->gflops = flops / s[1] * 1e-9;
        char beside[400] = "";
        double ref[3] = {0};
        const struct grader_exercise *row = NULL;
        if (opencl_reference(cfg, ex, work, n, device, ref, &row, beside, sizeof beside) == 0) {
            char values[200];
            grader_tuning_text(row, values, sizeof values);
            r->ref_gflops = flops / ref[1] * 1e-9;
            r->ratio = r->gflops / r->ref_gflops; /* (what its text says: of medians) */
            snprintf(figures, sizeof figures,
                     "\nOpenCL, the kernel.cl of solutions/%.40s (%.100s)  median %.3f ms (min "
                     "%.3f, max %.3f)  %.2f GFLOP/s\nratio CUDA / OpenCL %.2f of medians",
                     row->id, values, ref[1] * 1e3, ref[0] * 1e3, ref[2] * 1e3, r->ref_gflops,
                     r->gflops / r->ref_gflops);
        } else {
            snprintf(figures, sizeof figures, "\nOpenCL beside it: not timed: %.200s", beside);
        }
        char built[200];
        grader_build_options(&twin->variant, built, sizeof built);
        grader_add_test(r, name, 0, 0,
                        "N = %d on %s, %d timed launches after a warm-up (CUDA events), each on "
                        "fresh inputs and each one's C checked:\n"
                        "CUDA, your kernel.cu (%s)  median %.3f ms (min %.3f, max %.3f)  %.2f "
                        "GFLOP/s%s",
                        n, device, runs, built, s[1] * 1e3, s[0] * 1e3, s[2] * 1e3, r->gflops,
                        figures);
    }
    free(failure);
    cuda_run_done(&h);
}

/* How the twin of ex is built: BLOCK for a row without tuning values, else the row's defaults with
 * its cuda_tuning in their place. */
static void twin_of(const struct grader_exercise *ex, struct cuda_twin *t) {
    memset(t, 0, sizeof *t);
    t->ex = ex;
    t->block = ex->block > 0 ? ex->block : CUDA_BLOCK;
    t->variant = (struct grader_variant){t->block, NULL};
    if (!ex->tuning[0].name)
        return;
    t->values = grader_values_default(ex);
    for (int o = 0; o < CLU_MAX_DEFINES && ex->cuda_tuning[o].name; o++)
        for (int v = 0; v < CLU_MAX_DEFINES && t->values.v[v].name; v++)
            if (strcmp(t->values.v[v].name, ex->cuda_tuning[o].name) == 0)
                t->values.v[v].value = ex->cuda_tuning[o].value;
    t->variant = grader_values_variant(&t->values);
}

int grader_cuda_tests(const struct grader_config *cfg, const struct grader_exercise *ex,
                      struct grader_exercise_result *r) {
    int first = r->test_count, pts = ex->cuda_per_size;
    struct cuda_twin twin;
    twin_of(ex, &twin);
    char nvcc[PATH_MAX], work[PATH_MAX], source[PATH_MAX + 64], copy[PATH_MAX + 32];
    char module[PATH_MAX + 32], why[300], bad[100], dead[300] = "";
    if (grader_find_nvcc(nvcc, sizeof nvcc) != 0) {
        skip_all(r, first,
                 "nvcc not found on $PATH or in /usr/local/cuda/bin: kernel.cu is "
                 "graded where the CUDA toolkit and an NVIDIA GPU are");
        return 1;
    }
    /* a fresh folder: nothing of an earlier run can be picked up */
    snprintf(work, sizeof work, "%s/%s/cuda", cfg->work, ex->id);
    grader_remove_tree(work);
    grader_make_dirs(work);

    /* the GPU first: without one nothing is graded, whatever kernel.cu holds */
    struct cuda_run probe;
    run_cuda_harness(cfg, work, "probe", NULL, &twin, NULL, 0, 0, &probe);
    if (!exited_with(&probe.run, CUDA_HARNESS_OK)) {
        char what[300] = "";
        if (!exited_with(&probe.run, CUDA_HARNESS_NO_DEVICE))
            grader_describe_run(&probe.run, what, sizeof what);
        snprintf(why, sizeof why, "no NVIDIA GPU to run it on (%.100s%s%.150s", what,
                 what[0] ? ": " : "", probe.log);
        why[strcspn(why, "\n")] = '\0';
        strcat(why, ")");
        skip_all(r, first, why);
        cuda_run_done(&probe);
        return 1;
    }
    struct grader_cuda_device gpu; /* capability 0 if unreadable: nvcc's default architecture */
    grader_cuda_device_read(probe.dir, &gpu);
    cuda_run_done(&probe);

    /* every run uses the grader's own checked copy of kernel.cu */
    snprintf(source, sizeof source, "%s/%s/kernel.cu", cfg->submission, ex->id);
    snprintf(copy, sizeof copy, "%s/kernel.cu", work);
    snprintf(module, sizeof module, "%s/kernel.fatbin", work);
    char *build_log = NULL;
    int build_failed = 0;
    if (access(source, F_OK) != 0)
        snprintf(dead, sizeof dead, "%s/kernel.cu is missing from the submission", ex->id);
    else if (grader_copy_source(source, copy, bad, sizeof bad) != 0)
        snprintf(dead, sizeof dead, "%s/kernel.cu: %s", ex->id, bad);
    else if ((build_failed = grader_cuda_build(cfg, nvcc, work, gpu.capability, &twin.variant,
                                               twin.block, &build_log) != 0))
        snprintf(dead, sizeof dead, "kernel.cu does not compile (see the first test)");

    int sizes = grader_size_count(ex), passed = 0, untouched_all = 1;
    for (int i = 0; i < sizes; i++) {
        struct grader_size s = grader_hidden_size(ex, i);
        int untouched = 0;
        char name[96], tag[64], text[1200], at[64];
        grader_size_text(ex, s, at, sizeof at);
        if (ex->rectangular)
            snprintf(name, sizeof name, "CUDA twin: correct at %s", at);
        else /* the report's test names keep 06's "N=16" */
            snprintf(name, sizeof name, "CUDA twin: correct at N=%d", s.n);
        struct cuda_shape shape;
        if (!dead[0]) /* its launch (why not, in dead) */
            cuda_shape_of(&twin, s, &shape, dead, sizeof dead);
        if (dead[0]) {
            untouched_all = 0;
            if (build_failed && i == 0)
                grader_add_test(r, name, 0, pts, "kernel.cu does not compile; nvcc says:\n%s",
                                build_log);
            else
                grader_add_verdict(r, GRADER_NOT_RUN, name, 0, pts, "not run: %s", dead);
            continue;
        }
        snprintf(tag, sizeof tag, "size%d", i);
        uint64_t seed = grader_seed_for(cfg->seed, ex, s);
        struct cuda_run h;
        run_cuda_harness(cfg, work, tag, module, &twin, &shape, seed, 0, &h);
        if (exited_with(&h.run, CUDA_HARNESS_NO_DEVICE)) {
            snprintf(why, sizeof why, "the GPU cannot run what nvcc made: %.200s", h.log);
            skip_all(r, first, why);
            cuda_run_done(&h);
            free(build_log);
            return 1;
        }
        char *failure = run_failure(&h, at, dead, sizeof dead);
        if (failure) {
            grader_add_test(r, name, 0, pts, "%s", failure);
            untouched_all = 0;
        } else {
            int ok = check_output(ex, h.dir, s, seed, &untouched, text, sizeof text);
            passed += ok;
            untouched_all &= untouched;
            grader_add_test(r, name, ok ? pts : 0, pts, "%s%s", ok ? "right: " : "", text);
        }
        free(failure);
        cuda_run_done(&h);
    }
    free(build_log);
    /* the skeleton as given: it ran and wrote nothing anywhere */
    int untouched = sizes > 0 && untouched_all && passed == 0;

    if (!cfg->perf)
        grader_add_verdict(r, GRADER_NOT_RUN, "CUDA twin: performance (not scored)", 0, 0,
                           "not run: timing was switched off");
    else if (passed < sizes || sizes == 0)
        grader_add_verdict(r, GRADER_NOT_RUN, "CUDA twin: performance (not scored)", 0, 0,
                           "not timed: the kernel must first be right at every size");
    else
        test_speed(cfg, &twin, work, module, r);
    return untouched;
}
