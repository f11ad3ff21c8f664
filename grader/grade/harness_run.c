/* harness_run.c - the OpenCL harness child on a student's kernel: running it jailed (with or
 * without oclgrind), describing how a run failed (a run stopped at its limit against the
 * reference solution's time for the same work, which it also runs), and loading the files it
 * saved. */
#define _GNU_SOURCE /* strdup */
#include "grade/internal.h"
#include "oclgrind/findings.h"
#include "exercise/protocol.h"

#include <errno.h>
#include <signal.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void grade_harness_done(struct harness_run *h) {
    free(h->log);
    h->log = NULL;
    grader_jail_dir_remove(h->jail.dir);
}

/* The harness runs the student's kernel: it runs jailed like the student's own program (its
 * uid, its limits, the sandbox), since a kernel is code too (POCL runs it in the harness's own
 * process). Under oclgrind, its findings go to oclgrind.txt in h->dir: a file only oclgrind
 * writes (the kernel is interpreted, its printf goes to the run's output), built with the values
 * of the row's variant for the runs under oclgrind (grader_variant_of(ex, 0, 1)), each passed as
 * --define so that the child builds exactly what the caller's row says. */
static void run_harness(const struct grader_config *cfg, const struct grader_exercise *ex,
                        const char *kernel, struct grader_size s, const struct grader_size *then,
                        int then_count, const char *tag, enum grade_under under,
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
    char wrapper_log[PATH_MAX + 16];
    snprintf(wrapper_log, sizeof wrapper_log, "%s/oclgrind.txt", h->dir);
    struct grader_argv argv = GRADER_ARGV_INIT;
    grader_sandbox_push(&cfg->jail, &cfg->sandbox, h->dir, &argv);
    if (under != UNDER_DEVICE) {
        /* the memory check: oclgrind interprets the kernel and logs every bad access */
        grader_find_program("oclgrind", oclgrind, sizeof oclgrind);
        grader_argv_push_all(&argv, (const char *const[]){oclgrind, OCLGRIND_CHECKS,
                                                          OCLGRIND_UNINITIALIZED, "--log",
                                                          wrapper_log, NULL});
        if (under == UNDER_OCLGRIND_UNOPTIMISED)
            grader_argv_push_all(&argv, (const char *const[]){OCLGRIND_UNOPTIMISED, NULL});
    }
    grader_argv_push_all(&argv, (const char *const[]){h->jail.self, HARNESS_COMMAND, FLAG_EX,
                                                      ex->id, FLAG_KERNEL, h->jail.kernel, FLAG_OUT,
                                                      h->dir, NULL});
    grader_argv_push(&argv, FLAG_N);
    grader_argv_pushf(&argv, "%d", s.n);
    if (ex->rectangular) {
        grader_argv_push(&argv, FLAG_M);
        grader_argv_pushf(&argv, "%d", s.m);
        grader_argv_push(&argv, FLAG_K);
        grader_argv_pushf(&argv, "%d", s.k);
    }
    grader_argv_push(&argv, FLAG_SEED);
    grader_argv_pushf(&argv, "%llu", (unsigned long long)grader_seed_for(cfg->seed, ex, s));
    for (int t = 0; t < then_count; t++) {
        grader_argv_push(&argv, FLAG_THEN);
        grader_argv_pushf(&argv, "%d,%d,%d,%llu", then[t].m, then[t].n, then[t].k,
                          (unsigned long long)grader_seed_for(cfg->seed, ex, then[t]));
    }
    if (cfg->device && under == UNDER_DEVICE) { /* under oclgrind its device is the only one */
        grader_argv_push(&argv, FLAG_DEVICE);
        grader_argv_push(&argv, cfg->device);
    }
    if (under != UNDER_DEVICE) {
        grader_argv_push(&argv, FLAG_EXACT); /* no guard zone: oclgrind must see C's true end */
        struct grader_variant v = grader_variant_of(ex, 0, 1);
        for (int t = 0; v.tuning && t < CLU_MAX_DEFINES && v.tuning[t].name; t++) {
            grader_argv_push(&argv, FLAG_DEFINE);
            grader_argv_pushf(&argv, "%s=%d", v.tuning[t].name, v.tuning[t].value);
        }
    }
    double limit = under == UNDER_OCLGRIND_UNOPTIMISED ? OCLGRIND_UNOPTIMISED_PACE * cfg->timeout
                   : under == UNDER_OCLGRIND           ? OCLGRIND_PACE * cfg->timeout
                                                       : cfg->timeout;
    /* under oclgrind the run's product is its log, complete once oclgrind stops reporting */
    struct grader_jail_settings js = cfg->jail;
    struct grader_jail_done_when capped = {wrapper_log, FINDINGS_CAPPED_TAIL};
    if (under != UNDER_DEVICE)
        js.done_when = &capped;
    grader_run_jailed(&js, argv.argv, h->dir, log, limit, &h->run);
    grader_argv_clear(&argv);
    h->log = grader_read_capped(log, LOG_CAP);
}

void grade_run_harness(const struct grader_config *cfg, const struct grader_exercise *ex,
                       const char *kernel, struct grader_size s, const char *tag,
                       enum grade_under under, struct harness_run *h) {
    run_harness(cfg, ex, kernel, s, NULL, 0, tag, under, h);
}

void grade_run_harness_sizes(const struct grader_config *cfg, const struct grader_exercise *ex,
                             const char *kernel, const struct grader_size *sizes, int count,
                             const char *tag, struct harness_run *h) {
    run_harness(cfg, ex, kernel, sizes[0], sizes + 1, count - 1, tag, UNDER_DEVICE, h);
}

/* The reference solution's harness run at n, under the same jail as the student's runs, with a
 * POCL cache of its own (its compiled kernel stays out of the student's folder): its seconds, or
 * 0 when it did not finish right within the limit. warm: as the student's kernel ran when an
 * earlier size had built it, timed on a second run, its kernel built by the first. */
double grade_reference_seconds(const struct grader_config *cfg, const struct grader_exercise *ex,
                               struct grader_size s, int warm) {
    if (cfg->handout) /* (no reference: a stopped kernel is told the jail's own words) */
        return 0.0;
    struct grader_config own = *cfg;
    char cache[PATH_MAX] = "", reference[PATH_MAX + 64], tag[48];
    own.jail.kernel_cache = NULL;
    if (grader_jail_dir_make(cache, sizeof cache) == 0 &&
        (grader_jail_uid() == (uid_t)-1 || chown(cache, grader_jail_uid(), grader_jail_uid()) == 0))
        own.jail.kernel_cache = cache;
    snprintf(reference, sizeof reference, "%s/solutions/%s/kernel.cl", cfg->root, ex->id);
    double seconds = 0.0;
    for (int run = warm && own.jail.kernel_cache ? 0 : 1; run < 2; run++) {
        struct harness_run h;
        snprintf(tag, sizeof tag, "reference-%dx%dx%d-%d", s.m, s.n, s.k, run);
        grade_run_harness(&own, ex, reference, s, tag, UNDER_DEVICE, &h);
        seconds = h.run.how == RUN_EXITED && h.run.code == HARNESS_OK ? h.run.seconds : 0.0;
        grade_harness_done(&h);
    }
    if (cache[0])
        grader_jail_dir_remove(cache);
    return seconds;
}

/* Slower than the reference by this factor or more, a stopped kernel is told how much slower;
 * nearer, the limit is too close to the reference's own time for the comparison to say much. */
#define PACE_TELLS 2.0

/* A run stopped at its time limit. Against the reference's time for the same work, a kernel
 * known to end is too slow for this step (and by how much); one that may not end is told both
 * possibilities. Without that time, the jail's own words (a loop that never ends...). Returns
 * whether the kernel was found too slow. */
static int describe_timeout(const struct grader_run_result *run, const struct grader_pace *pace,
                            char *buf, size_t size) {
    double factor =
        pace && pace->reference_seconds > 0 ? pace->seconds / pace->reference_seconds : 0.0;
    if (factor < PACE_TELLS) {
        grader_describe_run(run, buf, size);
        return 0;
    }
    if (pace->ends) {
        snprintf(buf, size,
                 "timed out, too slow for this step: %s took the reference solution %.2f s, and "
                 "this kernel was stopped after %.0f s, so it is at least %.0fx slower; %s, so "
                 "it does end: does it do some work many more times than the step needs (a sum "
                 "recomputed, a loop longer than N)?",
                 pace->work, pace->reference_seconds, pace->seconds, factor, pace->ends);
        return 1;
    }
    snprintf(buf, size,
             "timed out: still running after %.0f s and was stopped, where %s took the reference "
             "solution %.2f s (a loop that never ends, a kernel at least %.0fx slower than the "
             "reference, a flood of printf output, or work-items waiting at a barrier or a "
             "sub-group function that others of their group never reach?)",
             pace->seconds, pace->work, pace->reference_seconds, factor);
    return 0;
}

/* Why a harness run failed, for the report; sets *dead when no later run of this kernel can
 * work (it does not build, its parameters are not the exercise's, or it hangs; pace: said
 * against the reference's time). Returns NULL when the run succeeded. */
char *grader_harness_failure(const struct grader_run_result *run, const char *log, const char *at,
                             const struct grader_pace *pace, char *dead, size_t dead_size) {
    char what[700], *text;
    grader_describe_run(run, what, sizeof what);
    if (run->how == RUN_EXITED && run->code == HARNESS_OK)
        return NULL;
    size_t size = strlen(log) + sizeof what + 100;
    text = malloc(size);
    if (!text)
        return NULL;
    if (run->how == RUN_EXITED && run->code == HARNESS_BUILD) {
        snprintf(text, size, "kernel.cl does not build; the OpenCL build log:\n%s", log);
        snprintf(dead, dead_size, "kernel.cl does not build (see the first test)");
    } else if (run->how == RUN_EXITED && run->code == HARNESS_NO_KERNEL) {
        snprintf(text, size, "%s", log);
        snprintf(dead, dead_size, "the kernel function is missing (see the first test)");
    } else if (run->how == RUN_EXITED && run->code == HARNESS_BAD_ARGS) {
        snprintf(text, size, "%s", log); /* what differs, and the signature (launch.c) */
        snprintf(dead, dead_size, "the kernel's parameters do not match (see the first test)");
    } else if (run->how == RUN_TOO_BUSY) {
        snprintf(text, size, "at %s the kernel run %s", at, what);
        snprintf(dead, dead_size, "the machine was too busy to grade this");
    } else if (run->how == RUN_TIMEOUT) {
        int slow = describe_timeout(run, pace, what, sizeof what);
        snprintf(text, size, "at %s the kernel %s\n%s", at, what, log);
        snprintf(dead, dead_size, "the kernel timed out at %s%s", at,
                 slow ? ", too slow for this step" : "");
    } else if (run->how == RUN_EXITED && run->code == HARNESS_LOCAL_LIMIT) {
        /* the reference's tiles fit every device the course runs on: the kernel's own arrays */
        snprintf(text, size,
                 "kernel.cl needs more local memory than the device has:\n%s"
                 "hint: a __local array's size is fixed when the kernel is built (a tile of T x T "
                 "floats takes 4*T*T bytes): shrink the arrays, or the tile sizes they are "
                 "declared with",
                 log);
        snprintf(dead, dead_size,
                 "kernel.cl needs more local memory than the device has (see "
                 "the first test)");
    } else if (run->how == RUN_EXITED &&
               (run->code == HARNESS_BAD_DEVICE || run->code == HARNESS_GROUP_LIMIT)) {
        snprintf(text, size, "the device cannot run this exercise:\n%s", log);
        snprintf(dead, dead_size, "the device cannot run this exercise");
    } else if (run->how == RUN_EXITED && run->code == HARNESS_OPENCL) {
        snprintf(text, size, "at %s an OpenCL call failed running the kernel:\n%s", at, log);
    } else if ((run->how == RUN_SIGNALED && (run->code == SIGSEGV || run->code == SIGBUS)) ||
               (run->how == RUN_EXITED &&
                (run->code == 128 + SIGSEGV || run->code == 128 + SIGBUS))) {
        /* (the harness never exits so: bubblewrap, the sandbox, reports its signal as 128 + it) */
        snprintf(text, size,
                 "at %s the kernel run %s\nhint: the kernel crashed: a read or write outside A, "
                 "B or C, a vector load or store (a float4: 16 bytes) at an address that is "
                 "not a multiple of its size (a row of a matrix whose width is not a multiple of "
                 "4), or, on a CPU device, private arrays too large for the thread that runs a "
                 "work-group (POCL keeps every work-item's private arrays on that thread's "
                 "stack, a few MB: float big[1 << 18] is 1 MB a work-item)\n%s",
                 at, what, log);
    } else {
        snprintf(text, size, "at %s the kernel run %s\n%s", at, what, log);
    }
    return text;
}

/* dir/name's path, if it is a plain file: a student's program wrote this folder, so only a plain
 * file is read (no FIFO, no link). 0, or -1 with why. */
static int result_path(const char *dir, const char *name, char *path, size_t path_size, char *why,
                       size_t why_size) {
    snprintf(path, path_size, "%s/%s", dir, name);
    struct stat st;
    if (lstat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        snprintf(why, why_size, "%s is not a plain file", name);
        return -1;
    }
    return 0;
}

float *grader_load_result(const char *dir, const char *name, size_t want, char *why,
                          size_t why_size) {
    char path[PATH_MAX + 16];
    if (result_path(dir, name, path, sizeof path, why, why_size) != 0)
        return NULL;
    size_t count = 0;
    float *x = clu_load_result(path, &count, why, why_size);
    if (x && count != want) {
        snprintf(why, why_size, "%s holds %zu elements, expected %zu", name, count, want);
        free(x);
        return NULL;
    }
    return x;
}

int grader_load_result_into(const char *dir, const char *name, float *x, size_t want, char *why,
                            size_t why_size) {
    char path[PATH_MAX + 16];
    if (result_path(dir, name, path, sizeof path, why, why_size) != 0)
        return -1;
    return clu_load_result_into(path, x, want, why, why_size);
}
