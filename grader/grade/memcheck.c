/* memcheck.c - the memory check: the student's kernel under oclgrind (bounds, races,
 * uninitialised values, barrier divergence), its findings summarised for the student with the
 * lines of kernel.cl they happen at (findings.c). */
#include "grade/internal.h"
#include "grade/findings.h"
#include "exercise/protocol.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#define SUMMARY_SIZE 6000 /* bytes of the findings' summary */

void grade_test_memcheck(const struct grader_config *cfg, const struct grader_exercise *ex,
                         const char *kernel, const char *dead, struct grader_exercise_result *r) {
    const char *name = "memory check (oclgrind): bounds, races, uninitialised values, barriers";
    int pts = ex->points.memcheck;
    char oclgrind[PATH_MAX];
    if (dead[0]) {
        grader_add_verdict(r, GRADER_NOT_RUN, name, 0, pts, "not run: %s", dead);
        return;
    }
    if (grader_find_program("oclgrind", oclgrind, sizeof oclgrind) != 0) {
        grader_add_verdict(r, GRADER_NOT_RUN, name, 0, pts,
                           "not run: oclgrind is not installed (apt-get install oclgrind)");
        return;
    }
    char log[PATH_MAX + 32], what[300], why[100], at[64];
    struct harness_run h;
    grader_size_text(ex, grader_memcheck_at(ex), at, sizeof at);
    grade_run_harness(cfg, ex, kernel, grader_memcheck_at(ex), "memcheck", 1, &h);
    r->too_busy |= h.run.how == RUN_TOO_BUSY;
    snprintf(log, sizeof log, "%s/oclgrind.txt", h.dir);
    grader_describe_run(&h.run, what, sizeof what);
    /* oclgrind 21.10 stops on an instruction it does not know: the grader's trouble, not the
     * student's, so the check is left out (the point leaves the maximum) with the way around */
    char *raw = grader_read_capped(log, 1 << 16);
    const char *unknown = "Unsupported instruction";
    if ((raw && strstr(raw, unknown)) || (h.log && strstr(h.log, unknown))) {
        grader_add_verdict(r, GRADER_SKIPPED, name, 0, pts,
                           "skipped: oclgrind cannot interpret this kernel at %s (\"%s\"). In "
                           "oclgrind 21.10 that is the `freeze` LLVM makes of a signed / and %% of "
                           "the same numbers: write the remainder as x - (x / y) * y, or use "
                           "unsigned numbers, and the memory check runs",
                           at, unknown);
        free(raw);
        grade_harness_done(&h);
        return;
    }
    free(raw);
    struct grade_findings found;
    char *summary = malloc(SUMMARY_SIZE);
    if (!summary) {
        grader_add_test(r, name, 0, pts, "grader out of memory");
    } else if (grade_read_findings(log, &found, why, sizeof why) != 0) {
        grader_add_test(r, name, 0, pts, "at %s %s", at, why);
    } else if (h.run.how == RUN_EXITED && h.run.code == HARNESS_OK && found.blank) {
        grader_add_test(r, name, pts, pts, "clean at %s", at);
    } else if (!found.blank) { /* the log holds only findings */
        grade_describe_findings(&found, 1, summary, SUMMARY_SIZE);
        grader_add_test(r, name, 0, pts, "at %s %s", at, summary);
    } else {
        grader_add_test(r, name, 0, pts, "the run under oclgrind at %s %s\n%s", at, what, h.log);
    }
    free(summary);
    grade_harness_done(&h);
}
