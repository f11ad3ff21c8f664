/* oclgrind_kernel.c - a student's kernel under oclgrind in the grader's own harness (internal.h),
 * with a second run where oclgrind cannot interpret the optimised build.
 *
 * oclgrind 21.10's check for uninitialised values does not know LLVM's `freeze`, which the
 * optimiser makes of a signed / and % of the same numbers: ordinary code (myGEMM's kernels,
 * CLBlast's direct GEMM). oclgrind then writes "OCLGRIND FATAL ERROR ... Unsupported instruction:
 * freeze" to its log and checks nothing more of that run. Built with -cl-opt-disable there is no
 * `freeze`, and the run checks everything, about 8 times slower with 3 times the memory (09 at
 * N = 128: 3 s and 0.5 GB become 26 to 40 s and 1.8 GB), so only such a kernel pays for it.
 *
 * What decides is oclgrind's own --log file: the kernel is interpreted inside the grader's
 * harness and can write nothing but its printf, which goes to the run's output, never to that
 * file. The first run's findings are not kept when it stopped: what it found before stopping is
 * found again by the second run, which checks the whole kernel. */
#include "grade/internal.h"
#include "exercise/protocol.h"

#include <stdio.h>
#include <string.h>

/* One run of b's kernel under oclgrind, its log read into o. */
static void run_once(const struct grader_config *cfg, const struct grade_build *b, const char *tag,
                     enum grade_under under, struct oclgrind_kernel_run *o) {
    char log[PATH_MAX + 32];
    grade_run_harness(cfg, &b->row, b->kernel, grader_memcheck_at(&b->row), tag, under, &o->h);
    snprintf(log, sizeof log, "%s/oclgrind.txt", o->h.dir);
    o->unoptimised = under == UNDER_OCLGRIND_UNOPTIMISED;
    o->why[0] = '\0';
    o->unreadable = grader_read_findings(log, &o->found, o->why, sizeof o->why) != 0;
}

void grade_oclgrind_kernel(const struct grader_config *cfg, const struct grade_build *b,
                           const char *tag, struct oclgrind_kernel_run *o) {
    memset(o, 0, sizeof *o);
    run_once(cfg, b, tag, UNDER_OCLGRIND, o);
    if (o->unreadable || !o->found.fatal || o->h.run.how == RUN_TOO_BUSY)
        return;
    snprintf(o->not_interpreted, sizeof o->not_interpreted, "%s",
             o->found.fatal_what[0] ? o->found.fatal_what : "OCLGRIND FATAL ERROR");
    char again[128];
    snprintf(again, sizeof again, "%s-unoptimised", tag);
    grade_harness_done(&o->h);
    run_once(cfg, b, again, UNDER_OCLGRIND_UNOPTIMISED, o);
}

int grade_oclgrind_clean(const struct oclgrind_kernel_run *o) {
    return o->h.run.how == RUN_EXITED && o->h.run.code == HARNESS_OK && !o->unreadable &&
           o->found.blank;
}

void grade_oclgrind_done(struct oclgrind_kernel_run *o) {
    grade_harness_done(&o->h);
}
