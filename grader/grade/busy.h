/* busy.h - which launches of the timed comparison a busy machine starved, and so which rounds
 * count (busy.c). Pure functions of the figures the protocol recorded (timing_protocol.c): no
 * clock, no /proc, no child; what the machine holds (its CPUs) is passed in. The scoring rule
 * (score.h) reads only the rounds these keep. tests/unit/test_score.c reaches every rule here.
 *
 * A launch lost to a busy machine the larger of two shares: the CPUs it had under the best it had
 * in any round (1 - had / best), and the time its threads waited for a CPU another task held
 * against the time they ran and waited (waited / (had + waited)). The waits tell what the CPU
 * share cannot: OpenBLAS's threads spin while they wait for each other, so a library starved of
 * one core still counts two. A launch that lost more than GRADE_BUSY_LOST is starved.
 */
#ifndef GRADER_GRADE_BUSY_H
#define GRADER_GRADE_BUSY_H

#include "grade/grade.h"

#define GRADE_BUSY_LOST 0.25 /* the most a launch may lose to other work and still count */
/* Where fewer of the capstone's anchor's launches were quiet, more of it follow (timing.c) */
#define GRADE_BUSY_QUIET_WANTED 2

/* What one side's launches recorded, round by round. */
struct grade_busy_launches {
    double seconds[GRADER_VENDOR_SLOTS];  /* on the grader's clock, per launch (0: none) */
    double reported[GRADER_VENDOR_SLOTS]; /* as the harness reported it, per launch */
    double cpus[GRADER_VENDOR_SLOTS];     /* CPUs it had (CPU seconds / seconds; -1: unknown) */
    double waited[GRADER_VENDOR_SLOTS]; /* its threads that waited for a CPU, on average (-1: "") */
};

/* The share of a window of `seen` seconds in which threads of a child waited for a CPU that
 * another task held, from its waited seconds before and after (-1: unknown). */
double grade_busy_waited_share(double before, double after, double seen);

/* What the launch in slot r lost, from cpus[r] and waited[r], against the best CPUs it had in any
 * round (best); 0 where neither is known (a GPU's launch). */
double grade_busy_lost_share(const double *cpus, const double *waited, int r, double best);

/* Whether round r, the last so far, was starved: any launch of it (the sides' mine and ref, NULL
 * where there is none; each vendor of v still timed, v NULL: none) lost more than
 * GRADE_BUSY_LOST, judged against its best CPUs of rounds 0 to r. */
int grade_busy_round_starved(const struct grade_busy_launches *mine,
                             const struct grade_busy_launches *ref,
                             const struct grader_vendor_times *v, int r);

/* Whether `rounds` rounds, `kept` of them quiet, show a machine busy throughout: no more are
 * measured (GRADER_TIMED_ROUNDS + 3 of them, under 3 quiet). */
int grade_busy_throughout(int rounds, int kept);

/* Which of the first `rounds` rounds count (kept[r] 1 or 0), and how many: those where no launch
 * (as in grade_busy_round_starved) lost more than GRADE_BUSY_LOST against its best of every round;
 * where fewer than 3 are, the GRADER_TIMED_ROUNDS (or all, if fewer) that lost least instead. */
int grade_busy_rounds_kept(const struct grade_busy_launches *mine,
                           const struct grade_busy_launches *ref,
                           const struct grader_vendor_times *v, int rounds,
                           int kept[GRADER_MAX_ROUNDS]);

/* Whether any of the kept rounds (kept[r], from grade_busy_rounds_kept) lost more than
 * GRADE_BUSY_LOST: fewer than 3 were quiet, and the least starved stand in for them. */
int grade_busy_kept_starved(const struct grade_busy_launches *mine,
                            const struct grade_busy_launches *ref,
                            const struct grader_vendor_times *v, int rounds,
                            const int kept[GRADER_MAX_ROUNDS]);

/* What side s's launch in slot r would have taken with every CPU its threads waited for, up to
 * the machine's cpus: seconds * had / min(had + waited, cpus); its seconds where either is
 * unknown. A bound, not a figure to score on: threads that wait without running (a spinner at
 * a low priority) would shrink it, so only a verdict's doubt is read from it (score.h). */
double grade_busy_unstarved_seconds(const struct grade_busy_launches *s, int r, double cpus);

/* Vendor id's launches (the rounds' and those taken again) that lost at most GRADE_BUSY_LOST, each
 * against its best CPUs in any of them: their seconds into quiet, unsorted, and how many. */
int grade_busy_vendor_quiet(const struct grader_vendor_times *v, int id,
                            double quiet[GRADER_VENDOR_SLOTS]);

/* The same of one side's launches in rounds 0 to rounds - 1 (the reference timed with the
 * vendors). */
int grade_busy_side_quiet(const struct grade_busy_launches *s, int rounds,
                          double quiet[GRADER_VENDOR_SLOTS]);

#endif
