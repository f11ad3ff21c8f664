/* subgroups.c - the memory check of a kernel that uses sub-groups (subgroups.h): the canonical
 * text with the grader's own sub-groups (subgroups_text.c), under oclgrind with sub-groups of a
 * row of the work-group (POCL's CPU device, where 12 is graded, makes them so) and of one
 * work-item, and on the device with sub-groups of one, where it must be right. A kernel that
 * keeps 12's contract works for any sub-group size, so neither layout can cost it the point.
 * The row is what the graded device runs (a kernel that tells sizes apart cannot hide from it);
 * one work-item adds no barrier, so a race that a sub-group function's barrier hides in the row
 * shows there. Sizes between the two (an Intel GPU's 8 in a row of 16) are not checked: 12's
 * README says so.
 */
#include "grade/subgroups.h"
#include "exercise/protocol.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#define NAME "memory check (oclgrind): bounds, races, uninitialised values, barriers"

int grade_sub_groups_emulated(const struct grader_exercise *ex) {
    return ex->needs_extension && strcmp(ex->needs_extension, "cl_khr_subgroups") == 0;
}

/* One of the check's runs: what it was, how it ended. */
struct part {
    char what[160];
    enum grader_verdict verdict;
    int score, max;
    char *output; /* malloc'd */
};

/* The work-items of a work-group of ex at s with the defaults (check 0) or the oclgrind values
 * (check 1), and its dimension 0 in *row: 0 where the runtime chooses the group. */
static int group_items(const struct grader_exercise *ex, struct grader_size s, int check,
                       int *row) {
    struct grader_variant v = grader_variant_of(ex, 0, check);
    struct grader_launch l;
    if (grader_plan_launch(ex, NULL, s, &v, &l) != 0 || !l.has_local)
        return 0;
    if (row)
        *row = (int)l.local[0];
    return (int)(l.local[0] * (l.dims > 1 ? l.local[1] : 1));
}

/* in rewritten for layout into WORK/ex/kernel.sub-groups-TAG.cl (path): 0, or -1 with why in p
 * (not run for the grader's trouble, lost for a kernel no device builds in time). */
static int write_text(const struct grader_config *cfg, const struct grader_exercise *ex,
                      const char *in, enum grader_sub_groups layout, int slots, const char *tag,
                      char *path, size_t path_size, struct grader_sub_group_text *did,
                      struct part *p) {
    char why[200];
    snprintf(path, path_size, "%s/%s/kernel.sub-groups-%s.cl", cfg->work, ex->id, tag);
    int rc = grader_sub_groups_file(in, path, ex->kernel, layout, slots, did, why, sizeof why);
    if (rc == 0)
        return 0;
    p->verdict = rc == -2 ? GRADER_FAIL : GRADER_NOT_RUN;
    p->max = ex->points.memcheck;
    p->output = malloc(300);
    if (p->output)
        snprintf(p->output, 300, "%s%s", rc == -2 ? "" : "not run: ", why);
    return -1;
}

/* The text under oclgrind, as memcheck.c checks any kernel: its one test taken into p. */
static void under_oclgrind(const struct grader_config *cfg, const struct grader_exercise *ex,
                           const char *path, struct part *p, struct grader_exercise_result *r) {
    struct grader_exercise_result one;
    memset(&one, 0, sizeof one);
    one.ex = ex;
    struct grade_builds builds; /* the one text, at the graded values (row 12 has no others) */
    grade_oclgrind_builds(ex, path, path, NULL, &builds);
    grade_test_memcheck(cfg, ex, &builds, "", &one);
    r->too_busy |= one.too_busy;
    if (one.test_count < 1) {
        p->verdict = GRADER_NOT_RUN;
        p->max = ex->points.memcheck;
        return;
    }
    p->verdict = one.tests[0].verdict;
    p->score = one.tests[0].score;
    p->max = one.tests[0].max;
    p->output = one.tests[0].output;
    one.tests[0].output = NULL;
    grader_free_result(&one);
}

/* The text on the device at s: right, or why not in p. */
static void on_device(const struct grader_config *cfg, const struct grader_exercise *ex,
                      const char *path, struct grader_size s, struct part *p,
                      struct grader_exercise_result *r) {
    char at[64], dead[200] = "", why[200] = "";
    grader_size_text(ex, s, at, sizeof at);
    struct harness_run h;
    grade_run_harness(cfg, ex, path, s, "sub-groups-one", 0, &h);
    r->too_busy |= h.run.how == RUN_TOO_BUSY;
    p->max = ex->points.memcheck;
    p->verdict = GRADER_FAIL;
    char *failure = grader_harness_failure(&h.run, h.log, at, NULL, dead, sizeof dead);
    size_t count = grader_output_count(ex, s);
    uint64_t seed = grader_seed_for(cfg->seed, ex, s);
    float *c = failure ? NULL
                       : grader_load_result(h.dir, RESULT_C, count + grader_guard_count(ex, s), why,
                                            sizeof why);
    double *expected = NULL, *tol = NULL;
    size_t size = 1200 + (failure ? strlen(failure) : 0);
    p->output = malloc(size);
    if (p->output)
        p->output[0] = '\0';
    if (!p->output) {
        p->verdict = GRADER_NOT_RUN; /* (the grader out of memory) */
    } else if (failure) {
        snprintf(p->output, size, "%s", failure);
    } else if (!c) {
        snprintf(p->output, size, "the harness saved no usable output (%s)", why);
    } else if (grader_reference(ex, s, seed, &expected, &tol) != 0) {
        p->verdict = GRADER_NOT_RUN;
        snprintf(p->output, size, "grader out of memory at %s", at);
    } else {
        struct grader_diagnosis d;
        grader_diagnose(ex, s, seed, c, expected, tol, &d);
        size_t damaged = grader_guard_damage(c + count, grader_guard_count(ex, s));
        char wrong[800] = "";
        if (d.m.wrong)
            grader_describe_wrong(ex, s, &d, wrong, sizeof wrong);
        if (!d.m.wrong && !damaged)
            p->verdict = GRADER_PASS;
        else
            snprintf(p->output, size,
                     "%s%s%s\nThe kernel must be right for every sub-group size the device may "
                     "choose (OpenCL does not fix it), one work-item included: does it assume a "
                     "size (a step of 16 along k, get_local_id(0) as the lane, a sub-group that "
                     "is the whole work-group)?",
                     wrong, wrong[0] && damaged ? "\n" : "",
                     damaged ? "wrote past the end of C (the grader keeps a guard zone there)"
                             : "");
        p->score = p->verdict == GRADER_PASS ? p->max : 0;
    }
    free(expected);
    free(tol);
    free(c);
    free(failure);
    grade_harness_done(&h);
}

/* How much a part's verdict weighs in the merged test's. */
static int weight(enum grader_verdict v) {
    return v == GRADER_FAIL ? 3 : v == GRADER_NOT_RUN ? 2 : v == GRADER_SKIPPED ? 1 : 0;
}

/* The parts as one test: lost where one lost, not run where one could not run, left out where
 * one was (memcheck.c's verdict where oclgrind cannot interpret the kernel), else the point;
 * the parts of that verdict say why. */
static void merge(const struct grader_exercise *ex, struct part *parts, int count,
                  const char *clean, struct grader_exercise_result *r) {
    int pts = ex->points.memcheck;
    enum grader_verdict decided = GRADER_PASS;
    for (int i = 0; i < count; i++)
        if (weight(parts[i].verdict) > weight(decided))
            decided = parts[i].verdict;
    if (decided == GRADER_PASS) {
        grader_add_test(r, NAME, pts, pts, "%s", clean);
        return;
    }
    size_t size = 256;
    for (int i = 0; i < count; i++)
        size += strlen(parts[i].what) + (parts[i].output ? strlen(parts[i].output) : 0) + 512;
    char *text = malloc(size);
    if (!text) {
        grader_add_verdict(r, GRADER_NOT_RUN, NAME, 0, pts, "grader out of memory");
        return;
    }
    size_t used = 0;
    int max = pts, score = 0;
    for (int i = 0; i < count; i++) {
        if (parts[i].verdict != decided)
            continue;
        const char *out = parts[i].output ? parts[i].output : "(no output)";
        int again = 0; /* the same findings in both layouts: said once */
        for (int j = 0; j < i; j++)
            again |=
                parts[j].verdict == decided && parts[j].output && strcmp(parts[j].output, out) == 0;
        used += (size_t)snprintf(text + used, size - used, "%s%s: %s", used ? "\n" : "",
                                 parts[i].what, again ? "the same" : out);
        if (!again && strstr(out, SUB_GROUP_SLOTS))
            used += (size_t)snprintf(
                text + used, size - used,
                "\nhint: the grader's sub-groups exchange values through an array it declares in "
                "the kernel function's body: call the sub-group functions there, not in a "
                "function of your own");
        if (decided == GRADER_SKIPPED) { /* (memcheck.c's own maximum for it) */
            max = parts[i].max;
            score = parts[i].score;
        }
    }
    grader_add_verdict(r, decided, NAME, score, max, "%s", text);
    free(text);
}

void grade_test_sub_group_memcheck(const struct grader_config *cfg,
                                   const struct grader_exercise *ex, const char *kernel,
                                   const char *checked, int all_right, const char *dead,
                                   struct grader_exercise_result *r) {
    if (!grade_memcheck_can_run(NAME, ex->points.memcheck, dead, r))
        return;
    /* the exchange array holds a work-group of any build the texts are run with */
    struct grader_size at = grader_memcheck_at(ex), first = grader_hidden_size(ex, 0);
    int row = 0, slots = group_items(ex, at, 1, &row);
    int more = group_items(ex, at, 0, NULL), device = group_items(ex, first, 0, NULL);
    slots = more > slots ? more : slots;
    slots = device > slots ? device : slots;
    if (slots < 1)
        slots = 1024;

    struct part parts[3];
    memset(parts, 0, sizeof parts);
    int count = 0;
    char path[PATH_MAX + 96], where[64];
    grader_size_text(ex, at, where, sizeof where);
    struct grader_sub_group_text did = {0};
    /* a row of the work-group: the sub-groups the graded device makes */
    struct part *p = &parts[count++];
    snprintf(p->what, sizeof p->what,
             "with the grader's sub-groups of a row of the work-group (%d work-items, as POCL "
             "makes them)",
             row);
    int written =
        write_text(cfg, ex, checked, SUB_GROUPS_ROW, slots, "row", path, sizeof path, &did, p) == 0;
    if (written && did.outside) { /* the array is out of its reach: nothing to run */
        snprintf(p->what, sizeof p->what, "the grader's sub-groups (oclgrind has none)");
        p->verdict = GRADER_FAIL;
        p->max = ex->points.memcheck;
        p->output = malloc(600);
        if (p->output)
            snprintf(p->output, 600,
                     "kernel.cl:%d: %s is called outside the kernel function %s (%d such "
                     "call%s). The grader's sub-groups exchange values through an array it "
                     "declares in %s's body, out of reach there, so the check cannot run this "
                     "kernel: call the sub-group functions in %s itself, as its contract says",
                     did.outside_line, did.outside_name, ex->kernel, did.outside,
                     did.outside == 1 ? "" : "s", ex->kernel, ex->kernel);
        did.calls = 0; /* (no other run) */
    } else if (written) {
        under_oclgrind(cfg, ex, path, p, r);
    }
    /* one work-item: another size the kernel must take (no barrier in its exchanges either) */
    if (did.calls > 0) {
        p = &parts[count++];
        snprintf(p->what, sizeof p->what, "with the grader's sub-groups of one work-item");
        if (write_text(cfg, ex, checked, SUB_GROUPS_ONE, slots, "one", path, sizeof path, NULL,
                       p) == 0)
            under_oclgrind(cfg, ex, path, p, r);
    }
    /* a kernel wrong at the hidden sizes has lost their points: its C with sub-groups of one
     * would tell nothing of the sub-group size */
    if (did.calls > 0 && all_right) {
        p = &parts[count++];
        char on[64];
        grader_size_text(ex, first, on, sizeof on);
        snprintf(p->what, sizeof p->what,
                 "with the grader's sub-groups of one work-item, on the device at %s", on);
        if (write_text(cfg, ex, kernel, SUB_GROUPS_ONE, slots, "one-device", path, sizeof path,
                       NULL, p) == 0)
            on_device(cfg, ex, path, first, p, r);
    }
    char clean[600];
    if (did.calls > 0 || did.outside)
        snprintf(clean, sizeof clean,
                 "clean at %s with the grader's sub-groups (oclgrind has none) of a row of the "
                 "work-group (%d work-items, as POCL makes them) and of one work-item%s",
                 where, row,
                 all_right ? "; right with sub-groups of one on the device"
                           : " (right with sub-groups of one: not checked, the kernel must first "
                             "be right at every size)");
    else
        snprintf(clean, sizeof clean, "clean at %s (the kernel calls no sub-group function)",
                 where);
    merge(ex, parts, count, clean, r);
    for (int i = 0; i < count; i++)
        free(parts[i].output);
}
