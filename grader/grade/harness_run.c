/* harness_run.c - the OpenCL harness child on a student's kernel: running it jailed (with or
 * without oclgrind), describing how a run failed, and loading the files it saved. */
#define _GNU_SOURCE /* strdup */
#include "grade/internal.h"
#include "grade/findings.h"
#include "exercise/protocol.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

void grade_harness_done(struct harness_run *h) {
    free(h->log);
    h->log = NULL;
    grader_jail_dir_remove(h->jail.dir);
}

/* The harness runs the student's kernel: it runs jailed like the student's own program (its
 * uid, its limits, the sandbox), since a kernel is code too (POCL runs it in the harness's own
 * process). With memcheck, under oclgrind, whose findings go to oclgrind.txt in h->dir. */
void grade_run_harness(const struct grader_config *cfg, const struct grader_exercise *ex,
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
    char wrapper_log[PATH_MAX + 16];
    snprintf(wrapper_log, sizeof wrapper_log, "%s/oclgrind.txt", h->dir);
    struct grader_argv argv = GRADER_ARGV_INIT;
    grader_sandbox_push(&cfg->jail, &cfg->sandbox, h->dir, &argv);
    if (memcheck) {
        /* the memory check: oclgrind interprets the kernel and logs every bad access */
        grader_find_program("oclgrind", oclgrind, sizeof oclgrind);
        grader_argv_push_all(&argv, (const char *const[]){oclgrind, "--data-races",
                                                          "--uninitialized", "--check-api",
                                                          "--max-errors", FINDINGS_MAX_ERRORS,
                                                          "--log", wrapper_log, NULL});
    }
    grader_argv_push_all(&argv, (const char *const[]){h->jail.self, HARNESS_COMMAND, FLAG_EX,
                                                      ex->id, FLAG_KERNEL, h->jail.kernel, FLAG_OUT,
                                                      h->dir, NULL});
    grader_argv_push(&argv, FLAG_N);
    grader_argv_pushf(&argv, "%d", n);
    grader_argv_push(&argv, FLAG_SEED);
    grader_argv_pushf(&argv, "%llu", (unsigned long long)grader_seed_for(cfg->seed, ex, n));
    if (cfg->device && !memcheck) { /* under oclgrind its device is the only one */
        grader_argv_push(&argv, FLAG_DEVICE);
        grader_argv_push(&argv, cfg->device);
    }
    if (memcheck)
        grader_argv_push(&argv, FLAG_EXACT); /* no guard zone: oclgrind must see C's true end */
    double limit = memcheck ? 3 * cfg->timeout : cfg->timeout;
    grader_run_jailed(&cfg->jail, argv.argv, h->dir, log, limit, &h->run);
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
