/* kernel_tests.c - the student's kernel at each hidden size: run in a harness child, its C
 * checked against the reference, its inputs and the guard zone after C checked untouched. */
#define _DEFAULT_SOURCE /* lstat */
#include "grade/internal.h"
#include "exercise/protocol.h"
#include "grade/c_picture.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void grade_picture(const struct grader_config *cfg, const struct grader_exercise *ex,
                   const char *who, struct grader_size size, const float *c, const double *expected,
                   const double *tol, int draw, char *wrong, size_t wrong_size) {
    char path[PATH_MAX], title[160], at[64];
    if (ex->rectangular)
        snprintf(at, sizeof at, "%dx%dx%d", size.m, size.n, size.k);
    else
        snprintf(at, sizeof at, "%d", size.n);
    if (snprintf(path, sizeof path, "%s/%s-%s-%s.svg", cfg->results, ex->id, who, at) >=
        (int)sizeof path)
        return;
    if (!draw) {
        unlink(path);
        return;
    }
    size_t rows = ex->is_vector ? 1 : (size_t)size.m;
    size_t cols = ex->is_vector ? grader_output_count(ex, size) : (size_t)size.n;
    grader_size_text(ex, size, title, sizeof title);
    char full[sizeof title + 80];
    snprintf(full, sizeof full, "%s: %s at %s", ex->id, ex->is_vector ? "c" : "C", title);
    size_t used = strlen(wrong);
    if (c_picture_write(path, full, c, expected, tol, rows, cols) == 0 && used < wrong_size)
        snprintf(wrong + used, wrong_size - used, "%spicture: %s", used ? "\n" : "", path);
}

/* The files a run saved for size in dir (log: its output) against the grader's own reference:
 * the verdict added, 1 if right; *untouched is set when nothing at all was written. only_right:
 * a wrong verdict is not added, and -1 returned (the run of every size: a size found wrong there
 * is judged again from a run of its own, where nothing an earlier size left can reach it). */
static int judge_size(const struct grader_config *cfg, const struct grader_exercise *ex,
                      struct grader_size size, const char *name, int pts, const char *at,
                      const char *dir, const char *log, int only_right, int *untouched,
                      struct grader_exercise_result *r) {
    uint64_t seed = grader_seed_for(cfg->seed, ex, size);
    size_t count = grader_output_count(ex, size), a_count = grader_a_count(ex, size),
           b_count = grader_b_count(ex, size);
    char why[200] = "";
    size_t guard = grader_guard_count(ex, size), a_guard = grader_input_guard(ex, size, 0),
           b_guard = grader_input_guard(ex, size, 1);
    float *c = grader_load_result(dir, RESULT_C, count + guard, why, sizeof why);
    float *a = c ? grader_load_result(dir, RESULT_A, a_count + a_guard, why, sizeof why) : NULL;
    float *b = a ? grader_load_result(dir, RESULT_B, b_count + b_guard, why, sizeof why) : NULL;
    double *expected = NULL, *tol = NULL;
    int ok = 0;
    if (!b && only_right) {
        ok = -1;
    } else if (!b) {
        grader_add_test(r, name, 0, pts, "the harness saved no usable output (%s)\n%s", why, log);
    } else if (grader_reference(ex, size, seed, &expected, &tol) != 0) {
        if (only_right)
            ok = -1;
        else
            grader_add_test(r, name, 0, pts, "grader out of memory at %s", at);
    } else {
        struct grader_diagnosis d;
        grader_diagnose(ex, size, seed, c, expected, tol, &d);
        size_t damaged = grader_guard_damage(c + count, guard);
        int changed_a = grader_input_changed(a, a_count, seed, 0);
        int changed_b = grader_input_changed(b, b_count, seed, 1);
        /* (a write past an input's end: into the guard after it) */
        int past_a = grader_input_guard_damage(a + a_count, a_guard) > 0;
        int past_b = grader_input_guard_damage(b + b_count, b_guard) > 0;
        char wrong[800 + PATH_MAX] = ""; /* (and the picture's path) */
        if (d.m.wrong)
            grader_describe_wrong(ex, size, &d, wrong, sizeof wrong);
        ok = d.m.wrong == 0 && damaged == 0 && !changed_a && !changed_b && !past_a && !past_b;
        *untouched = d.unwritten == count;
        if (!ok && only_right)
            ok = -1;
        else
            grade_picture(cfg, ex, "C", size, c, expected, tol, d.m.wrong > 0 && !*untouched, wrong,
                          sizeof wrong);
        if (ok == 1)
            grader_add_test(r, name, pts, pts, "all %zu elements within tolerance (max error %.2g)",
                            count, d.m.max_err);
        else if (ok == 0)
            grader_add_test(
                r, name, 0, pts, "%s%s%s%s%s%s%s%s", wrong, wrong[0] && damaged ? "\n" : "",
                damaged ? "wrote past the end of C (the grader keeps a guard zone there): an "
                          "index goes out of bounds"
                        : "",
                changed_a || changed_b ? (wrong[0] || damaged ? "\n" : "") : "",
                changed_a || changed_b ? "changed an input (A or B): the kernel may only read "
                                         "them"
                                       : "",
                past_a || past_b ? (wrong[0] || damaged || changed_a || changed_b ? "\n" : "") : "",
                past_a || past_b ? "wrote past the end of " : "",
                past_a && past_b ? "A and B (the grader keeps a guard zone after each): the "
                                   "kernel may only read them, and an index goes out of bounds"
                : past_a ? "A (the grader keeps a guard zone there): the kernel may only read "
                           "it, and an index goes out of bounds"
                : past_b ? "B (the grader keeps a guard zone there): the kernel may only read "
                           "it, and an index goes out of bounds"
                         : "");
    }
    free(expected);
    free(tol);
    free(a);
    free(b);
    free(c);
    return ok;
}

/* Where a size's verdict comes from besides a run of its own (each field NULL where not): the
 * folder where the run of every size saved its files (its output in log), or that run itself,
 * which failed at its first size and so ran exactly as that size alone would have. */
struct size_from {
    const char *saved, *log;
    struct harness_run *ran;
};

/* One hidden size. Returns 1 if right; *untouched is set when nothing at all was written.
 * right_at: the largest size it was right at so far (0: none); a smaller one says that the kernel
 * does end, should it time out here. from: with no field set, the harness runs this size alone. */
static int test_size(const struct grader_config *cfg, const struct grader_exercise *ex,
                     const char *kernel, struct grader_size size, int right_at,
                     const struct size_from *from, char *dead, size_t dead_size, int *untouched,
                     struct grader_exercise_result *r) {
    char name[64], tag[48], at[64];
    int n = size.n;
    if (ex->rectangular)
        snprintf(name, sizeof name, "correct at MxNxK=%dx%dx%d", size.m, size.n, size.k);
    else
        snprintf(name, sizeof name, "correct at N=%d", n);
    grader_size_text(ex, size, at, sizeof at);
    int pts = ex->points.per_size;
    *untouched = 0;
    if (dead[0]) {
        grader_add_verdict(r, GRADER_NOT_RUN, name, 0, pts, "not run: %s", dead);
        return 0;
    }
    int judged = from->saved ? judge_size(cfg, ex, size, name, pts, at, from->saved, from->log, 1,
                                          untouched, r)
                             : -1;
    if (judged >= 0)
        return judged;
    *untouched = 0;
    snprintf(tag, sizeof tag, "%dx%dx%d", size.m, size.n, size.k);
    struct harness_run h;
    if (from->ran)
        h = *from->ran; /* (the caller's: it is done with it) */
    else
        grade_run_harness(cfg, ex, kernel, size, tag, UNDER_DEVICE, &h);
    r->too_busy |= h.run.how == RUN_TOO_BUSY;
    /* stopped at its limit: the reference's time for the same run tells slow from endless */
    char ends[64];
    if (ex->rectangular)
        snprintf(ends, sizeof ends, "it was right at a smaller size");
    else
        snprintf(ends, sizeof ends, "it was right at N = %d", right_at);
    struct grader_pace pace = {.seconds = h.run.seconds,
                               .work = "the same run",
                               .ends = right_at > 0 && right_at < n ? ends : NULL};
    struct grader_size first = grader_hidden_size(ex, 0);
    int warm = size.m != first.m || size.n != first.n || size.k != first.k; /* built before */
    if (h.run.how == RUN_TIMEOUT)
        pace.reference_seconds = grade_reference_seconds(cfg, ex, size, warm);
    char *failure = grader_harness_failure(&h.run, h.log, at, &pace, dead, dead_size);
    if (failure) {
        grader_add_test(r, name, 0, pts, "%s", failure);
        free(failure);
        grade_harness_done(&h);
        return 0;
    }
    int ok = judge_size(cfg, ex, size, name, pts, at, h.dir, h.log, 0, untouched, r);
    grade_harness_done(&h);
    return ok;
}

/* Size i's folder in the run of every size (h->dir, then h->dir/then-I), if that run saved all
 * of its files there: a folder of its own (no link: the run's code made it) holding RESULT_DONE. */
static int size_saved(const struct harness_run *h, int i, char *dir, size_t size) {
    char name[32], done[PATH_MAX + 128];
    struct stat st;
    snprintf(name, sizeof name, RESULT_THEN, i);
    if (snprintf(dir, size, "%s%s%s", h->dir, i ? "/" : "", i ? name : "") >= (int)size)
        return 0;
    if (snprintf(done, sizeof done, "%.*s/" RESULT_DONE, PATH_MAX + 64, dir) >= (int)sizeof done)
        return 0;
    return lstat(dir, &st) == 0 && S_ISDIR(st.st_mode) && lstat(done, &st) == 0 &&
           S_ISREG(st.st_mode);
}

/* How many sizes, from the first, the run of every size saved (their files judged as a run of
 * each would have been): where it failed, the size it failed at and those after it run alone,
 * each with its own limit and its own words, as they always were. A run that failed after the
 * last size's files (at its end) leaves the last size to a run of its own. */
static int sizes_saved(const struct harness_run *h, int count, char dirs[][PATH_MAX + 64]) {
    int saved = 0;
    while (saved < count && size_saved(h, saved, dirs[saved], sizeof dirs[saved]))
        saved++;
    int ended = h->run.how == RUN_EXITED && h->run.code == HARNESS_OK;
    return !ended && saved == count ? count - 1 : saved;
}

void grade_test_sizes(const struct grader_config *cfg, const struct grader_exercise *ex,
                      const char *kernel, char *dead, size_t dead_size, int *passed_out,
                      int *sizes_out, int *untouched_out, struct grader_exercise_result *r) {
    int passed = 0, sizes = 0, untouched_all = 1, passed_only_16 = 1, failed_not_16 = 1;
    int right_at = 0, count = grader_size_count(ex), saved = 0;
    /* every size in one harness first, where a harness's start is the dearer part (a GPU's
     * driver: 0.3 s a start on the H200, the run of a hidden size 0.05 s) */
    struct harness_run all = {0};
    char dirs[GRADER_MAX_SIZES][PATH_MAX + 64];
    int ran_all = cfg->sizes_in_one_run && count > 1 && !dead[0];
    if (ran_all) {
        struct grader_size each[GRADER_MAX_SIZES];
        for (int i = 0; i < count; i++)
            each[i] = grader_hidden_size(ex, i);
        grade_run_harness_sizes(cfg, ex, kernel, each, count, "sizes", &all);
        saved = sizes_saved(&all, count, dirs);
    }
    for (; sizes < count; sizes++) {
        struct grader_size size = grader_hidden_size(ex, sizes);
        int n = size.n, untouched = 0;
        struct size_from from = {sizes < saved ? dirs[sizes] : NULL, all.log, NULL};
        if (ran_all && saved == 0) { /* failed at the first size: that size's own run */
            from.ran = &all;
            ran_all = 0; /* (test_size is done with it) */
        }
        int ok = test_size(cfg, ex, kernel, size, right_at, &from, dead, dead_size, &untouched, r);
        if (ok && n > right_at)
            right_at = n;
        passed += ok;
        untouched_all &= untouched;
        if (ok && n % 16 != 0)
            passed_only_16 = 0;
        if (!ok && n % 16 == 0)
            failed_not_16 = 0;
    }
    /* (not when a run stopped the later ones: a kernel that timed out at N = 100 says nothing
     * about the multiples of 16) */
    if (passed > 0 && passed < sizes && passed_only_16 && failed_not_16 && !dead[0])
        grader_test_append(&r->tests[r->test_count - 1],
                           "hint: right only at sizes that are multiples of 16: does the kernel "
                           "assume N is one?");
    if (ran_all)
        grade_harness_done(&all);
    *passed_out = passed;
    *sizes_out = sizes;
    *untouched_out = untouched_all;
}
