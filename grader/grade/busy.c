/* busy.c - the busy-machine judgement of the timed comparison (busy.h): which launches lost too
 * much to other work, which rounds count. Pure: the protocol (timing_protocol.c) records the
 * figures and the machine's CPUs, and decides nothing.
 */
#include "grade/busy.h"

double grade_busy_waited_share(double before, double after, double seen) {
    return before >= 0.0 && after >= before && seen > 0.0 ? (after - before) / seen : -1.0;
}

double grade_busy_lost_share(const double *cpus, const double *waited, int r, double best) {
    double lost = 0.0;
    if (cpus[r] >= 0.0 && best > 0.0 && 1.0 - cpus[r] / best > lost)
        lost = 1.0 - cpus[r] / best;
    if (cpus[r] >= 0.0 && waited[r] > 0.0 && waited[r] / (cpus[r] + waited[r]) > lost)
        lost = waited[r] / (cpus[r] + waited[r]);
    return lost;
}

/* Each launch of the round, as one walk: the sides' (mine and ref; NULL: none) in slots 0 and 1,
 * the vendors' still timed (v; NULL: none) in 2 + id; -1 for a slot that has none. */
static int round_slot(const struct grade_busy_launches *mine, const struct grade_busy_launches *ref,
                      const struct grader_vendor_times *v, int slot, const double **cpus,
                      const double **waited) {
    const struct grade_busy_launches *side = slot == 0 ? mine : slot == 1 ? ref : NULL;
    if (side) {
        *cpus = side->cpus, *waited = side->waited;
        return 0;
    }
    if (slot >= 2 && v && !v->why[slot - 2][0]) {
        *cpus = v->cpus[slot - 2], *waited = v->waited[slot - 2];
        return 0;
    }
    return -1;
}

/* The most any launch of round r lost, each against the best CPUs it had in rounds [0, upto). */
static double round_lost(const struct grade_busy_launches *mine,
                         const struct grade_busy_launches *ref, const struct grader_vendor_times *v,
                         int r, int upto) {
    double most = 0.0;
    for (int slot = 0; slot < 2 + CLU_VENDOR_COUNT; slot++) {
        const double *cpus, *waited;
        if (round_slot(mine, ref, v, slot, &cpus, &waited) != 0)
            continue;
        double best = 0.0;
        for (int q = 0; q < upto; q++)
            best = cpus[q] > best ? cpus[q] : best;
        double lost = grade_busy_lost_share(cpus, waited, r, best);
        most = lost > most ? lost : most;
    }
    return most;
}

int grade_busy_round_starved(const struct grade_busy_launches *mine,
                             const struct grade_busy_launches *ref,
                             const struct grader_vendor_times *v, int r) {
    return round_lost(mine, ref, v, r, r + 1) > GRADE_BUSY_LOST;
}

/* More would rarely be quiet (beside the other tests' load here, up to 15 rounds a comparison
 * made `make test` 40 s longer); the least starved count. */
int grade_busy_throughout(int rounds, int kept) {
    return rounds >= GRADER_TIMED_ROUNDS + 3 && kept < 3;
}

/* A first round that was starved is known only later, so each is judged against its best of
 * every round. One set for all launches, so that the student's speed and the vendor's it is held
 * against come from the same rounds. Where fewer than 3 were quiet (starved throughout), the least
 * starved rather than a verdict on two: each launch suffers from a busy machine in its own way
 * (OpenBLAS splits the work evenly between its threads, POCL hands out work-groups), so the
 * ratios drift the more the rounds lost. */
int grade_busy_rounds_kept(const struct grade_busy_launches *mine,
                           const struct grade_busy_launches *ref,
                           const struct grader_vendor_times *v, int rounds,
                           int kept[GRADER_MAX_ROUNDS]) {
    double lost[GRADER_MAX_ROUNDS];
    int count = 0;
    for (int r = 0; r < rounds; r++) {
        lost[r] = round_lost(mine, ref, v, r, rounds);
        count += kept[r] = lost[r] <= GRADE_BUSY_LOST;
    }
    if (count >= 3)
        return count;
    int want = rounds < GRADER_TIMED_ROUNDS ? rounds : GRADER_TIMED_ROUNDS;
    for (count = 0; count < want; count++) { /* the least starved left, one at a time */
        int pick = -1;
        for (int r = 0; r < rounds; r++)
            if (!kept[r] && (pick < 0 || lost[r] < lost[pick]))
                pick = r;
        if (pick < 0)
            break;
        kept[pick] = 2; /* (picked; made 1 below) */
    }
    for (int r = 0; r < rounds; r++)
        kept[r] = kept[r] == 2;
    return count;
}

int grade_busy_kept_starved(const struct grade_busy_launches *mine,
                            const struct grade_busy_launches *ref,
                            const struct grader_vendor_times *v, int rounds,
                            const int kept[GRADER_MAX_ROUNDS]) {
    for (int r = 0; r < rounds; r++)
        if (kept[r] && round_lost(mine, ref, v, r, rounds) > GRADE_BUSY_LOST)
            return 1;
    return 0;
}

double grade_busy_unstarved_seconds(const struct grade_busy_launches *s, int r, double cpus) {
    double had = s->cpus[r], wanted = had + s->waited[r];
    if (!(had > 0.0) || !(s->waited[r] > 0.0) || !(cpus > 0.0))
        return s->seconds[r];
    if (wanted > cpus)
        wanted = cpus;
    return had < wanted ? s->seconds[r] * had / wanted : s->seconds[r];
}

/* A vendor's verdict is on these alone: OpenBLAS's threads wait on each other, so one that lost a
 * core ran here at a third of its speed (103 ms against 33 at N = 1024), where POCL's
 * work-groups, handed out as threads come free, slowed by half. */
static int launches_quiet(const double *seconds, const double *cpus, const double *waited,
                          int slots, double *quiet) {
    int count = 0;
    double best = 0.0;
    for (int slot = 0; slot < slots; slot++)
        best = seconds[slot] > 0.0 && cpus[slot] > best ? cpus[slot] : best;
    for (int slot = 0; slot < slots; slot++)
        if (seconds[slot] > 0.0 &&
            grade_busy_lost_share(cpus, waited, slot, best) <= GRADE_BUSY_LOST)
            quiet[count++] = seconds[slot];
    return count;
}

int grade_busy_vendor_quiet(const struct grader_vendor_times *v, int id,
                            double quiet[GRADER_VENDOR_SLOTS]) {
    return launches_quiet(v->seconds[id], v->cpus[id], v->waited[id], v->rounds + v->again, quiet);
}

int grade_busy_side_quiet(const struct grade_busy_launches *s, int rounds,
                          double quiet[GRADER_VENDOR_SLOTS]) {
    return launches_quiet(s->seconds, s->cpus, s->waited, rounds, quiet);
}
