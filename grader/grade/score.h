/* score.h - how speed is scored (score.c): from the figures of the timed rounds to the ratio, the
 * fractions of the vendor's speed and the points. Pure functions: the protocol that gathers the
 * figures (timing_protocol.c, timing.c) and the verdicts' wording (perf_test.c) live elsewhere;
 * which rounds count is the busy-machine judgement's (busy.h). tests/unit/test_score.c reaches
 * every rule here.
 *
 * The performance point: the median of the kept rounds' own ratios (the reference's launch over
 * the student's beside it) at least the plan's perf_ratio. The capstone's points: one
 * points.vendor for each of the row's vendor_ratios that the student's speed reaches against the
 * anchor's, through the reference: the student's ratio to it times its speed over the anchor's,
 * timed together once per device, N and library (anchor.c). Never skipped for a busy machine.
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

/* Whether a ratio under perf_ratio may be the busy machine's doing rather than the kernel's:
 * the rounds kept were not all quiet (busy throughout, the least starved stand in), and the
 * student's launches, each with every CPU it waited for (grade_busy_unstarved_seconds, at most
 * the machine's cpus), would reach perf_ratio against the reference's as timed (the median of
 * those rounds' ratios, into *could). Beside a batch's other gradings a copy of the reference
 * had 0.3 CPUs where the reference had 0.6 in the same round (ratio 0.47 of the median): such a
 * verdict is not published but graded again (too busy), never a point lost for the machine.
 * A loss that holds even so (a kernel 6 times slower) is published as measured. */
int grade_score_perf_unsure(const struct grade_busy_launches *mine,
                            const struct grade_busy_launches *ref, int rounds, double perf_ratio,
                            double cpus, double *could);

/* The capstone's anchor against the reference, timed together with no student's code running
 * (anchor.c): the reference's fastest launch and the anchor's fastest quiet one. A starved launch
 * of the anchor never counts: OpenBLAS's threads wait on each other, so one that lost a core ran
 * at a third of its speed, and a figure from it would hand out fractions. */
struct grade_score_anchor {
    double ref;    /* seconds of the reference's fastest launch */
    double anchor; /* seconds of the anchor's fastest quiet launch */
    int quiet;     /* how many of its launches a busy machine did not starve */
};
/* Anchor id's figures from the vendors timed with the reference (v: grade_vendors_alone): 0, or -1
 * where the reference has no launch or the anchor no quiet one. */
int grade_score_anchor_of(const struct grader_vendor_times *v, int id,
                          struct grade_score_anchor *a);

/* One vendor timed in v (with the reference), shown beside the student's kernel. */
struct grade_score_vendor {
    struct clu_stats t; /* seconds of its quiet launches (every_starved: of the rounds kept) */
    int every_starved;  /* no launch of it was quiet */
    double gflops;      /* flops over its median */
    double ratio;       /* the student's speed over its speed (grade_score_vendor_ratio) */
};
/* Vendor id of v, flops those of one launch, ratio the student's to the reference (the median of
 * the rounds' own ratios). */
void grade_score_vendor(const struct grader_vendor_times *v, int id, double ratio, double flops,
                        struct grade_score_vendor *out);

/* The student's speed over a vendor's: the student's ratio to the reference in the comparison's
 * rounds, times the reference's speed over the vendor's when the two ran together (their fastest
 * launches). Every student of one device, N and library is held against the same figure, and a
 * busy machine moves neither factor far: each is a ratio of launches that ran side by side. */
double grade_score_vendor_ratio(double ratio, double ref_seconds, double vendor_seconds);

/* How many fractions of the vendor's speed row ex has points at (its vendor_ratios before the 0).
 */
int grade_score_fractions(const struct grader_exercise *ex);

/* How many of ratios (ascending, count of them) ratio reaches. */
int grade_score_reached(double ratio, const double *ratios, int count);

/* The capstone's part against its anchor: always scored, so its points are in every student's
 * maximum. */
struct grade_score_vendor_points {
    double ratio; /* the student's speed over the anchor's */
    int reached;  /* fractions of the row's reached */
    int points;   /* reached * the row's points.vendor */
};

/* Row ex's part from the student's ratio to the reference and the anchor's figures a. */
void grade_score_vendor_points(const struct grader_exercise *ex, double ratio,
                               const struct grade_score_anchor *a,
                               struct grade_score_vendor_points *out);

#endif
