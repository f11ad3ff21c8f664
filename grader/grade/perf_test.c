/* perf_test.c - the tests of speed: the kernel against the reference solution (grade_test_perf)
 * and the capstone against its vendor's anchor (grade_test_vendors). Their verdicts and words;
 * the timing is timing.c's, the ratio, the fractions and the points score.c's.
 */
#include "grade/internal.h"
#include "grade/barrier_loop.h"
#include "grade/score.h"

#include <string.h>

/* The capstone against the vendors timed in the same rounds: points.vendor for each of the row's
 * fractions of the anchor's speed reached (grader_vendor_anchor: OpenBLAS on a CPU, CLBlast on a
 * GPU); the others reported. Whether the anchor can be timed here was decided
 * before the student's code ran (grade.c's check of the vendors alone, vendors_off): where it
 * cannot (not installed, a device it fails on) the points leave the maximum of every student.
 * Where it could but then failed beside the student's kernel, it is timed alone once the
 * student's processes are gone; only when it fails alone too is the grader's trouble left out
 * for this student. v NULL: the kernel was not timed. */
void grade_test_vendors(const struct grader_config *cfg, const struct grader_exercise *ex,
                        const struct grader_exercise *rx, const char *reference,
                        const struct grader_vendor_times *v, const char *vendors_off,
                        struct grader_exercise_result *r) {
    enum clu_vendor_id anchor = grader_vendor_anchor(cfg);
    const char *who = clu_vendor_name(anchor);
    char name[160], thresholds[64] = "";
    int count = grade_score_fractions(ex);
    for (int i = 0; i < count; i++) {
        size_t used = strlen(thresholds);
        snprintf(thresholds + used, sizeof thresholds - used, "%s%gx", i ? ", " : "",
                 ex->vendor_ratios[i]);
    }
    snprintf(name, sizeof name, "speed against %s (points at %s)", who, thresholds);
    int pts = count * ex->points.vendor;
    if (vendors_off) {
        grader_add_verdict(r, GRADER_SKIPPED, name, 0, pts,
                           "skipped: %s is not timed here (%s), so its %d points are left out "
                           "of the maximum, for every student graded here",
                           who, vendors_off, pts);
        return;
    }
    if (!v || r->gflops <= 0) {
        grader_add_verdict(r, GRADER_NOT_RUN, name, 0, pts,
                           "not timed: the kernel must first be right at every size and timed "
                           "against the reference");
        return;
    }
    /* your fastest launch, against each vendor's fastest that a busy machine did not starve (a
     * launch of yours that was is only slower: score.c) */
    struct grade_score_yours yours;
    grade_score_yours(v, &yours);
    struct grader_vendor_times alone;
    char beside[200] = "";
    if (!v->timed[anchor]) { /* it ran in the check before: time it with nobody else */
        snprintf(beside, sizeof beside, "%s", v->why[anchor]);
        grade_vendors_alone(cfg, rx, reference, TIMED_ROUNDS, &alone);
        v = &alone;
        if (!v->timed[anchor]) {
            grader_add_verdict(r, GRADER_SKIPPED, name, 0, pts,
                               "skipped: %s ran in the grader's check before your kernel, "
                               "but failed beside it (%s) and alone after it (%s): the machine's "
                               "trouble, so its %d points are left out of your maximum (an "
                               "instructor may grade again)",
                               who, beside, v->why[anchor], pts);
            return;
        }
    }
    struct grade_score_vendor_points part;
    grade_score_vendor_points(ex, v, anchor, &yours, r->gflops, &part);
    if (part.part == GRADE_SCORE_ANCHOR_STARVED) {
        grader_add_verdict(
            r, GRADER_SKIPPED, name, 0, pts,
            "skipped: the machine was too busy to time %s: in all %d of its "
            "launches (%d in the rounds, %d in more rounds of yours and it alone, "
            "over %.1f s) other work took over %.0f%% of the CPU time it wanted (its "
            "threads wait on each other, so that slows it more than your kernel): the "
            "machine's trouble, so its %d points are left out of your maximum "
            "(grade again on a quieter machine; an instructor may grade again)",
            who, v->rounds + v->again, v->rounds, v->again, v->again_seconds, 100 * GRADE_BUSY_LOST,
            pts);
        return;
    }
    if (part.part == GRADE_SCORE_YOURS_STARVED) {
        grader_add_verdict(
            r, GRADER_SKIPPED, name, 0, pts,
            "skipped: the machine was too busy to time your kernel against %s: in all %d of "
            "its launches (%d in more rounds of yours and %s alone, over %.1f s) other work "
            "took over %.0f%% of the CPU time it wanted, while %s had quiet ones: the "
            "machine's trouble, so the %d points are left out of your maximum (grade again on "
            "a quieter machine; an instructor may grade again)",
            who, yours.count, v->again, who, v->again_seconds, 100 * GRADE_BUSY_LOST, who, pts);
        return;
    }
    double flops = grader_flops(ex, grader_square(ex->perf_n));
    char lines[1400];
    int used = beside[0]
                   ? snprintf(lines, sizeof lines,
                              "N = %d, on the grader's clock: %s failed in the rounds "
                              "beside your kernel (%.150s), so the vendors were timed alone "
                              "after it:",
                              ex->perf_n, who, beside)
                   : snprintf(lines, sizeof lines,
                              "N = %d, in the same rounds as yours, on the grader's clock (\"yours "
                              "at\": your fastest launch against the vendor's fastest that a busy "
                              "machine did not starve):",
                              ex->perf_n);
    int counted = 0;
    for (int round = 0; round < v->rounds; round++)
        counted += v->kept[round];
    if (counted < v->rounds && used > 0 && (size_t)used < sizeof lines)
        used += snprintf(lines + used, sizeof lines - (size_t)used,
                         " %d of %d rounds, %d left out where a busy machine took the most from "
                         "a side or a vendor (over %.0f%% of the CPU time it wanted; the most of "
                         "all where every round lost that much)",
                         counted, v->rounds, v->rounds - counted, 100 * GRADE_BUSY_LOST);
    if (v->again > 0 && used > 0 && (size_t)used < sizeof lines)
        used += snprintf(lines + used, sizeof lines - (size_t)used,
                         "; %d more rounds of yours and %s alone, where under %d of its "
                         "launches in the rounds were quiet",
                         v->again, who, GRADE_BUSY_QUIET_WANTED);
    if (yours.fastest > 0.0 && used > 0 && (size_t)used < sizeof lines)
        used += snprintf(lines + used, sizeof lines - (size_t)used,
                         "\nyours      fastest %.3f ms of %d launches  %.2f GFLOP/s",
                         yours.fastest * 1e3, yours.count, flops / yours.fastest * 1e-9);
    for (int id = 0; id < CLU_VENDOR_COUNT && used > 0 && (size_t)used < sizeof lines; id++) {
        if (!v->timed[id]) {
            used += snprintf(lines + used, sizeof lines - (size_t)used, "\n%-10s not timed: %s",
                             clu_vendor_name(id), v->why[id]);
            continue;
        }
        struct grade_score_vendor f;
        grade_score_vendor(v, id, yours.fastest, r->gflops, flops, &f);
        used += snprintf(lines + used, sizeof lines - (size_t)used,
                         "\n%-10s %.3f ms (min %.3f, max %.3f%s)  %.2f GFLOP/s: yours at %.2fx%s",
                         clu_vendor_name(id), f.t.median * 1e3, f.t.min * 1e3, f.t.max * 1e3,
                         f.every_starved ? ", every launch starved by a busy machine" : "",
                         f.gflops, f.ratio, id == (int)anchor ? " (the points' anchor)" : "");
    }
    r->vendor_ratio = part.ratio;
    r->vendor_anchor = (int)anchor;
    grader_add_test(r, name, part.points, pts,
                    "%s\nyours at %.2fx %s's speed: %d of the %d fractions reached%s", lines,
                    r->vendor_ratio, who, part.reached, count,
                    anchor == CLU_OPENBLAS
                        ? " (on a CPU the fractions are of OpenBLAS, the library a CPU user "
                          "would call: CLBlast runs untuned there)"
                        : "");
}

/* The timed size: from the row's perf_n, doubled while one launch of the reference lasts less
 * than PERF_MIN_SECONDS (the median of the comparison's rounds), up to PERF_MAX_N, so that a GPU
 * is not timed on a launch of a few microseconds; a CPU reaches the bound at the row's own size
 * and pays nothing more. A perf_n an instructor's config sets is kept as it is. */
#define PERF_MIN_SECONDS 0.020
#define PERF_MAX_N       4096

void grade_test_perf(const struct grader_config *cfg, const struct grader_exercise *ex,
                     const struct grader_exercise *ref_ex, const char *kernel, const char *note,
                     int all_right, const struct grader_traffic *mine, const char *vendors_off,
                     struct grader_exercise_result *r) {
    const char *name = "performance against the reference solution";
    int pts = ex->points.perf;
    char reference[PATH_MAX], text[4000], traffic[400] = "";
    snprintf(reference, sizeof reference, "%s/solutions/%s/kernel.cl", cfg->root, ex->id);
    if (!all_right) {
        grader_add_verdict(r, GRADER_NOT_RUN, name, 0, pts,
                           "not timed: the kernel must first be right at every size");
        if (ex->vendor_ratios[0] > 0) /* listed all the same: the maximum is everyone's */
            grade_test_vendors(cfg, ex, ref_ex, reference, NULL, vendors_off, r);
        return;
    }
    int earned = 0, too_busy = 0;
    double ref_seconds = 0.0;
    struct grader_vendor_times vendors;
    struct grader_exercise timed = *ex, ref_timed = *ref_ex;
    ex = &timed;
    for (;;) {
        ref_timed.perf_n = timed.perf_n;
        /* (the reference's fastest round, less what a busy machine took from it, judges the
         * launch's length: beside load the median kept N at 512 on this machine, where the
         * capstone's ratio to OpenBLAS is another) */
        ref_seconds = 0.0;
        grader_perf_test(cfg, ex, kernel, &ref_timed, reference, &r->gflops, &r->ref_gflops,
                         &r->ratio, &ref_seconds, text, sizeof text, &earned, &too_busy,
                         ex->vendor_ratios[0] > 0 ? &vendors : NULL);
        int next = 2 * ex->perf_n;
        if (ex->is_vector || ex->perf_fixed || ref_seconds <= 0.0 ||
            ref_seconds >= PERF_MIN_SECONDS || next > PERF_MAX_N || !grader_size_valid(ex, next) ||
            !grader_size_valid(&ref_timed, next))
            break;
        /* too short a launch to time well: again at the first doubling whose launch the
         * reference's pace (its time growing with the work) puts at PERF_MIN_SECONDS, rather
         * than one doubling at a time (a GPU's 512 to 4096 was four comparisons, now two) */
        double per_flop = ref_seconds / grader_flops(ex, grader_square(ex->perf_n));
        while (per_flop * grader_flops(ex, grader_square(next)) < PERF_MIN_SECONDS &&
               2 * next <= PERF_MAX_N && grader_size_valid(ex, 2 * next) &&
               grader_size_valid(&ref_timed, 2 * next))
            next *= 2;
        timed.perf_n = next;
    }
    r->too_busy |= too_busy;
    if (earned && !ex->is_vector)
        grade_traffic_rows(cfg, ex, mine, reference, traffic, sizeof traffic);
    /* slower than the reference on a CPU device (a lost point among them) in a way POCL's
     * implicit-loop-barrier pass may explain: its cause and one-line fix named, the score as it
     * is (a wrong technique loses the point all the same) */
    const char *pocl = "";
    if ((!earned || r->gflops < r->ref_gflops) && !too_busy && cfg->device_cpu && r->gflops > 0 &&
        grade_barrier_loop_unwrapped_file(kernel))
        pocl = "\nOn a CPU device (POCL) a kernel with barriers can run its loops up to 3 times "
               "slower when no if encloses them: POCL's implicit-loop-barrier pass makes such a "
               "loop one over the work-items and keeps each one's variables in memory. The "
               "reference wraps its work in an if on its global ids that is always true (04's "
               "README, \"Why the kernel has if (i < N)\"): put your kernel's body inside "
               "`if (i < N) { ... }` (05: `if (i < N && j < N)`; every work-item still reaches "
               "every barrier) and POCL builds it as it builds the reference.";
    grader_add_test(r, name, earned ? pts : 0, pts, "%s%s%s%s", note, text, traffic, pocl);
    if (ex->vendor_ratios[0] > 0)
        grade_test_vendors(cfg, ex, &ref_timed, reference, &vendors, vendors_off, r);
}
