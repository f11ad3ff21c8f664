/* score.c - how speed is scored (score.h): ratios, fractions and points from the recorded
 * figures. Pure: nothing here runs, reads or waits.
 */
#include "grade/score.h"

#include <math.h>

/* The rounds' own ratios (the reference's launch against the student's beside it), sorted. */
static int round_ratios(const struct grade_busy_launches *mine,
                        const struct grade_busy_launches *ref, const struct grader_vendor_times *v,
                        int rounds, double ratios[GRADER_MAX_ROUNDS]) {
    int kept[GRADER_MAX_ROUNDS], n = 0;
    grade_busy_rounds_kept(mine, ref, v, rounds, kept);
    for (int r = 0; r < rounds; r++)
        if (kept[r] && mine->seconds[r] > 0.0)
            ratios[n++] = ref->seconds[r] / mine->seconds[r];
    clu_stats_of(ratios, n); /* (sorts them) */
    return n;
}

double grade_score_spread(const struct grade_busy_launches *mine,
                          const struct grade_busy_launches *ref,
                          const struct grader_vendor_times *v, int rounds) {
    double ratios[GRADER_MAX_ROUNDS];
    int n = round_ratios(mine, ref, v, rounds, ratios);
    if (n < 4)
        return 0.0;
    double median = clu_stats_of(ratios, n).median;
    return median > 0.0 ? (ratios[(3 * n) / 4] - ratios[n / 4]) / median : 0.0;
}

void grade_score_figures(const struct grade_busy_launches *mine,
                         const struct grade_busy_launches *ref, const struct grader_vendor_times *v,
                         int rounds, struct grade_score_figures *f) {
    const struct grade_busy_launches *sides[2] = {mine, ref};
    int kept[GRADER_MAX_ROUNDS];
    double s[4][GRADER_MAX_ROUNDS], cpus[2][GRADER_MAX_ROUNDS], ratios[GRADER_MAX_ROUNDS];
    *f = (struct grade_score_figures){0};
    f->kept = grade_busy_rounds_kept(mine, ref, v, rounds, kept);
    f->starved = rounds - f->kept;
    int n = 0, known[2] = {0, 0};
    for (int r = 0; r < rounds; r++) {
        if (!kept[r])
            continue;
        s[0][n] = mine->seconds[r], s[1][n] = ref->seconds[r];
        s[2][n] = mine->reported[r], s[3][n] = ref->reported[r];
        for (int w = 0; w < 2; w++)
            if (sides[w]->cpus[r] >= 0.0)
                cpus[w][known[w]++] = sides[w]->cpus[r];
        /* the share of the CPU time it wanted that it had: the launch alone would take that much
         * of its time (the reference's own threads: no cap at the machine's CPUs) */
        double seconds = grade_busy_unstarved_seconds(ref, r, HUGE_VAL);
        if (n == 0 || seconds < f->ref_unloaded)
            f->ref_unloaded = seconds;
        n++;
    }
    f->mine = clu_stats_of(s[0], n);
    f->ref = clu_stats_of(s[1], n);
    f->mine_event = clu_stats_of(s[2], n).median;
    f->ref_event = clu_stats_of(s[3], n).median;
    for (int w = 0; w < 2; w++)
        f->cpus[w] = known[w] ? clu_stats_of(cpus[w], known[w]).median : 0.0;
    f->ratio = clu_stats_of(ratios, round_ratios(mine, ref, v, rounds, ratios)).median;
}

/* Generous on purpose: timings on shared machines swing up to 2x (exercise.h). */
int grade_score_perf_earned(double ratio, double perf_ratio) {
    return ratio >= perf_ratio;
}

int grade_score_perf_unsure(const struct grade_busy_launches *mine,
                            const struct grade_busy_launches *ref, int rounds, double perf_ratio,
                            double cpus, double *could) {
    int kept[GRADER_MAX_ROUNDS], n = 0;
    double ratios[GRADER_MAX_ROUNDS];
    *could = 0.0;
    grade_busy_rounds_kept(mine, ref, NULL, rounds, kept);
    if (!grade_busy_kept_starved(mine, ref, NULL, rounds, kept))
        return 0;
    for (int r = 0; r < rounds; r++) {
        double alone = grade_busy_unstarved_seconds(mine, r, cpus);
        if (kept[r] && alone > 0.0)
            ratios[n++] = ref->seconds[r] / alone;
    }
    *could = clu_stats_of(ratios, n).median;
    return n > 0 && grade_score_perf_earned(*could, perf_ratio);
}

/* ---------------------------------------------------------------- the capstone's vendors */

/* The same for every student on one device, known before any student's code runs. */
enum clu_vendor_id grader_vendor_anchor(const struct grader_config *cfg) {
    return cfg->device_cpu ? CLU_OPENBLAS : CLU_CLBLAST;
}

int grade_score_anchor_of(const struct grader_vendor_times *v, int id,
                          struct grade_score_anchor *a) {
    double quiet[GRADER_VENDOR_SLOTS];
    *a = (struct grade_score_anchor){v->ref_fastest, 0.0, 0};
    int n = grade_busy_vendor_quiet(v, id, quiet);
    a->quiet = n;
    a->anchor = n > 0 ? clu_stats_of(quiet, n).min : 0.0;
    return a->ref > 0.0 && n > 0 ? 0 : -1;
}

double grade_score_vendor_ratio(double ratio, double ref_seconds, double vendor_seconds) {
    return ref_seconds > 0.0 ? ratio * vendor_seconds / ref_seconds : 0.0;
}

/* The fastest of each is what the two do on the machine at its best: this machine's two cores run
 * OpenBLAS at 33 ms or at 63 ms (N = 1024) in spells of a second or two with nothing else running
 * (the host's doing, unseen from inside). */
void grade_score_vendor(const struct grader_vendor_times *v, int id, double ratio, double flops,
                        struct grade_score_vendor *out) {
    double quiet[GRADER_VENDOR_SLOTS];
    int n = grade_busy_vendor_quiet(v, id, quiet);
    out->every_starved = n == 0;
    if (n == 0)
        for (int round = 0; round < v->rounds; round++)
            if (v->kept[round])
                quiet[n++] = v->seconds[id][round];
    out->t = clu_stats_of(quiet, n);
    out->gflops = flops / out->t.median * 1e-9;
    out->ratio = grade_score_vendor_ratio(ratio, v->ref_fastest, out->t.min);
}

int grade_score_fractions(const struct grader_exercise *ex) {
    int count = 0;
    while (count < GRADER_MAX_RATIOS && ex->vendor_ratios[count] > 0)
        count++;
    return count;
}

int grade_score_reached(double ratio, const double *ratios, int count) {
    int reached = 0;
    while (reached < count && ratio >= ratios[reached])
        reached++;
    return reached;
}

void grade_score_vendor_points(const struct grader_exercise *ex, double ratio,
                               const struct grade_score_anchor *a,
                               struct grade_score_vendor_points *out) {
    out->ratio = grade_score_vendor_ratio(ratio, a->ref, a->anchor);
    out->reached = grade_score_reached(out->ratio, ex->vendor_ratios, grade_score_fractions(ex));
    out->points = out->reached * ex->points.vendor;
}
