/* perf_test.c - the tests of speed: the kernel against the reference solution (grade_test_perf)
 * and the capstone against its vendor's anchor (grade_test_vendors). Their verdicts and words;
 * the timing is timing.c's, the ratio, the fractions and the points score.c's.
 */
#define _GNU_SOURCE /* localtime_r */
#include "grade/internal.h"
#include "grade/timing_protocol.h"
#include "grade/barrier_loop.h"
#include "grade/score.h"

#include <limits.h>
#include <string.h>
#include <time.h>

/* The vendors' lines of the report: each one's launches with the reference, and the student's
 * speed against it (the student's ratio to the reference times the reference's over it). */
static void vendor_lines(const struct grader_config *cfg, const struct grader_exercise *rx,
                         const struct grade_anchor *a, double ratio, char *lines, size_t size) {
    enum clu_vendor_id anchor = grader_vendor_anchor(cfg);
    const char *who = clu_vendor_name(anchor);
    double flops = grader_flops(rx, grader_square(rx->perf_n));
    char when[40] = "";
    time_t t = (time_t)a->when;
    struct tm tm;
    if (localtime_r(&t, &tm))
        strftime(when, sizeof when, "%Y-%m-%d %H:%M", &tm);
    int used = snprintf(
        lines, size,
        "N = %d: your ratio to the reference (%.2f, in the rounds above) times the reference's "
        "speed over each vendor's, timed together with no code of a student's running (%d rounds "
        "and %d more launches of %s, %s%s), on the grader's clock:\nreference  fastest %.3f ms  "
        "%.2f GFLOP/s",
        rx->perf_n, ratio, a->rounds, a->again, who, when,
        a->kept ? "; kept for this device, N and library in the grader's cache folder, so every "
                  "student graded here is held against the same figure"
                : "",
        a->score.ref * 1e3, flops / a->score.ref * 1e-9);
    for (int id = 0; id < CLU_VENDOR_COUNT && used > 0 && (size_t)used < size; id++) {
        if (!a->timed[id]) {
            used += snprintf(lines + used, size - (size_t)used, "\n%-10s not timed: %s",
                             clu_vendor_name(id), a->why[id]);
            continue;
        }
        const struct clu_stats *v = &a->t[id];
        used += snprintf(lines + used, size - (size_t)used,
                         "\n%-10s %.3f ms (min %.3f, max %.3f%s)  %.2f GFLOP/s: yours at %.2fx%s",
                         clu_vendor_name(id), v->median * 1e3, v->min * 1e3, v->max * 1e3,
                         a->every_starved[id] ? ", every launch starved by a busy machine" : "",
                         flops / v->median * 1e-9,
                         grade_score_vendor_ratio(ratio, a->score.ref, v->min),
                         id == (int)anchor ? " (the points' anchor)" : "");
    }
}

/* The capstone against its anchor (grader_vendor_anchor: OpenBLAS on a CPU, CLBlast on a GPU):
 * points.vendor for each of the row's fractions of the anchor's speed reached. Whether the anchor
 * can be timed here was decided before the student's code ran (here->off): where it cannot (not
 * installed, a device it fails on) the points leave the maximum of every student. Otherwise they
 * are in it, whatever the machine's load: a grading where the anchor then fails is not published
 * (too_busy: grade again), never scored on another maximum. */
void grade_test_vendors(const struct grader_config *cfg, const struct grader_exercise *ex,
                        const struct grader_exercise *rx, const char *reference, int timed,
                        const struct grade_anchor_here *here, struct grader_exercise_result *r) {
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
    if (cfg->handout) {
        grader_add_instructors(r, name, pts,
                               "the instructor's grading decides these points: they are your "
                               "speed against the reference solution's, which the handout leaves "
                               "out, times the reference's against %s",
                               who);
        return;
    }
    if (here->off) {
        grader_add_verdict(r, GRADER_SKIPPED, name, 0, pts,
                           "skipped: %s is not timed here (%s), so its %d points are left out "
                           "of the maximum, for every student graded here",
                           who, here->off, pts);
        return;
    }
    if (!timed || r->gflops <= 0 || r->ratio <= 0) {
        grader_add_verdict(r, GRADER_NOT_RUN, name, 0, pts,
                           "not timed: the kernel must first be right at every size and timed "
                           "against the reference");
        return;
    }
    static struct grade_anchor a; /* (large) */
    if (grade_anchor_get(cfg, rx, reference, here, &a) != 0) {
        r->too_busy = 1; /* not published: the grader's trouble, not the student's */
        grader_add_verdict(r, GRADER_NOT_RUN, name, 0, pts,
                           "not timed: %s ran in the grader's check before your kernel, but not "
                           "when timed with the reference after it (%s): the machine's trouble, "
                           "so this grading is not published, rather than scored on another "
                           "maximum (grade again when the machine is quieter)",
                           who, a.why[anchor]);
        return;
    }
    struct grade_score_vendor_points part;
    grade_score_vendor_points(ex, r->ratio, &a.score, &part);
    char lines[1400];
    vendor_lines(cfg, rx, &a, r->ratio, lines, sizeof lines);
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
#define PERF_MIN_SECONDS GRADE_PERF_MIN_SECONDS
#define PERF_MAX_N       4096

int grade_perf_next_n(const struct grader_exercise *ex, const struct grader_exercise *rx,
                      double ref_seconds) {
    int next = 2 * ex->perf_n;
    if (ex->is_vector || ex->perf_fixed || ref_seconds <= 0.0 || ref_seconds >= PERF_MIN_SECONDS ||
        next > PERF_MAX_N || !grader_size_valid(ex, next) || !grader_size_valid(rx, next))
        return 0;
    /* too short a launch to time well: again at the first doubling whose launch the reference's
     * pace (its time growing with the work) puts at PERF_MIN_SECONDS, rather than one doubling
     * at a time (a GPU's 512 to 4096 was four comparisons, now two) */
    double per_flop = ref_seconds / grader_flops(ex, grader_square(ex->perf_n));
    while (per_flop * grader_flops(ex, grader_square(next)) < PERF_MIN_SECONDS &&
           2 * next <= PERF_MAX_N && grader_size_valid(ex, 2 * next) &&
           grader_size_valid(rx, 2 * next))
        next *= 2;
    return next;
}

/* A handout's timing (cfg->handout): the point is the instructor's, whose grading has the
 * reference; here the kernel is timed alone at the row's timed size (jailed, every round checked)
 * and, for a product, beside the sequential loop and OpenBLAS: a student's speed against what a
 * student has. */
static void perf_handout(const struct grader_config *cfg, const struct grader_exercise *ex,
                         const char *kernel, int all_right, struct grader_exercise_result *r) {
    char text[2000] = "", why[600] = "", dir[PATH_MAX];
    double stats[3];
    if (!cfg->perf)
        snprintf(text, sizeof text, "\nnot timed here: timing was switched off (--no-perf)");
    else if (!all_right)
        snprintf(text, sizeof text,
                 "\nnot timed here either: the kernel must first be right at "
                 "every size");
    else {
        snprintf(dir, sizeof dir, "%s/%s/perf-alone", cfg->work, ex->id);
        grader_make_dirs(dir);
        if (grader_time_student(cfg, ex, kernel, ex->perf_n, dir, stats, why, sizeof why) != 0)
            snprintf(text, sizeof text, "\nnot timed here: %s", why);
        else {
            double flops = grader_flops(ex, grader_square(ex->perf_n));
            r->gflops = flops / stats[1] * 1e-9;
            snprintf(text, sizeof text,
                     "\nhere, N = %d, your kernel alone, %d rounds on the grader's clock: "
                     "%.3f ms (min %.3f, max %.3f)  %.2f GFLOP/s",
                     ex->perf_n, GRADER_TIMED_ROUNDS, stats[1] * 1e3, stats[0] * 1e3,
                     stats[2] * 1e3, r->gflops);
            if (!ex->is_vector)
                grade_baselines_text(cfg, ex->perf_n, stats[1], text, sizeof text);
        }
    }
    grader_add_instructors(r, "performance against the reference solution", ex->points.perf,
                           "the instructor's grading decides this point: it times your kernel "
                           "against the reference solution, which the handout leaves out%s",
                           text);
}

void grade_test_perf(const struct grader_config *cfg, const struct grader_exercise *ex,
                     const struct grader_exercise *ref_ex, const char *kernel, const char *note,
                     int all_right, const struct grader_traffic *mine,
                     const struct grade_anchor_here *here, struct grader_exercise_result *r) {
    const char *name = "performance against the reference solution";
    int pts = ex->points.perf;
    char reference[PATH_MAX], text[4000], traffic[400] = "";
    snprintf(reference, sizeof reference, "%s/solutions/%s/kernel.cl", cfg->root, ex->id);
    if (cfg->handout) {
        perf_handout(cfg, ex, kernel, all_right, r);
        if (ex->vendor_ratios[0] > 0)
            grade_test_vendors(cfg, ex, ref_ex, reference, 0, here, r);
        return;
    }
    if (!all_right) {
        grader_add_verdict(r, GRADER_NOT_RUN, name, 0, pts,
                           "not timed: the kernel must first be right at every size");
        if (ex->vendor_ratios[0] > 0) /* listed all the same: the maximum is everyone's */
            grade_test_vendors(cfg, ex, ref_ex, reference, 0, here, r);
        return;
    }
    int earned = 0, too_busy = 0;
    double ref_seconds = 0.0;
    struct grader_exercise timed = *ex, ref_timed = *ref_ex;
    ex = &timed;
    char smaller[400] = ""; /* the comparisons at smaller sizes, for the log */
    for (;;) {
        ref_timed.perf_n = timed.perf_n;
        double began = grade_timing_now();
        /* (the reference's fastest round, less what a busy machine took from it, judges the
         * launch's length: beside load the median kept N at 512 on this machine, where the
         * capstone's ratio to OpenBLAS is another) */
        ref_seconds = 0.0;
        /* where a larger N can follow, a reference's launch shorter than PERF_MIN_SECONDS (a GPU
         * at the row's N: 0.07 ms) ends the comparison before its rounds (7 s of every step's
         * grading on the H200); a busy machine only lengthens a launch, so it never skips one
         * that a quiet machine would have timed */
        double grow_below =
            grade_perf_next_n(ex, &ref_timed, PERF_MIN_SECONDS / 1e6) ? PERF_MIN_SECONDS : 0.0;
        double kept = grow_below > 0.0 ? grade_pace_kept(cfg, &ref_timed, reference) : 0.0;
        if (kept > 0.0 && grade_perf_next_n(ex, &ref_timed, kept)) {
            int next = grade_perf_next_n(ex, &ref_timed, kept);
            grade_appendf(smaller, sizeof smaller,
                          "\n" GRADER_LOG_ONLY "first at N = %d (kept from an earlier grading on "
                          "this device): the reference's launch took %.3f ms, under %.0f ms, so "
                          "timed at N = %d",
                          timed.perf_n, kept * 1e3, PERF_MIN_SECONDS * 1e3, next);
            timed.perf_n = next;
            continue;
        }
        grader_perf_test(cfg, ex, kernel, &ref_timed, reference, grow_below, &r->gflops,
                         &r->ref_gflops, &r->ratio, &ref_seconds, text, sizeof text, &earned,
                         &too_busy);
        int next = grade_perf_next_n(ex, &ref_timed, ref_seconds);
        if (next == 0)
            break;
        grade_pace_keep(cfg, &ref_timed, reference, ref_seconds);
        grade_appendf(smaller, sizeof smaller,
                      "\n" GRADER_LOG_ONLY "first at N = %d (%.1f s): the reference's launch took "
                      "%.3f ms, under %.0f ms, so timed at N = %d",
                      timed.perf_n, grade_timing_now() - began, ref_seconds * 1e3,
                      PERF_MIN_SECONDS * 1e3, next);
        timed.perf_n = next;
    }
    r->too_busy |= too_busy;
    if (earned && !ex->is_vector)
        grade_traffic_rows(cfg, ex, mine, reference, traffic, sizeof traffic);
    /* a kernel text POCL's implicit-loop-barrier pass slows on a CPU device: its cause and
     * one-line fix named, the score as it is (a wrong technique loses the point all the same).
     * Named from the text and the device alone, not from the ratio: the lecture's 05 without its
     * if runs at 0.84x the reference alone on the 2-core VM, 1.01x beside make test's other lane
     * (both sides starved alike), and a hint that comes and goes with outside load tells a
     * student nothing */
    const char *pocl = "";
    if (!too_busy && cfg->device_cpu && r->gflops > 0 && grade_barrier_loop_unwrapped_file(kernel))
        pocl = "\nOn a CPU device (POCL) a kernel with barriers can run its loops up to 3 times "
               "slower when no if encloses them: POCL's implicit-loop-barrier pass makes such a "
               "loop one over the work-items and keeps each one's variables in memory. The "
               "reference wraps its work in an if on its global ids that is always true (04's "
               "README, \"Why the kernel has if (i < N)\"): put your kernel's body inside "
               "`if (i < N) { ... }` (05: `if (i < N && j < N)`; every work-item still reaches "
               "every barrier) and POCL builds it as it builds the reference.";
    grader_add_test(r, name, earned ? pts : 0, pts, "%s%s%s%s%s", note, text, smaller, traffic,
                    pocl);
    if (ex->vendor_ratios[0] > 0)
        grade_test_vendors(cfg, ex, &ref_timed, reference, 1, here, r);
}
