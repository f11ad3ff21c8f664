/* memcheck.c - the memory check: the student's kernel under oclgrind (bounds, races, uninitialised
 * values, barrier divergence) at every build it is judged on, at each size drawn for this
 * grading (builds.c, draws.c), its findings summarised for the student with the lines of
 * kernel.cl they happen at (findings.c). The point needs every run clean; a build oclgrind cannot
 * interpret even unoptimised keeps the point in the maximum and does not earn it: what nobody
 * checked is not clean. The report says the verdict first and the sizes after it. */
#include "grade/internal.h"
#include "grade/findings.h"
#include "exercise/protocol.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#define SUMMARY_SIZE 6000 /* bytes of the findings' summary */
#define SIZES_SIZE   1200 /* bytes of the sizes it was checked at */

/* Why oclgrind could not interpret the kernel, and what to write instead, into out. */
static void not_interpreted(const struct oclgrind_kernel_run *o, char *out, size_t size) {
    const char *words = o->found.fatal ? o->found.fatal_what : o->not_interpreted;
    int freeze = strstr(o->not_interpreted, "freeze") || strstr(words, "freeze");
    char what[300];
    grader_describe_run(&o->h.run, what, sizeof what);
    if (o->found.fatal) /* even without LLVM's optimisations */
        snprintf(out, size,
                 "oclgrind cannot interpret this kernel, even built without optimisations "
                 "(\"%s\"), so it is not checked and the point is not given: write the line "
                 "differently (plain OpenCL C 1.2 arithmetic, loads and stores)",
                 words);
    else /* the unoptimised run did not end right */
        snprintf(out, size,
                 "oclgrind cannot interpret this kernel's optimised build (\"%s\"), and its run "
                 "of the unoptimised build %s, so it is not checked and the point is not "
                 "given%s",
                 o->not_interpreted, what,
                 freeze ? ": in oclgrind 21.10 that instruction is the `freeze` LLVM makes of a "
                          "signed / and % of the same numbers; write the remainder as "
                          "x - (x / y) * y, or use unsigned numbers, and the optimised build runs"
                        : "");
}

int grade_memcheck_can_run(const char *name, int pts, const char *dead,
                           struct grader_exercise_result *r) {
    char oclgrind[PATH_MAX];
    if (dead[0]) {
        grader_add_verdict(r, GRADER_NOT_RUN, name, 0, pts, "not run: %s", dead);
        return 0;
    }
    if (grader_find_program("oclgrind", oclgrind, sizeof oclgrind) != 0) {
        grader_add_verdict(r, GRADER_NOT_RUN, name, 0, pts,
                           "not run: oclgrind is not installed (apt-get install oclgrind)");
        return 0;
    }
    return 1;
}

/* The builds' order under oclgrind: the cheapest first, so that a kernel that fails there costs
 * no larger run. */
static void cheapest_first(const struct grade_builds *builds, int order[GRADE_BUILDS]) {
    double cost[GRADE_BUILDS];
    for (int i = 0; i < builds->count; i++) {
        const struct grader_exercise *row = &builds->b[i].row;
        cost[i] = grader_check_cost_at(row, 1, row->memcheck_shape);
        int at = i; /* insertion: equal costs keep the builds' order */
        while (at > 0 && cost[order[at - 1]] > cost[i]) {
            order[at] = order[at - 1];
            at--;
        }
        order[at] = i;
    }
}

void grade_test_memcheck(const struct grader_config *cfg, const struct grader_exercise *ex,
                         const struct grade_builds *builds, const char *dead,
                         struct grader_exercise_result *r) {
    const char *name = "memory check (oclgrind): bounds, races, uninitialised values, barriers";
    int pts = ex->points.memcheck;
    if (!grade_memcheck_can_run(name, pts, dead, r))
        return;
    char *text = malloc(SUMMARY_SIZE), *sizes = malloc(SIZES_SIZE);
    if (!text || !sizes) {
        grader_add_test(r, name, 0, pts, "grader out of memory");
        free(text);
        free(sizes);
        return;
    }
    /* the verdict first, the sizes it was reached at after it: they are drawn for this grading
     * and say nothing that helps a kernel at the next one */
    size_t used = 0;
    sizes[0] = '\0';
    int clean = 1, order[GRADE_BUILDS], checked = 0;
    char stopped[100] = ""; /* what stopped oclgrind in an optimised build that was clean */
    char at[300] = "";
    cheapest_first(builds, order);
    for (int o = 0; o < builds->count && clean; o++) {
        int i = order[o];
        const struct grade_build *b = &builds->b[i];
        char tag[32], what[300];
        struct oclgrind_kernel_run run;
        grade_build_text(b, at, sizeof at);
        snprintf(tag, sizeof tag, "memcheck-%d", i);
        grade_oclgrind_kernel(cfg, b, tag, &run);
        r->too_busy |= run.h.run.how == RUN_TOO_BUSY;
        grader_describe_run(&run.h.run, what, sizeof what);
        clean = grade_oclgrind_clean(&run);
        if (clean) {
            /* "A, B and C": each clean run's size, the last one joined by "and" */
            int last = o == builds->count - 1;
            if (used < SIZES_SIZE)
                used +=
                    (size_t)snprintf(sizes + used, SIZES_SIZE - used, "%s%s%s",
                                     !checked ? ""
                                     : last   ? " and "
                                              : ", ",
                                     at, run.unoptimised ? " (built without optimisations)" : "");
            checked++;
            if (run.unoptimised)
                snprintf(stopped, sizeof stopped, "%s", run.not_interpreted);
        } else if (run.unreadable) {
            snprintf(text, SUMMARY_SIZE, "%s", run.why);
        } else if (run.found.fatal || (run.not_interpreted[0] && run.found.blank)) {
            not_interpreted(&run, text, SUMMARY_SIZE);
        } else if (!run.found.blank) { /* the log holds findings */
            grade_describe_findings(&run.found, 1, text, SUMMARY_SIZE);
        } else if (run.h.run.how == RUN_EXITED &&
                   (run.h.run.code == HARNESS_BUILD || run.h.run.code == HARNESS_NO_KERNEL)) {
            /* the device built it: oclgrind's own compiler or interpreter refused it */
            snprintf(text, SUMMARY_SIZE,
                     "oclgrind cannot build or create this kernel, which the device runs, so it "
                     "is not checked and the point is not given. oclgrind 21.10 knows OpenCL C "
                     "1.2 (not, say, 2.0's ctz): write the line it names below in OpenCL C 1.2 "
                     "and the check runs. Its output:\n%s",
                     run.h.log ? run.h.log : "");
        } else {
            snprintf(text, SUMMARY_SIZE, "the run under oclgrind %s\n%s", what,
                     run.h.log ? run.h.log : "");
        }
        grade_oclgrind_done(&run);
    }
    if (clean) {
        used = (size_t)snprintf(text, SUMMARY_SIZE,
                                "clean: no out-of-bounds access, data race, uninitialised value "
                                "or barrier divergence\nchecked at %s",
                                sizes);
        if (stopped[0] && used < SUMMARY_SIZE)
            snprintf(text + used, SUMMARY_SIZE - used,
                     "\n(oclgrind cannot interpret the optimised build: \"%s\"; unoptimised it "
                     "checks the same code, only slower)",
                     stopped);
    } else {
        size_t len = strlen(text);
        if (len < SUMMARY_SIZE)
            snprintf(text + len, SUMMARY_SIZE - len, "\nfound at %s%s%s", at,
                     checked ? "; clean before it at " : "", sizes);
    }
    grader_add_test(r, name, clean ? pts : 0, pts, "%s", text);
    free(text);
    free(sizes);
}
