/* score.h - how speed is scored (score.c): from the figures of the timed rounds to the ratio, the
 * fractions of the vendor's speed and the points. Pure functions: the protocol that gathers the
 * figures (timing_protocol.c, timing.c) and the verdicts' wording (perf_test.c) live elsewhere;
 * which rounds count is the busy-machine judgement's (busy.h). tests/unit/test_score.c reaches
 * every rule here.
 *
 * The performance point: the median of the kept rounds' own ratios (the reference's launch over
 * the student's beside it) at least the plan's perf_ratio. The capstone's points: one
 * points.vendor for each of the row's vendor_ratios that the student's fastest launch reaches
 * against the anchor's fastest quiet one; where the anchor had no quiet launch, or the student's
 * kernel none while the anchor had, the part is skipped (its points leave the maximum).
 */
#ifndef GRADER_GRADE_SCORE_H
#define GRADER_GRADE_SCORE_H

#include "grade/busy.h"

/* More rounds are added while the kept rounds' own ratios spread more than this (their middle
 * half, against the median). */
#define GRADE_SCORE_SPREAD_MOST 0.15

/* What the comparison reports, from the rounds kept (grade_busy_rounds_kept). */
struct grade_score_figures {
    struct clu_stats mine, ref;   /* seconds per launch */
    double mine_event, ref_event; /* medians of what the harnesses reported */
    double cpus[2];               /* median CPUs each had (0: unknown) */
    double ratio;                 /* the median of the rounds' own ratios */
    int kept, starved;            /* rounds counted, rounds left out */
    double ref_unloaded;          /* the reference's fastest launch, less what the machine took */
};

/* The figures of the first `rounds` rounds of the sides mine and ref, with the vendors' launches
 * of v (NULL: none) in the judgement of which rounds count. */
void grade_score_figures(const struct grade_busy_launches *mine,
                         const struct grade_busy_launches *ref, const struct grader_vendor_times *v,
                         int rounds, struct grade_score_figures *f);

/* The kept rounds' ratios spread: (third quartile - first) / median; 0 under 4 rounds kept. */
double grade_score_spread(const struct grade_busy_launches *mine,
                          const struct grade_busy_launches *ref,
                          const struct grader_vendor_times *v, int rounds);

/* Whether a ratio (grade_score_figures) earns the performance point at the plan's perf_ratio. */
int grade_score_perf_earned(double ratio, double perf_ratio);

/* The student's launches in the vendors' rounds and the rounds after them. */
struct grade_score_yours {
    double fastest; /* seconds of the fastest (0: none) */
    int count;      /* launches recorded */
    int quiet;      /* of those, the ones other work did not starve */
};
void grade_score_yours(const struct grader_vendor_times *v, struct grade_score_yours *y);

/* One vendor timed in v, against the student's kernel. */
struct grade_score_vendor {
    struct clu_stats t; /* seconds of its quiet launches (every_starved: of the rounds kept) */
    int every_starved;  /* no launch of it was quiet */
    double gflops;      /* flops over its median */
    double ratio;       /* the student's fastest over its fastest (none: GFLOP/s over GFLOP/s) */
};
/* Vendor id of v: `fastest` the student's fastest launch (0: none, then student_gflops, the
 * comparison's, is held against the vendor's median), flops those of one launch. */
void grade_score_vendor(const struct grader_vendor_times *v, int id, double fastest,
                        double student_gflops, double flops, struct grade_score_vendor *out);

/* How many fractions of the vendor's speed row ex has points at (its vendor_ratios before the 0).
 */
int grade_score_fractions(const struct grader_exercise *ex);

/* How many of ratios (ascending, count of them) ratio reaches. */
int grade_score_reached(double ratio, const double *ratios, int count);

/* Whether the capstone's part against its anchor is scored. */
enum grade_score_part {
    GRADE_SCORE_SCORED,         /* the points from the ratio */
    GRADE_SCORE_ANCHOR_STARVED, /* no launch of the anchor was quiet: skipped */
    GRADE_SCORE_YOURS_STARVED,  /* the anchor's were, none of the student's: skipped */
};

/* The capstone's part, decided. */
struct grade_score_vendor_points {
    enum grade_score_part part; /* scored or skipped, and why */
    double ratio;               /* the student's speed over the anchor's (scored) */
    int reached;                /* fractions of the row's reached */
    int points;                 /* reached * the row's points.vendor */
};

/* Row ex's part against vendor `anchor` of v (timed: v->timed[anchor]), the student's launches
 * from y (read from the rounds beside the vendors, even where v is the vendors timed alone),
 * student_gflops the comparison's. */
void grade_score_vendor_points(const struct grader_exercise *ex,
                               const struct grader_vendor_times *v, int anchor,
                               const struct grade_score_yours *y, double student_gflops,
                               struct grade_score_vendor_points *out);

#endif
