/* test_score.c - unit tests (cmocka) of how speed is scored (grade/score.h) and of the busy-machine
 * judgement that picks the rounds it scores (grade/busy.h): pure functions, fed recorded figures.
 *   - the starved-launch rule: a launch that lost more than a quarter (of the CPUs it had at best,
 *     or of the CPU time it wanted, waiting) is starved; a quarter exactly is not; unknown is not;
 *   - which rounds count: the quiet ones where 3 or more are, else the 5 that lost least; a round
 *     is judged against its best of the rounds so far while measuring, of every round after;
 *     a machine busy throughout stops at 8 rounds under 3 quiet;
 *   - the vendor's quiet launches;
 *   - the ratio (the median of the kept rounds' own ratios) and the point at perf_ratio: just
 *     below, at and just above it; the spread that adds rounds;
 *   - the capstone's anchor (OpenBLAS on a CPU, CLBlast on a GPU): its fastest quiet launch against
 *     the reference's, timed together (its fastest of all where none was quiet, said so); the
 *     student's ratio to the reference times the reference's over the anchor's, each fraction
 *     just below, at and just above: always scored, so the maximum never moves.
 *   - a loss on a machine busy throughout published only where it holds with every CPU the
 *     student's launches waited for (at most the machine's), else graded again;
 * Figures are drawn from a seed chosen at run time and printed at the start and in every failure;
 * TEST_SCORE_SEED=<seed> repeats a run. Where a threshold is met exactly the figures are chosen so
 * that floating point computes it exactly (3m of 4m CPUs, seconds that are powers of two).
 */
#define _GNU_SOURCE /* mkdtemp, clock_gettime (testkit.h) */
#include "grader.h"
#include "grade/score.h"

#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "testkit.h"

static char g_tmp[64];

static int group_setup(void **state) {
    (void)state;
    return testkit_start("test_score", "TEST_SCORE_SEED", g_tmp, sizeof g_tmp);
}

static int group_teardown(void **state) {
    (void)state;
    grader_remove_tree(g_tmp);
    return 0;
}

/* ---------------------------------------------------------------- figures */

#define LOST 0.25 /* a quarter: the README's rule, written here apart from busy.h's constant */

/* Uniform in [lo, hi). */
static double uniform(struct rng *r, double lo, double hi) {
    return lo + (hi - lo) * (double)(rng_next(r) >> 11) * 0x1p-53;
}

/* 2^-k seconds, k in [3, 10]: a ratio of it and q times it is q exactly. */
static double power_seconds(struct rng *r) {
    return ldexp(1.0, -(int)rng_range(r, 3, 10));
}

/* Every slot of s a quiet launch: `cpus` CPUs (-1: unknown, a GPU), no waits, seconds. */
static void fill(struct grade_busy_launches *s, double cpus, double seconds) {
    for (int i = 0; i < GRADER_VENDOR_SLOTS; i++) {
        s->seconds[i] = seconds;
        s->reported[i] = seconds;
        s->cpus[i] = cpus;
        s->waited[i] = cpus < 0 ? -1.0 : 0.0;
    }
}

/* Slot i of s waited for a CPU `share` of the CPU time it wanted (had `cpus`). */
static void plant_wait(double *cpus, double *waited, int i, double had, double share) {
    cpus[i] = had;
    waited[i] = had * share / (1.0 - share);
}

/* Vendor times with every vendor's launches in `rounds` rounds quiet at `cpus` CPUs. */
static void fill_vendors(struct grader_vendor_times *v, int rounds, double cpus, double seconds) {
    memset(v, 0, sizeof *v);
    v->rounds = rounds;
    for (int id = 0; id < CLU_VENDOR_COUNT; id++)
        for (int i = 0; i < rounds; i++) {
            v->seconds[id][i] = seconds;
            v->cpus[id][i] = cpus;
            v->waited[id][i] = cpus < 0 ? -1.0 : 0.0;
        }
    for (int i = 0; i < rounds; i++)
        v->kept[i] = 1;
    for (int id = 0; id < CLU_VENDOR_COUNT; id++)
        v->timed[id] = 1;
}

/* ---------------------------------------------------------------- the starved-launch rule */

/* Both shares a launch can lose, at a quarter exactly, a little over and a little under. */
static void test_lost_share_threshold(void **state) {
    (void)state;
    struct rng r = rng_for("lost_share");
    for (int trial = 0; trial < 2000; trial++) {
        double m = (double)rng_range(&r, 1, 1000) / 8.0, best = 4 * m;
        double eps = uniform(&r, 1e-9, 0.2) * m;
        double cpus[3] = {3 * m, 3 * m - eps, 3 * m + eps}, waited[3] = {0, 0, 0};
        /* against the best CPUs: 3m of 4m lost exactly a quarter */
        CHECK(grade_busy_lost_share(cpus, waited, 0, best) == 0.25, "3m of 4m CPUs, m = %g", m);
        CHECK(grade_busy_lost_share(cpus, waited, 1, best) > LOST, "%g of %g CPUs", cpus[1], best);
        CHECK(grade_busy_lost_share(cpus, waited, 2, best) < LOST, "%g of %g CPUs", cpus[2], best);
        /* waiting: m waited beside 3m had is a quarter exactly */
        double had[3] = {3 * m, 3 * m, 3 * m}, wait[3] = {m, m + eps, m - eps};
        CHECK(grade_busy_lost_share(had, wait, 0, 3 * m) == 0.25, "waited m of 4m, m = %g", m);
        CHECK(grade_busy_lost_share(had, wait, 1, 3 * m) > LOST, "waited %g of %g", wait[1],
              had[1] + wait[1]);
        CHECK(grade_busy_lost_share(had, wait, 2, 3 * m) < LOST, "waited %g", wait[2]);
        /* the larger of the two counts */
        double both_c[1] = {3 * m - eps}, both_w[1] = {m - eps};
        CHECK(grade_busy_lost_share(both_c, both_w, 0, best) > LOST, "the CPU share counts");
        /* unknown CPUs (a GPU's launch): nothing lost, whatever the waits */
        double gpu_c[1] = {-1.0}, gpu_w[1] = {uniform(&r, 0, 10)};
        CHECK(grade_busy_lost_share(gpu_c, gpu_w, 0, best) == 0.0, "a GPU launch lost something");
        CHECK(grade_busy_lost_share(cpus, waited, 0, 0.0) == 0.0, "no best: nothing lost");
    }
}

/* grade_busy_waited_share: the waits of a window over its length; -1 where unknown. */
static void test_waited_share(void **state) {
    (void)state;
    struct rng r = rng_for("waited_share");
    for (int trial = 0; trial < 200; trial++) {
        double before = uniform(&r, 0, 100), add = uniform(&r, 0, 5), seen = uniform(&r, 0.01, 9);
        double share = grade_busy_waited_share(before, before + add, seen);
        CHECK(fabs(share - add / seen) <= 1e-9 * (1 + add / seen), "share %g, want %g", share,
              add / seen);
        CHECK(grade_busy_waited_share(-1.0, before, seen) == -1.0, "unknown before");
        CHECK(grade_busy_waited_share(before + 1, before, seen) == -1.0, "after before before");
        CHECK(grade_busy_waited_share(before, before + add, 0.0) == -1.0, "no window");
    }
}

/* A round is starved when any launch in it (either side, any vendor still timed) lost more than
 * a quarter, against its best CPUs of the rounds up to it; a vendor left out is not judged. */
static void test_round_starved(void **state) {
    (void)state;
    struct rng r = rng_for("round_starved");
    static struct grade_busy_launches sides[2];
    static struct grader_vendor_times v;
    for (int trial = 0; trial < 500; trial++) {
        int rounds = (int)rng_range(&r, 1, GRADER_MAX_ROUNDS),
            at = (int)rng_range(&r, 0, rounds - 1);
        double m = (double)rng_range(&r, 1, 64);
        fill(&sides[0], 4 * m, 0.01);
        fill(&sides[1], 4 * m, 0.02);
        fill_vendors(&v, rounds, 4 * m, 0.03);
        int who = (int)rng_range(&r, 0, 1 + CLU_VENDOR_COUNT); /* 0, 1: a side; 2 + id: a vendor */
        double *cpus = who < 2 ? sides[who].cpus : v.cpus[who - 2];
        double *waited = who < 2 ? sides[who].waited : v.waited[who - 2];
        int how = (int)rng_range(&r, 0, 3);
        double eps = uniform(&r, 1e-6, 0.5);
        if (how == 0) /* a quarter exactly, both ways (3m of its best 4m, m waited): quiet */
            cpus[at] = 3 * m, waited[at] = m;
        else if (how == 1) /* a little over a quarter, waiting */
            plant_wait(cpus, waited, at, 4 * m, 0.25 + eps * 0.5);
        else if (how == 2) /* fewer CPUs than its best so far (none before round 0) */
            cpus[at] = 3 * m - eps;
        else /* unknown figures: never starved */
            cpus[at] = -1.0, waited[at] = 5 * m;
        int want = how == 1 || (how == 2 && at > 0);
        int starved = grade_busy_round_starved(&sides[0], &sides[1], &v, at);
        CHECK(starved == want, "round %d of %d, launch %d, case %d: starved %d, want %d", at,
              rounds, who, how, starved, want);
        if (who >= 2) { /* a vendor left out is not judged; nor without vendors */
            snprintf(v.why[who - 2], sizeof v.why[who - 2], "left out");
            CHECK(!grade_busy_round_starved(&sides[0], &sides[1], &v, at),
                  "a vendor left out judged");
            CHECK(!grade_busy_round_starved(&sides[0], &sides[1], NULL, at), "no vendors judged");
        } else {
            CHECK(!grade_busy_round_starved(NULL, NULL, &v, at), "no sides: a side judged");
        }
    }
}

/* The first round of few CPUs is judged against the rounds so far while measuring (itself: it
 * is its own best) and against every round once they are all in (grade_busy_rounds_kept). */
static void test_starved_known_later(void **state) {
    (void)state;
    static struct grade_busy_launches sides[2];
    fill(&sides[0], 4.0, 0.01);
    fill(&sides[1], 4.0, 0.01);
    sides[0].cpus[0] = 2.0;
    CHECK(!grade_busy_round_starved(&sides[0], &sides[1], NULL, 0), "round 0 against itself");
    CHECK(grade_busy_round_starved(&sides[0], &sides[1], NULL, 1) == 0, "round 1 is quiet");
    int kept[GRADER_MAX_ROUNDS];
    CHECK(grade_busy_rounds_kept(&sides[0], &sides[1], NULL, 6, kept) == 5, "5 of 6 kept");
    CHECK(!kept[0], "round 0 (half the CPUs of the others) kept");
}

/* ---------------------------------------------------------------- which rounds count */

/* rounds rounds, `quiet` of them (at random) quiet, the others starved by distinct losses from
 * 0.26 to 0.99 (at random in a side or a vendor): kept as grade_busy_rounds_kept keeps them. */
static void test_rounds_kept(void **state) {
    (void)state;
    struct rng r = rng_for("rounds_kept");
    static struct grade_busy_launches sides[2];
    static struct grader_vendor_times v;
    for (int trial = 0; trial < 2000; trial++) {
        int rounds = (int)rng_range(&r, 1, GRADER_MAX_ROUNDS);
        int quiet = (int)rng_range(&r, 0, rounds);
        fill(&sides[0], 4.0, 0.01);
        fill(&sides[1], 4.0, 0.01);
        fill_vendors(&v, rounds, 4.0, 0.01);
        int is_quiet[GRADER_MAX_ROUNDS], order[GRADER_MAX_ROUNDS];
        double lost[GRADER_MAX_ROUNDS];
        for (int i = 0; i < rounds; i++)
            order[i] = i, is_quiet[i] = 0;
        for (int i = rounds - 1; i > 0; i--) { /* shuffled: the first `quiet` are quiet */
            int j = (int)rng_range(&r, 0, i), t = order[i];
            order[i] = order[j], order[j] = t;
        }
        for (int i = 0; i < quiet; i++)
            is_quiet[order[i]] = 1;
        int steps[GRADER_MAX_ROUNDS]; /* distinct losses, shuffled */
        for (int i = 0; i < rounds; i++)
            steps[i] = i;
        for (int i = rounds - 1; i > 0; i--) {
            int j = (int)rng_range(&r, 0, i), t = steps[i];
            steps[i] = steps[j], steps[j] = t;
        }
        for (int i = 0; i < rounds; i++) {
            lost[i] = is_quiet[i] ? 0.0 : 0.26 + 0.045 * steps[i] + uniform(&r, 0, 0.01);
            int who = (int)rng_range(&r, 0, 1 + CLU_VENDOR_COUNT);
            double *cpus = who < 2 ? sides[who].cpus : v.cpus[who - 2];
            double *waited = who < 2 ? sides[who].waited : v.waited[who - 2];
            if (is_quiet[i]) { /* a quarter exactly (3 of its best 4 CPUs, 1 waited), or less */
                int how = (int)rng_range(&r, 0, 3);
                if (how == 1)
                    cpus[i] = 3.0;
                else if (how == 2)
                    cpus[i] = 3.0, waited[i] = 1.0;
                else if (how == 3)
                    waited[i] = 4.0 / 3.0 * uniform(&r, 0.1, 0.99);
                continue;
            }
            plant_wait(cpus, waited, i, 4.0, lost[i]);
        }
        int kept[GRADER_MAX_ROUNDS],
            count = grade_busy_rounds_kept(&sides[0], &sides[1], &v, rounds, kept);
        int want[GRADER_MAX_ROUNDS], want_count = 0;
        if (quiet >= 3) {
            for (int i = 0; i < rounds; i++)
                want_count += want[i] = is_quiet[i];
        } else {
            /* the GRADER_TIMED_ROUNDS starved rounds that lost least (or every starved one). As
             * the code stands the one or two quiet rounds are not among them: its pick walks the
             * rounds not yet kept, and the quiet ones are, then all but the picked are cleared */
            int limit = rounds < GRADER_TIMED_ROUNDS ? rounds : GRADER_TIMED_ROUNDS;
            for (int i = 0; i < rounds; i++) {
                int below = 0; /* starved rounds that lost less */
                for (int j = 0; j < rounds; j++)
                    below += !is_quiet[j] && lost[j] < lost[i];
                want[i] = !is_quiet[i] && below < limit;
                want_count += want[i];
            }
        }
        CHECK(count == want_count, "%d rounds, %d quiet: %d kept, want %d", rounds, quiet, count,
              want_count);
        for (int i = 0; i < rounds; i++)
            CHECK(kept[i] == want[i], "%d rounds, %d quiet: round %d (lost %.3f) kept %d, want %d",
                  rounds, quiet, i, lost[i], kept[i], want[i]);
    }
}

/* Busy throughout: GRADER_TIMED_ROUNDS + 3 rounds measured, under 3 of them quiet. */
static void test_busy_throughout(void **state) {
    (void)state;
    for (int rounds = 0; rounds <= GRADER_MAX_ROUNDS; rounds++)
        for (int kept = 0; kept <= rounds; kept++) {
            int want = rounds >= GRADER_TIMED_ROUNDS + 3 && kept < 3;
            CHECK(grade_busy_throughout(rounds, kept) == want, "%d rounds, %d quiet", rounds, kept);
        }
    CHECK(grade_busy_throughout(8, 2) && !grade_busy_throughout(8, 3) &&
              !grade_busy_throughout(7, 0),
          "the bounds: 8 rounds, 3 quiet");
}

/* ---------------------------------------------------------------- the vendor's and the student's
 */

/* A vendor's quiet launches: timed (seconds > 0), lost at most a quarter against the best CPUs
 * of its timed launches, the rounds and those taken again alike; a side's by the same rule. */
static void test_vendor_quiet(void **state) {
    (void)state;
    struct rng r = rng_for("vendor_quiet");
    static struct grader_vendor_times v;
    for (int trial = 0; trial < 1000; trial++) {
        int rounds = (int)rng_range(&r, 1, GRADER_MAX_ROUNDS);
        int again = (int)rng_range(&r, 0, GRADER_VENDOR_AGAIN);
        int id = (int)rng_range(&r, 0, CLU_VENDOR_COUNT - 1), slots = rounds + again;
        double m = (double)rng_range(&r, 1, 32);
        fill_vendors(&v, rounds, 4 * m, 0.0);
        v.again = again;
        int kind[GRADER_VENDOR_SLOTS];
        for (int s = 0; s < slots; s++) {
            v.seconds[id][s] = uniform(&r, 0.001, 0.1);
            v.cpus[id][s] = 4 * m, v.waited[id][s] = 0.0;
            kind[s] = s == slots - 1 ? 5 : (int)rng_range(&r, 0, 4); /* (the last at the best) */
            double eps = uniform(&r, 1e-6, 0.5) * m;
            if (kind[s] == 0)
                v.cpus[id][s] = 3 * m; /* lost a quarter exactly: quiet */
            else if (kind[s] == 1)
                v.cpus[id][s] = 3 * m - eps; /* starved */
            else if (kind[s] == 2)
                v.cpus[id][s] = 3 * m, v.waited[id][s] = m; /* waited a quarter: quiet */
            else if (kind[s] == 3)
                v.cpus[id][s] = 3 * m, v.waited[id][s] = m + eps; /* starved */
            else if (kind[s] == 4)
                v.seconds[id][s] = 0.0, v.cpus[id][s] = 100 * m; /* not timed: not its best */
        }
        double want[GRADER_VENDOR_SLOTS];
        int want_count = 0;
        for (int s = 0; s < slots; s++)
            if (kind[s] == 0 || kind[s] == 2 || kind[s] == 5)
                want[want_count++] = v.seconds[id][s];
        double quiet[GRADER_VENDOR_SLOTS];
        int count = grade_busy_vendor_quiet(&v, id, quiet);
        CHECK(count == want_count, "%d slots: %d quiet, want %d", slots, count, want_count);
        for (int s = 0; s < count && s < want_count; s++)
            CHECK(quiet[s] == want[s], "quiet launch %d: %g, want %g", s, quiet[s], want[s]);
        /* the same launches as a side's (the reference timed with the vendors): the same rule */
        static struct grade_busy_launches side;
        fill(&side, 4 * m, 0.0);
        for (int s = 0; s < slots; s++)
            side.seconds[s] = v.seconds[id][s], side.cpus[s] = v.cpus[id][s],
            side.waited[s] = v.waited[id][s];
        count = grade_busy_side_quiet(&side, slots, quiet);
        CHECK(count == want_count, "a side's %d slots: %d quiet, want %d", slots, count,
              want_count);
        for (int s = 0; s < count && s < want_count; s++)
            CHECK(quiet[s] == want[s], "a side's quiet launch %d: %g, want %g", s, quiet[s],
                  want[s]);
    }
}

/* ---------------------------------------------------------------- the ratio and the point */

/* The kept rounds' ratios q (each a round's reference over the student's) with medians at
 * `median`; starved rounds with wild ratios around them: the ratio and the point. */
static void test_perf_point_threshold(void **state) {
    (void)state;
    struct rng r = rng_for("perf_point");
    static struct grade_busy_launches sides[2];
    for (int trial = 0; trial < 3000; trial++) {
        double perf_ratio = trial % 3 == 0 ? GRADER_PERF_RATIO : uniform(&r, 0.2, 1.5);
        int where = (int)rng_range(&r, -1, 1); /* just under, at, just over */
        double median = where == 0  ? perf_ratio
                        : where < 0 ? nextafter(perf_ratio, 0.0)
                                    : nextafter(perf_ratio, 2.0);
        if (rng_range(&r, 0, 3) == 0) /* further off now and then */
            median = perf_ratio * (1 + where * uniform(&r, 1e-6, 0.5));
        int rounds = (int)rng_range(&r, 3, GRADER_MAX_ROUNDS);
        int starved = (int)rng_range(&r, 0, rounds - 3), kept = rounds - starved;
        fill(&sides[0], 2.0, 0.0);
        fill(&sides[1], 2.0, 0.0);
        /* kept rounds' ratios: half under the median, half over, the middle at it (an even count:
         * the two middle ones) */
        double q[GRADER_MAX_ROUNDS];
        for (int i = 0; i < kept; i++) {
            int side = i < (kept - 1) / 2 ? -1 : i > kept / 2 ? 1 : 0;
            q[i] = side == 0 ? median : median * (1 + side * uniform(&r, 0.01, 1.0));
        }
        int at = 0;
        for (int round = 0; round < rounds; round++) {
            double mine = power_seconds(&r);
            int is_starved = round >= kept; /* (the last ones) */
            double ratio = is_starved ? uniform(&r, 0.01, 100.0) : q[at++];
            sides[0].seconds[round] = mine, sides[1].seconds[round] = mine * ratio;
            sides[0].reported[round] = mine, sides[1].reported[round] = mine * ratio;
            if (is_starved) /* half its best CPUs */
                sides[rng_range(&r, 0, 1)].cpus[round] = 1.0;
        }
        struct grade_score_figures f;
        grade_score_figures(&sides[0], &sides[1], NULL, rounds, &f);
        CHECK(f.kept == kept && f.starved == starved, "%d rounds: %d kept, %d starved, want %d, %d",
              rounds, f.kept, f.starved, kept, starved);
        CHECK(f.ratio == median, "ratio %.17g, want %.17g (%d kept)", f.ratio, median, kept);
        int earned = grade_score_perf_earned(f.ratio, perf_ratio);
        CHECK(earned == (where >= 0), "ratio %.17g at perf_ratio %.17g: earned %d", f.ratio,
              perf_ratio, earned);
    }
}

/* A loss on a machine busy throughout is only published where it holds with every CPU the
 * student's launches waited for (at most the machine's): else no verdict, graded again. Quiet
 * rounds, or a GPU (no CPU figures), keep the ratio's verdict. */
static void test_perf_unsure(void **state) {
    (void)state;
    struct rng r = rng_for("perf_unsure");
    static struct grade_busy_launches sides[2];
    int unsure_seen = 0, sure_seen = 0;
    for (int trial = 0; trial < 3000; trial++) {
        double perf_ratio = uniform(&r, 0.3, 0.9), machine = (double)rng_range(&r, 1, 16);
        int rounds = (int)rng_range(&r, GRADER_TIMED_ROUNDS, GRADER_MAX_ROUNDS);
        int kind = (int)rng_range(&r, 0, 2); /* 0 busy throughout, 1 quiet, 2 a GPU */
        fill(&sides[0], kind == 2 ? -1.0 : machine, 0.0);
        fill(&sides[1], kind == 2 ? -1.0 : machine, 0.0);
        for (int i = 0; i < rounds; i++) {
            double mine = uniform(&r, 0.001, 0.1);
            sides[0].seconds[i] = sides[0].reported[i] = mine;
            sides[1].seconds[i] = sides[1].reported[i] =
                mine * uniform(&r, 0.05, 0.99) * perf_ratio;
            if (kind == 0)
                for (int w = 0; w < 2; w++) { /* each lost 30% to 95% of the CPU time it wanted */
                    double had = uniform(&r, 0.1, 1.0) * machine;
                    plant_wait(sides[w].cpus, sides[w].waited, i, had, uniform(&r, 0.3, 0.95));
                    if (rng_range(&r, 0, 4) == 0) /* spinners: waits past the machine's CPUs */
                        sides[w].waited[i] = machine * uniform(&r, 2.0, 40.0);
                }
        }
        int kept[GRADER_MAX_ROUNDS], n = 0;
        grade_busy_rounds_kept(&sides[0], &sides[1], NULL, rounds, kept);
        double ratios[GRADER_MAX_ROUNDS];
        for (int i = 0; i < rounds; i++) {
            if (!kept[i])
                continue;
            double had = sides[0].cpus[i], wanted = had + sides[0].waited[i];
            wanted = wanted < machine ? wanted : machine;
            double alone = kind == 0 && had < wanted ? sides[0].seconds[i] * had / wanted
                                                     : sides[0].seconds[i];
            ratios[n++] = sides[1].seconds[i] / alone;
        }
        double want_could = clu_stats_of(ratios, n).median, could = -1.0;
        int want = kind == 0 && want_could >= perf_ratio;
        int got =
            grade_score_perf_unsure(&sides[0], &sides[1], rounds, perf_ratio, machine, &could);
        CHECK(got == want, "kind %d, %d rounds on %g CPUs: unsure %d, want %d (could %.3f at %.3f)",
              kind, rounds, machine, got, want, want_could, perf_ratio);
        CHECK(kind != 0 || fabs(could - want_could) <= 1e-12 * want_could,
              "could %.17g, want %.17g", could, want_could);
        struct grade_score_figures f;
        grade_score_figures(&sides[0], &sides[1], NULL, rounds, &f);
        CHECK(!grade_score_perf_earned(f.ratio, perf_ratio), "every round's ratio is under %g",
              perf_ratio);
        unsure_seen += got, sure_seen += kind == 0 && !got;
    }
    /* both verdicts occur: a loss that holds and one that is the machine's */
    CHECK(unsure_seen > 100 && sure_seen > 100, "unsure %d, sure %d", unsure_seen, sure_seen);
}

/* The figures beside the ratio: each side's median, min and max of the kept rounds, their
 * medians of what the harnesses reported, the CPUs, the reference's fastest launch less what it
 * waited. */
static void test_figures(void **state) {
    (void)state;
    struct rng r = rng_for("figures");
    static struct grade_busy_launches sides[2];
    for (int trial = 0; trial < 500; trial++) {
        int rounds = (int)rng_range(&r, 3, GRADER_MAX_ROUNDS);
        fill(&sides[0], 2.0, 0.0);
        fill(&sides[1], 2.0, 0.0);
        double mine[GRADER_MAX_ROUNDS], ref[GRADER_MAX_ROUNDS], unloaded = 0.0;
        for (int i = 0; i < rounds; i++) {
            mine[i] = sides[0].seconds[i] = uniform(&r, 0.001, 0.1);
            ref[i] = sides[1].seconds[i] = uniform(&r, 0.001, 0.1);
            sides[0].reported[i] = 0.5 * mine[i], sides[1].reported[i] = 0.5 * ref[i];
            double w = uniform(&r, 0.0, 0.6); /* a quarter of 2.6 at most: every round quiet */
            sides[1].waited[i] = w;
            double u = ref[i] * (w > 0.0 ? 2.0 / (2.0 + w) : 1.0);
            unloaded = i == 0 || u < unloaded ? u : unloaded;
        }
        struct grade_score_figures f;
        grade_score_figures(&sides[0], &sides[1], NULL, rounds, &f);
        struct clu_stats m = clu_stats_of(mine, rounds), rf = clu_stats_of(ref, rounds);
        CHECK(f.kept == rounds && f.starved == 0, "every round is quiet");
        CHECK(f.mine.median == m.median && f.mine.min == m.min && f.mine.max == m.max,
              "yours %g %g %g", f.mine.median, f.mine.min, f.mine.max);
        CHECK(f.ref.median == rf.median && f.ref.min == rf.min && f.ref.max == rf.max,
              "reference %g", f.ref.median);
        CHECK(fabs(f.mine_event - 0.5 * m.median) < 1e-15 &&
                  fabs(f.ref_event - 0.5 * rf.median) < 1e-15,
              "events %g %g", f.mine_event, f.ref_event);
        CHECK(f.cpus[0] == 2.0 && f.cpus[1] == 2.0, "CPUs %g %g", f.cpus[0], f.cpus[1]);
        CHECK(fabs(f.ref_unloaded - unloaded) <= 1e-15, "unloaded %g, want %g", f.ref_unloaded,
              unloaded);
    }
}

/* The spread that adds rounds: (third quartile - first) / median of the kept rounds' ratios,
 * 0 under 4 of them. */
static void test_spread(void **state) {
    (void)state;
    struct rng r = rng_for("spread");
    static struct grade_busy_launches sides[2];
    for (int trial = 0; trial < 500; trial++) {
        int rounds = (int)rng_range(&r, 1, GRADER_MAX_ROUNDS);
        fill(&sides[0], -1.0, 0.0);
        fill(&sides[1], -1.0, 0.0);
        double q[GRADER_MAX_ROUNDS];
        for (int i = 0; i < rounds; i++) {
            double mine = power_seconds(&r);
            q[i] = uniform(&r, 0.3, 3.0);
            sides[0].seconds[i] = mine, sides[1].seconds[i] = mine * q[i];
        }
        struct clu_stats s = clu_stats_of(q, rounds); /* (sorts q) */
        double want = rounds < 4 ? 0.0 : (q[(3 * rounds) / 4] - q[rounds / 4]) / s.median;
        double got = grade_score_spread(&sides[0], &sides[1], NULL, rounds);
        CHECK(fabs(got - want) <= 1e-12, "%d rounds: spread %g, want %g", rounds, got, want);
    }
}

/* ---------------------------------------------------------------- the capstone's anchor */

static void test_anchor_is_by_device(void **state) {
    (void)state;
    struct grader_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.device_cpu = 1;
    CHECK(grader_vendor_anchor(&cfg) == CLU_OPENBLAS, "a CPU's anchor is OpenBLAS");
    cfg.device_cpu = 0;
    CHECK(grader_vendor_anchor(&cfg) == CLU_CLBLAST, "a GPU's anchor is CLBlast");
}

/* The capstone's row, at random fractions of the vendor's speed or the table's own. */
static struct grader_exercise capstone(struct rng *r) {
    const struct grader_exercise *row = grader_find_exercise("13_fastest_sgemm");
    CHECK(row != NULL && row->vendor_ratios[0] > 0, "the table has a capstone with fractions");
    struct grader_exercise ex = *row;
    if (rng_range(r, 0, 1)) {
        int count = (int)rng_range(r, 1, GRADER_MAX_RATIOS - 1);
        double at = 0.0;
        memset(ex.vendor_ratios, 0, sizeof ex.vendor_ratios);
        for (int i = 0; i < count; i++)
            ex.vendor_ratios[i] = at += ldexp((double)rng_range(r, 1, 16), -3);
        ex.points.vendor = (int)rng_range(r, 1, 4);
    }
    return ex;
}

/* The anchor timed with the reference: its fastest quiet launch (a faster starved one changes
 * nothing) against the reference's fastest; where every launch of it starved, or the reference
 * has none: no figure. */
static void test_anchor_of(void **state) {
    (void)state;
    struct rng r = rng_for("anchor_of");
    static struct grader_vendor_times v;
    for (int trial = 0; trial < 2000; trial++) {
        int anchor = (int)rng_range(&r, 0, 1) ? CLU_OPENBLAS : CLU_CLBLAST;
        int rounds = (int)rng_range(&r, 1, GRADER_MAX_ROUNDS);
        fill_vendors(&v, rounds, 2.0, 0.0);
        v.again = (int)rng_range(&r, 0, 10);
        v.ref_fastest = uniform(&r, 0.001, 0.1);
        double quiet = 1.0;
        for (int s = 0; s < rounds + v.again; s++) {
            v.seconds[anchor][s] = uniform(&r, 0.01, 0.1);
            v.cpus[anchor][s] = 2.0, v.waited[anchor][s] = 0.0;
        }
        int c = (int)rng_range(&r, 0, 3);
        for (int s = 0; s < rounds + v.again; s++) {
            int starved = c == 1 || (c == 0 && s % 2 == 1);
            if (starved)
                plant_wait(v.cpus[anchor], v.waited[anchor], s, 2.0, uniform(&r, 0.2501, 0.9));
            if (starved && c == 0)
                v.seconds[anchor][s] *= 0.01; /* faster, but starved: not counted */
            quiet = !starved && v.seconds[anchor][s] < quiet ? v.seconds[anchor][s] : quiet;
        }
        if (c == 3)
            v.ref_fastest = 0.0; /* no launch of the reference */
        struct grade_score_anchor a;
        int got = grade_score_anchor_of(&v, anchor, &a);
        if (c == 3) {
            CHECK(got == -1, "no reference: no figure");
            continue;
        }
        CHECK(a.ref == v.ref_fastest, "the reference's fastest %g", a.ref);
        if (c == 1)
            CHECK(got == -1 && a.quiet == 0, "every launch starved: no figure (got %d, %g)", got,
                  a.anchor);
        else
            CHECK(got == 0 && a.quiet > 0 && a.anchor == quiet,
                  "fastest quiet %g, got %g (%d quiet)", quiet, a.anchor, a.quiet);
    }
    fill_vendors(&v, 3, 2.0, 0.0);
    v.ref_fastest = 0.01;
    struct grade_score_anchor a;
    CHECK(grade_score_anchor_of(&v, CLU_OPENBLAS, &a) == -1, "no launch of the anchor: none");
}

/* Each fraction of the anchor's speed: the student's ratio to the reference times the
 * reference's speed over the anchor's, just under a fraction, at it and just over; quiet or not,
 * the part is scored (the maximum is the row's). */
static void test_vendor_fractions(void **state) {
    (void)state;
    struct rng r = rng_for("vendor_fractions");
    for (int trial = 0; trial < 3000; trial++) {
        struct grader_exercise ex = capstone(&r);
        int count = grade_score_fractions(&ex), at = (int)rng_range(&r, 0, count - 1);
        int where = (int)rng_range(&r, -1, 1);
        double t = ex.vendor_ratios[at];
        /* ref / anchor seconds a power of two: ratio * anchor / ref is exact */
        struct grade_score_anchor a = {power_seconds(&r), power_seconds(&r),
                                       (int)rng_range(&r, 0, 1)};
        double ratio = t * a.ref / a.anchor;
        ratio = where == 0 ? ratio : where < 0 ? nextafter(ratio, 0.0) : nextafter(ratio, HUGE_VAL);
        double want = ratio * a.anchor / a.ref;
        struct grade_score_vendor_points p;
        grade_score_vendor_points(&ex, ratio, &a, &p);
        int reached = 0;
        for (int i = 0; i < count; i++)
            reached += want >= ex.vendor_ratios[i];
        CHECK(p.ratio == want, "ratio %.17g, want %.17g", p.ratio, want);
        CHECK(grade_score_vendor_ratio(ratio, a.ref, a.anchor) == want, "the one rule");
        CHECK(p.reached == reached && reached == at + (where >= 0),
              "ratio %.17g at fraction %d (%.17g, where %d, ref %g anchor %g): %d reached, "
              "want %d",
              p.ratio, at, t, where, a.ref, a.anchor, p.reached, reached);
        CHECK(p.points == reached * ex.points.vendor, "%d points for %d fractions", p.points,
              reached);
    }
    CHECK(grade_score_vendor_ratio(1.0, 0.0, 1.0) == 0.0, "no reference figure: 0, not inf");
}

/* grade_score_reached on its own: how many of an ascending list a ratio reaches, from a random
 * ratio (independently counted). */
static void test_reached(void **state) {
    (void)state;
    struct rng r = rng_for("reached");
    for (int trial = 0; trial < 2000; trial++) {
        struct grader_exercise ex = capstone(&r);
        int count = grade_score_fractions(&ex), want = 0;
        double ratio = uniform(&r, 0.0, ex.vendor_ratios[count - 1] * 1.5);
        for (int i = 0; i < count; i++)
            want += ratio >= ex.vendor_ratios[i];
        CHECK(grade_score_reached(ratio, ex.vendor_ratios, count) == want, "%.17g: want %d", ratio,
              want);
        CHECK(grade_score_reached(ratio, ex.vendor_ratios, 0) == 0, "no fractions");
    }
}

/* Another vendor with no quiet launch is still shown, from the rounds kept, and said so. */
static void test_vendor_every_starved(void **state) {
    (void)state;
    static struct grader_vendor_times v;
    fill_vendors(&v, 6, 2.0, 0.0);
    double seconds[6] = {0.06, 0.01, 0.05, 0.02, 0.04, 0.03};
    for (int s = 0; s < 6; s++) {
        v.seconds[CLU_CUBLAS][s] = seconds[s];
        plant_wait(v.cpus[CLU_CUBLAS], v.waited[CLU_CUBLAS], s, 2.0, 0.5);
    }
    v.kept[1] = 0; /* (the fastest, in a round left out) */
    v.ref_fastest = 0.01;
    struct grade_score_vendor f;
    grade_score_vendor(&v, CLU_CUBLAS, 1.0, 2e9, &f);
    CHECK(f.every_starved, "every launch starved");
    CHECK(f.t.count == 5 && f.t.min == 0.02 && f.t.max == 0.06 && f.t.median == 0.04,
          "the rounds kept: %d, min %g, median %g", f.t.count, f.t.min, f.t.median);
    CHECK(fabs(f.ratio - 2.0) < 1e-12 && fabs(f.gflops - 50.0) < 1e-9, "ratio %g, %g GFLOP/s",
          f.ratio, f.gflops);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lost_share_threshold),
        cmocka_unit_test(test_waited_share),
        cmocka_unit_test(test_round_starved),
        cmocka_unit_test(test_starved_known_later),
        cmocka_unit_test(test_rounds_kept),
        cmocka_unit_test(test_busy_throughout),
        cmocka_unit_test(test_vendor_quiet),
        cmocka_unit_test(test_perf_point_threshold),
        cmocka_unit_test(test_perf_unsure),
        cmocka_unit_test(test_figures),
        cmocka_unit_test(test_spread),
        cmocka_unit_test(test_anchor_is_by_device),
        cmocka_unit_test(test_anchor_of),
        cmocka_unit_test(test_vendor_fractions),
        cmocka_unit_test(test_reached),
        cmocka_unit_test(test_vendor_every_starved),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
