/* memcheck.c - the memory check: the student's kernel under oclgrind (bounds, races, uninitialised
 * values, barrier divergence) at every build it is judged on (builds.c), its findings summarised
 * for the student with the lines of kernel.cl they happen at (findings.c). The point needs every
 * build clean; a build oclgrind cannot interpret even unoptimised keeps the point in the maximum
 * and does not earn it: what nobody checked is not clean. */
#include "grade/internal.h"
#include "oclgrind/findings.h"
#include "exercise/protocol.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#define SUMMARY_SIZE 6000 /* bytes of the findings' summary */

/* Why oclgrind could not interpret the kernel, and what to write instead, into out. */
static void not_interpreted(const struct oclgrind_kernel_run *o, const char *at, char *out,
                            size_t size) {
    const char *words = o->found.fatal ? o->found.fatal_what : o->not_interpreted;
    int freeze = strstr(o->not_interpreted, "freeze") || strstr(words, "freeze");
    char what[300];
    grader_describe_run(&o->h.run, what, sizeof what);
    if (o->found.fatal) /* even without LLVM's optimisations */
        snprintf(out, size,
                 "oclgrind cannot interpret this kernel at %s, even built without optimisations "
                 "(\"%s\"), so it is not checked and the point is not given: write the line "
                 "differently (plain OpenCL C 1.2 arithmetic, loads and stores)",
                 at, words);
    else /* the unoptimised run did not end right */
        snprintf(out, size,
                 "oclgrind cannot interpret this kernel's optimised build at %s (\"%s\"), and its "
                 "run of the unoptimised build %s, so it is not checked and the point is not "
                 "given%s",
                 at, o->not_interpreted, what,
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

/* A kernel stopped at its time limit, not known to be only slow (dead: "the kernel timed out at
 * ..."), runs once under oclgrind at the smallest build's size with a budget of its own: a
 * divergent barrier (which hangs POCL) or an index out of bounds is named with its line, or the
 * report says what it did not find. The point is not given: the kernel did not end. Returns 1
 * where it added the test (else the check is "not run", as for any other dead kernel). */
#define HANG_BUDGET 10.0 /* seconds, at most, of that run */
static int explain_hang(const struct grader_config *cfg, const struct grade_builds *builds,
                        const char *name, int pts, const char *dead,
                        struct grader_exercise_result *r) {
    char oclgrind[PATH_MAX];
    if (strncmp(dead, "the kernel timed out", 20) != 0 || strstr(dead, "too slow") ||
        builds->count == 0 || grader_find_program("oclgrind", oclgrind, sizeof oclgrind) != 0)
        return 0;
    struct grader_config budget = *cfg;
    budget.timeout = cfg->timeout < HANG_BUDGET ? cfg->timeout : HANG_BUDGET;
    int order[GRADE_BUILDS];
    grade_builds_by_size(builds, order);
    const struct grade_build *b = &builds->b[order[0]]; /* the smallest */
    char at[300], what[300], *text = malloc(SUMMARY_SIZE), *found = malloc(SUMMARY_SIZE);
    if (!text || !found) {
        free(text);
        free(found);
        return 0;
    }
    grade_build_text(b, at, sizeof at);
    struct oclgrind_kernel_run o;
    grade_oclgrind_kernel(&budget, b, "hang", &o);
    grader_describe_run(&o.h.run, what, sizeof what);
    int told = snprintf(text, SUMMARY_SIZE,
                        "not run as a check: %s. To find where, it ran once under oclgrind at %s "
                        "(%.0f s at most): ",
                        dead, at, budget.timeout);
    size_t used = told > 0 ? (size_t)told : 0;
    if (!o.unreadable && !o.found.blank) {
        grader_describe_findings(&o.found, 1, NULL, found, SUMMARY_SIZE);
        snprintf(text + used, SUMMARY_SIZE - used, "\n%s", found);
    } else if (o.h.run.how == RUN_TIMEOUT || o.h.run.how == RUN_TOO_BUSY)
        snprintf(text + used, SUMMARY_SIZE - used,
                 "it ran past that too, with no divergent barrier and no index out of bounds "
                 "before: look for a loop whose condition never changes (a counter not "
                 "advanced, a bound that grows, a wait on a value no work-item writes)");
    else if (grade_oclgrind_clean(&o))
        snprintf(text + used, SUMMARY_SIZE - used,
                 "it ended there, with nothing to report: the kernel ends at that size, so look "
                 "at what grows with the size (a loop's bound, the work of each item)");
    else
        snprintf(text + used, SUMMARY_SIZE - used, "it %s", what);
    grade_oclgrind_done(&o);
    grader_add_verdict(r, GRADER_NOT_RUN, name, 0, pts, "%s", text);
    /* the test the student reads first, where the kernel was stopped, points here */
    for (int t = 0; t < r->test_count; t++) {
        struct grader_test *stopped = &r->tests[t];
        if (!strstr(stopped->name, "correct at") || !stopped->output ||
            !strstr(stopped->output, "timed out"))
            continue;
        grader_test_append(stopped, "hint: the memory check below ran the kernel under oclgrind "
                                    "at a small size to find where it hangs");
        break;
    }
    free(text);
    free(found);
    return 1;
}

void grade_test_memcheck(const struct grader_config *cfg, const struct grader_exercise *ex,
                         const struct grade_builds *builds, const char *dead,
                         struct grader_exercise_result *r) {
    const char *name = "memory check (oclgrind): bounds, races, uninitialised values, barriers";
    int pts = ex->points.memcheck;
    if (explain_hang(cfg, builds, name, pts, dead, r))
        return;
    if (!grade_memcheck_can_run(name, pts, dead, r))
        return;
    char *text = malloc(SUMMARY_SIZE), *summary = malloc(SUMMARY_SIZE);
    if (!text || !summary) {
        grader_add_test(r, name, 0, pts, "grader out of memory");
        free(text);
        free(summary);
        return;
    }
    /* the smallest build first: a kernel that fails there costs no larger run */
    size_t used = (size_t)snprintf(text, SUMMARY_SIZE, "clean at");
    int clean = 1, order[GRADE_BUILDS];
    grade_builds_by_size(builds, order);
    char stopped[100] = ""; /* what stopped oclgrind in an optimised build that was clean */
    for (int k = 0; k < builds->count && clean; k++) {
        int i = order[k];
        const struct grade_build *b = &builds->b[i];
        char at[300], tag[32], what[300];
        struct oclgrind_kernel_run o;
        grade_build_text(b, at, sizeof at);
        snprintf(tag, sizeof tag, "memcheck-%d", i);
        grade_oclgrind_kernel(cfg, b, tag, &o);
        r->too_busy |= o.h.run.how == RUN_TOO_BUSY;
        grader_describe_run(&o.h.run, what, sizeof what);
        clean = grade_oclgrind_clean(&o);
        if (clean) {
            if (used < SUMMARY_SIZE)
                used += (size_t)snprintf(text + used, SUMMARY_SIZE - used, "%s %s%s",
                                         k == 0 ? "" : " and", at,
                                         o.unoptimised ? ", built without optimisations" : "");
            if (o.unoptimised)
                snprintf(stopped, sizeof stopped, "%s", o.not_interpreted);
        } else if (o.unreadable) {
            snprintf(text, SUMMARY_SIZE, "at %s %s", at, o.why);
        } else if (o.found.fatal || (o.not_interpreted[0] && o.found.blank)) {
            not_interpreted(&o, at, text, SUMMARY_SIZE);
        } else if (!o.found.blank) { /* the log holds findings */
            grader_describe_findings(&o.found, 1, ex->local_race_hint, summary, SUMMARY_SIZE);
            snprintf(text, SUMMARY_SIZE, "at %s %s", at, summary);
        } else if (o.h.run.how == RUN_EXITED &&
                   (o.h.run.code == HARNESS_BUILD || o.h.run.code == HARNESS_NO_KERNEL)) {
            /* the device built it: oclgrind's own compiler or interpreter refused it */
            snprintf(text, SUMMARY_SIZE,
                     "oclgrind cannot build or create this kernel at %s, which the device runs, "
                     "so it is not checked and the point is not given. oclgrind 21.10 knows "
                     "OpenCL C 1.2 (not, say, 2.0's ctz): write the line it names below in "
                     "OpenCL C 1.2 and the check runs. Its output:\n%s",
                     at, o.h.log ? o.h.log : "");
        } else {
            snprintf(text, SUMMARY_SIZE, "the run under oclgrind at %s %s\n%s", at, what,
                     o.h.log ? o.h.log : "");
        }
        grade_oclgrind_done(&o);
    }
    if (clean && stopped[0] && used < SUMMARY_SIZE)
        snprintf(text + used, SUMMARY_SIZE - used,
                 "\n(oclgrind cannot interpret the optimised build: \"%s\"; unoptimised it checks "
                 "the same code, only slower)",
                 stopped);
    grader_add_test(r, name, clean ? pts : 0, pts, "%s", text);
    free(text);
    free(summary);
}
