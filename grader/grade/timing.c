/* timing.c - the student's kernel timed against the reference solution's, with the grader's clock:
 * the order of the comparison. Each command to a harness is timing_protocol.c's, which rounds
 * count busy.c's, the ratio and the points score.c's, the verdicts perf_test.c's.
 *
 * A kernel on POCL is native code inside the process that runs it, so the student's kernel and
 * the reference never share a process, a folder or an address space: each has a serving harness
 * of its own (harness.c, --serve), the student's jailed like every other run of its code, the
 * reference's run as the grader's own. The grader drives both, one command at a time:
 *   - the student's processes are stopped (SIGSTOP on its whole session) while the reference
 *     runs and while the grader checks, so they cannot load the machine during the reference's
 *     turn or work between their own;
 *   - every round's C is checked (one round, chosen from the hidden seed, element by element; the
 *     others with Freivalds' test against A(Bx));
 *   - who goes first alternates every round, and the point is decided on the medians.
 */
#define _GNU_SOURCE /* nanosleep */
#include "grade/internal.h"
#include "grade/score.h"
#include "grade/timing_protocol.h"
#include "exercise/protocol.h"

#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <time.h>
#include <unistd.h>

/* The inputs of timed round r: fresh A and B from a seed the grader derives one way, so that
 * a kernel cannot keep an answer from an earlier launch nor know the next round's inputs. */
static uint64_t round_seed(uint64_t seed, int r) {
    return grader_derive_seed(seed, "timed round", r);
}

/* Round r of every vendor not skipped yet. */
static void vendor_round(const struct grader_config *cfg, struct grade_side *ref, int round,
                         struct grader_vendor_times *v) {
    for (int id = 0; id < CLU_VENDOR_COUNT; id++)
        if (!v->why[id][0])
            grade_timing_vendor_launch(cfg, ref, id, round, v);
    if (round + 1 > v->rounds)
        v->rounds = round + 1;
}

/* What the reference took for the work at which the student's kernel was stopped (it was
 * right at every size: it ends): its build and two untimed launches when the student's did not
 * get ready (each timed from its own start), else one timed launch, the slowest of the
 * reference's so far or one made now. */
static void reference_pace(const struct grader_config *cfg, struct grade_side *ref, int ready,
                           const double ready_seconds[2], uint64_t seed, struct grader_pace *pace) {
    if (!ready) {
        pace->work = "building the kernel and its two untimed launches";
        pace->seconds = ready_seconds[0];
        pace->reference_seconds = ready_seconds[1];
        return;
    }
    double slowest = 0.0;
    for (int r = 0; r < MAX_ROUNDS; r++)
        slowest = ref->timed.seconds[r] > slowest ? ref->timed.seconds[r] : slowest;
    char why[200] = "";
    grader_child_pause(ref->child, 0);
    if (slowest <= 0.0 &&
        grade_timing_round(cfg, ref, 0, round_seed(seed, 0), why, sizeof why) == 0)
        slowest = ref->timed.seconds[0];
    int launches = ref->launches > 0 ? ref->launches : 1;
    pace->work = launches == 1 ? "one timed launch" : "one timed command of its launches";
    pace->seconds = cfg->timeout;
    pace->reference_seconds = slowest * launches;
}

/* One timed round of the student's side (its launches checked after: set `full` element by
 * element, -1 none): 0, or -1 with why. */
static int student_round(const struct grader_config *cfg, const struct grader_exercise *ex,
                         struct grade_side *mine, int r, uint64_t seed, int full, char *why,
                         size_t why_size) {
    grader_child_pause(mine->child, 0);
    int failed = grade_timing_round(cfg, mine, r, round_seed(seed, r), why, why_size);
    grader_child_pause(mine->child, 1);
    if (failed)
        return -1;
    if (grade_timing_checked(cfg, ex, mine, r, round_seed(seed, r), full, 1, why, why_size) == 0 &&
        why[0]) {
        char detail[900];
        snprintf(detail, sizeof detail,
                 "not scored: the timed runs at N = %d did not all compute C: %s", ex->perf_n, why);
        snprintf(why, why_size, "%s", detail);
    }
    return why[0] ? -1 : 0;
}

/* Where under GRADE_BUSY_QUIET_WANTED of the anchor's launches in the rounds were quiet, more
 * launches of it follow until it has that many or VENDOR_AGAIN_SECONDS pass: load that comes and
 * goes, as a neighbour's builds do, leaves gaps between its spells. A machine busy throughout
 * leaves it none: then there is no figure, and the grading is not published (anchor.c). */
#define VENDOR_AGAIN_SECONDS 12.0
#define VENDOR_AGAIN_GAP_NS  100000000L /* (a pause between, so that the tries spread in time) */
static void vendor_again(const struct grader_config *cfg, struct grade_side *ref,
                         struct grader_vendor_times *v, const char *why) {
    int id = grader_vendor_anchor(cfg);
    double quiet[GRADER_VENDOR_SLOTS], start = grade_timing_now();
    double until = start + VENDOR_AGAIN_SECONDS;
    while (!why[0] && !v->why[id][0] &&
           grade_busy_vendor_quiet(v, id, quiet) < GRADE_BUSY_QUIET_WANTED &&
           v->again < GRADER_VENDOR_AGAIN && grade_timing_now() < until) {
        struct timespec gap = {0, VENDOR_AGAIN_GAP_NS};
        nanosleep(&gap, NULL);
        grade_timing_vendor_launch(cfg, ref, id, v->rounds + v->again, v);
        v->again++;
        v->again_seconds = grade_timing_now() - start;
    }
}

/* The CPUs this process may run on: the most a launch of either side can want at once. */
static double machine_cpus(void) {
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
        return CPU_COUNT(&set);
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    return online > 0 ? (double)online : 1.0;
}

/* ---------------------------------------------------------------- the comparison */

/* Side w's harness started (1: the reference's, 0: the student's): it builds its kernel and
 * makes two untimed launches, then says it is ready, within 3 timeouts of its start. One after
 * the other, the reference first: its time for that work, taken alone (ready_seconds[1]; the
 * student's in [0]), is what a student's kernel stopped at it is compared with. */
static void side_start(const struct grader_config *cfg, const struct grader_exercise *ex,
                       const struct grader_exercise *rx, const char *reference,
                       const struct grader_jail *jail, struct grade_side sides[2],
                       double ready_seconds[2], int w, char *why, size_t why_size) {
    char reply[64];
    if (!why[0]) {
        double started = grade_timing_now();
        sides[w].child = w == 0 ? grade_timing_start(cfg, ex, jail->self, jail->kernel, ex->perf_n,
                                                     jail->dir, 1, 0, sides[0].log)
                                : grade_timing_start(cfg, rx, cfg->self, reference, ex->perf_n,
                                                     sides[1].dir, 0, 0, sides[1].log);
        if (!sides[w].child ||
            grader_child_ask(sides[w].child, NULL, reply, sizeof reply, 3 * cfg->timeout) != 0 ||
            strcmp(reply, SERVE_READY) != 0)
            snprintf(why, why_size, "%s: the timing run did not start", sides[w].who);
        ready_seconds[w] = grade_timing_now() - started;
    }
}

/* The alternating rounds: until TIMED_ROUNDS are quiet (GPU_TIMED_ROUNDS on a GPU), more while
 * their ratios spread, at most MAX_ROUNDS, fewer where the machine is busy throughout. How many
 * were measured. */
static int comparison_rounds(const struct grader_config *cfg, const struct grader_exercise *ex,
                             struct grade_side sides[2], uint64_t seed, char *why,
                             size_t why_size) {
    struct grade_side *mine = &sides[0], *ref = &sides[1];
    int want = cfg->device_cpu ? TIMED_ROUNDS : GPU_TIMED_ROUNDS;
    int checked = (int)(grader_derive_seed(seed, "checked round", 0) % (unsigned)want);
    int checked_set = (int)(grader_derive_seed(seed, "checked set", 0) %
                            (unsigned)(ref->sets > 0 ? ref->sets : 1));
    int rounds = 0, kept = 0;
    for (; rounds < MAX_ROUNDS && kept < want && !grade_busy_throughout(rounds, kept) && !why[0];
         rounds++) {
        int r = rounds;
        for (int turn = 0; turn < 2 && !why[0]; turn++) {
            int w = turn ^ (r & 1); /* who goes first swaps every round */
            if (w == 0) {
                if (student_round(cfg, ex, mine, r, seed, r == checked ? checked_set : -1, why,
                                  why_size) != 0)
                    break;
                continue;
            }
            grader_child_pause(ref->child, 0);
            int failed = grade_timing_round(cfg, ref, r, round_seed(seed, r), why, why_size);
            grader_child_pause(ref->child, 1);
            if (failed)
                break;
        }
        if (why[0])
            break;
        if (!cfg->device_cpu) /* a GPU's launch needs no CPU but the waiting thread's */
            for (int w = 0; w < 2; w++)
                sides[w].timed.cpus[r] = sides[w].timed.waited[r] = -1.0;
        kept += !grade_busy_round_starved(&mine->timed, &ref->timed, NULL, r);
        if (kept == want && want < MAX_ROUNDS &&
            grade_score_spread(&mine->timed, &ref->timed, NULL, rounds + 1) >
                GRADE_SCORE_SPREAD_MOST)
            want += 2; /* the rounds disagree: more of them, while there is room */
    }
    return rounds;
}

/* The report of a comparison that stopped (why): how the student's harness ended, else why. */
static void failure_text(const struct grader_exercise *ex, struct grade_side sides[2],
                         const struct grader_pace *pace, const char *why, char *out,
                         size_t out_size, int *too_busy) {
    struct grade_side *mine = &sides[0], *ref = &sides[1];
    char dead[200] = "";
    char at[32];
    snprintf(at, sizeof at, "N = %d", ex->perf_n);
    char *failure =
        grader_harness_failure(&mine->ended, mine->log_text, at, pace, dead, sizeof dead);
    *too_busy = mine->ended.how == RUN_TOO_BUSY;
    if (failure && strncmp(why, "not scored", 10) != 0)
        snprintf(out, out_size, "%s", failure);
    else if (strncmp(why, "reference", 9) == 0)
        snprintf(out, out_size, "not timed: the reference's timing run failed (%s):\n%s", why,
                 ref->log_text);
    else
        snprintf(out, out_size, "%s", why);
    free(failure);
}

/* The report of the figures f of a comparison that ended, with the ratio and where the point
 * starts (perf_ratio). */
static void figures_text(const struct grader_exercise *ex, const struct grade_side *mine,
                         const struct grade_score_figures *f, double gflops, double ref_gflops,
                         double perf_ratio, char *out, size_t out_size) {
    char again[240] = "", cpus[2][40] = {"", ""};
    /* plain words on the screen; how busy rounds were judged and the device's own clock, which
     * a student rarely needs, in the exercise's log (GRADER_LOG_ONLY lines) */
    if (f->starved)
        snprintf(again, sizeof again,
                 "\n(%d round%s more timed: the machine was busy)\n" GRADER_LOG_ONLY
                 "%d round%s left out where a busy machine took the most from a side (over %.0f%% "
                 "of the CPU time it wanted; the most of all where every round lost that much)",
                 f->starved, f->starved == 1 ? "" : "s", f->starved, f->starved == 1 ? "" : "s",
                 100 * GRADE_BUSY_LOST);
    for (int w = 0; w < 2; w++)
        if (f->cpus[w] > 0.0)
            snprintf(cpus[w], sizeof cpus[w], ", %.1f CPUs", f->cpus[w]);
    snprintf(
        out, out_size,
        "N = %d, yours and the reference's launches in turn, %d rounds, timed on the "
        "grader's clock (per launch):\n"
        "yours      %.3f ms (min %.3f, max %.3f)  %.2f GFLOP/s\n"
        "reference  %.3f ms (min %.3f, max %.3f)  %.2f GFLOP/s\n"
        "ratio %.2f, the median of the rounds' own ratios (points from %.2f)%s\n" GRADER_LOG_ONLY
        "%d launch%s per timed command; the device's own events: yours %.3f ms%s, the "
        "reference %.3f ms%s",
        ex->perf_n, f->kept, f->mine.median * 1e3, f->mine.min * 1e3, f->mine.max * 1e3, gflops,
        f->ref.median * 1e3, f->ref.min * 1e3, f->ref.max * 1e3, ref_gflops, f->ratio, perf_ratio,
        again, mine->launches, mine->launches == 1 ? "" : "es", f->mine_event * 1e3, cpus[0],
        f->ref_event * 1e3, cpus[1]);
}

void grader_perf_test(const struct grader_config *cfg, const struct grader_exercise *ex,
                      const char *kernel, const struct grader_exercise *rx, const char *reference,
                      double grow_below, double *gflops, double *ref_gflops, double *ratio,
                      double *ref_fastest, char *out, size_t out_size, int *earned, int *too_busy) {
    struct grade_side sides[2] = {{.who = "yours"}, {.who = "reference"}};
    struct grade_side *mine = &sides[0], *ref = &sides[1];
    struct grader_jail jail;
    *earned = 0;
    *too_busy = 0;
    out[0] = '\0';
    if (grader_jail_open(cfg->self, kernel, &jail) != 0) {
        snprintf(out, out_size, "not timed: the grader cannot prepare its folder in /tmp");
        return;
    }
    snprintf(mine->dir, sizeof mine->dir, "%s", jail.dir);
    snprintf(ref->dir, sizeof ref->dir, "%s/%s/perf-reference", cfg->work, ex->id);
    grader_make_dirs(ref->dir);
    snprintf(mine->log, sizeof mine->log, "%s/%s/perf-log.txt", cfg->work, ex->id);
    snprintf(ref->log, sizeof ref->log, "%s/log.txt", ref->dir);
    char why[900] = "";
    double ready_seconds[2] = {0, 0};
    double began = grade_timing_now();
    uint64_t seed = grader_seed_for(cfg->seed, ex, grader_square(ex->perf_n));
    /* the device's lock for the whole comparison, harness starts included: a batch's gradings
     * that wait for it add no load meanwhile (started before it, the harnesses' builds gained
     * nothing on 2 busy cores, and ran beside another grading's timed rounds) */
    int lock = grade_timing_lock(cfg);
    double locked = grade_timing_now();
    /* launches per command from the reference's pace, the same for both, measured before the
     * student's harness starts */
    side_start(cfg, ex, rx, reference, &jail, sides, ready_seconds, 1, why, sizeof why);
    if (!why[0])
        grade_timing_calibrate(cfg, ex, ref, seed, why, sizeof why);
    if (!why[0] && ref->calibrated > 0.0 && ref->calibrated < grow_below) {
        /* too short a launch to time well (a GPU at the row's own N): no rounds here, the caller
         * compares at a larger N, where this pace puts a launch at grow_below or more */
        *ref_fastest = ref->calibrated;
        grade_timing_end(cfg, ref);
        snprintf(out, out_size, "not timed at N = %d: the reference's launch took %.3f ms",
                 ex->perf_n, ref->calibrated * 1e3);
        free(ref->log_text);
        grader_jail_dir_remove(jail.dir);
        if (lock >= 0)
            close(lock);
        return;
    }
    side_start(cfg, ex, rx, reference, &jail, sides, ready_seconds, 0, why, sizeof why);
    int ready = !why[0];
    mine->launches = ref->launches;
    mine->sets = ref->sets;
    /* both sides stopped but for their own turns: neither works (POCL's threads included) while
     * the other is timed, and each is treated as the other */
    for (int w = 0; w < 2 && !why[0]; w++)
        grader_child_pause(sides[w].child, 1);
    ref->inputs_s = ref->launches_s = ref->checks_s = ref->saves_s = 0.0; /* (the rounds' own) */
    double calibrated = grade_timing_now();
    int rounds = comparison_rounds(cfg, ex, sides, seed, why, sizeof why);
    double rounds_done = grade_timing_now();
    grade_timing_end(cfg, mine);
    /* the student's kernel stopped at its limit: the reference's time for the same work */
    struct grader_pace pace = {.ends = "it was right at every hidden size"};
    if (mine->ended.how == RUN_TIMEOUT)
        reference_pace(cfg, ref, ready, ready_seconds, seed, &pace);
    grade_timing_end(cfg, ref);
    if (why[0]) {
        failure_text(ex, sides, &pace, why, out, out_size, too_busy);
    } else {
        struct grade_score_figures f;
        grade_score_figures(&mine->timed, &ref->timed, NULL, rounds, &f);
        double flops = grader_flops(ex, grader_square(ex->perf_n));
        *gflops = flops / f.mine.median * 1e-9;
        *ref_gflops = flops / f.ref.median * 1e-9;
        *ratio = f.ratio;
        *ref_fastest = f.ref_unloaded;
        *earned = grade_score_perf_earned(f.ratio, cfg->perf_ratio);
        figures_text(ex, mine, &f, *gflops, *ref_gflops, cfg->perf_ratio, out, out_size);
        double could = 0.0;
        if (!*earned && grade_score_perf_unsure(&mine->timed, &ref->timed, rounds, cfg->perf_ratio,
                                                machine_cpus(), &could)) {
            *too_busy = 1;
            size_t used = strlen(out);
            snprintf(out + used, out_size - used,
                     "\nnot scored: the machine was busy throughout, and your launches had less "
                     "of it than the reference's (with the CPUs they waited for, the ratio could "
                     "be %.2f): graded again when it is quieter",
                     could);
        }
    }
    /* where the comparison's time went, for the log (a GPU's rounds are short, its starts not) */
    size_t used = strlen(out);
    snprintf(out + used, out_size - used,
             "\n" GRADER_LOG_ONLY "the comparison at N = %d took %.1f s: the reference's harness "
             "built and ready in %.1f s, the launches per command chosen in %.1f s, your harness "
             "ready in %.1f s, the device's turn waited for %.1f s, %d rounds in %.1f s (new "
             "inputs %.1f s, launches %.1f s, your results saved and checked %.1f s: saved "
             "%.1f s), the ends %.1f s",
             ex->perf_n, grade_timing_now() - began, ready_seconds[1],
             calibrated - locked - ready_seconds[0] - ready_seconds[1], ready_seconds[0],
             locked - began, rounds, rounds_done - calibrated, mine->inputs_s + ref->inputs_s,
             mine->launches_s + ref->launches_s, mine->checks_s, mine->saves_s,
             grade_timing_now() - rounds_done);
    free(mine->log_text);
    free(ref->log_text);
    grader_jail_dir_remove(jail.dir);
    if (lock >= 0)
        close(lock); /* (the lock goes with it) */
}

void grade_vendors_alone(const struct grader_config *cfg, const struct grader_exercise *rx,
                         const char *reference, int rounds, struct grader_vendor_times *v) {
    struct grade_side s = {.who = "reference"};
    memset(v, 0, sizeof *v);
    snprintf(s.dir, sizeof s.dir, "%s/%s/vendors-alone", cfg->work, rx->id);
    grader_remove_tree(s.dir);
    grader_make_dirs(s.dir);
    snprintf(s.log, sizeof s.log, "%s/log.txt", s.dir);
    int lock = grade_timing_lock(cfg); /* it loads the device as a timing does: one at a time */
    char reply[64], why[300] = "";
    s.child = grade_timing_start(cfg, rx, cfg->self, reference, rx->perf_n, s.dir, 0, 1, s.log);
    if (!s.child || grader_child_ask(s.child, NULL, reply, sizeof reply, 3 * cfg->timeout) != 0 ||
        strcmp(reply, SERVE_READY) != 0)
        snprintf(why, sizeof why, "the reference's harness did not start");
    uint64_t seed = grader_derive_seed(cfg->seed, "vendors alone", rx->perf_n);
    /* as many launches per command as in a comparison (the check before a student's code: one) */
    if (!why[0] && rounds > 1)
        grade_timing_calibrate(cfg, rx, &s, seed, why, sizeof why);
    /* a round of the reference gives the harness its inputs, on which the vendors are prepared;
     * a round where it or a vendor was starved is measured again, while there is room */
    for (int r = 0, kept = 0;
         kept < rounds && r < MAX_ROUNDS && !grade_busy_throughout(r, kept) && !why[0]; r++)
        if (grade_timing_round(cfg, &s, r, round_seed(seed, r), why, sizeof why) == 0) {
            if (!cfg->device_cpu) /* (as in a comparison: a GPU's launch needs no CPU) */
                s.timed.cpus[r] = s.timed.waited[r] = -1.0;
            vendor_round(cfg, &s, r, v);
            kept += !grade_busy_round_starved(NULL, &s.timed, v, r);
        }
    grade_busy_rounds_kept(NULL, &s.timed, v, v->rounds, v->kept);
    /* the reference's fastest launch that a busy machine did not starve (0: none) */
    double quiet[SLOTS];
    int n = grade_busy_side_quiet(&s.timed, v->rounds, quiet);
    v->ref_fastest = n > 0 ? clu_stats_of(quiet, n).min : 0.0;
    if (!why[0] && rounds > 1)
        vendor_again(cfg, &s, v, why);
    grade_timing_end(cfg, &s);
    for (int id = 0; id < CLU_VENDOR_COUNT; id++) {
        v->timed[id] = !why[0] && !v->why[id][0];
        if (why[0] && !v->why[id][0])
            snprintf(v->why[id], sizeof v->why[id], "%.190s", why);
    }
    free(s.log_text);
    grader_remove_tree(s.dir);
    if (lock >= 0)
        close(lock);
}

/* One kernel timed alone at n (grader_time_trusted, grader_time_student): trusted in a harness of
 * the grader's own, or jailed with every round's C checked as in a comparison. */
static int time_alone(const struct grader_config *cfg, const struct grader_exercise *ex,
                      const char *kernel, int n, const char *dir, int jailed, double stats[3],
                      char *why, size_t why_size) {
    struct grade_side s = {.who = jailed ? "your kernel" : "the OpenCL kernel"};
    struct grader_jail jail;
    why[0] = '\0';
    if (jailed && grader_jail_open(cfg->self, kernel, &jail) != 0) {
        snprintf(why, why_size, "the grader cannot prepare its folder in /tmp");
        return -1;
    }
    snprintf(s.dir, sizeof s.dir, "%s", jailed ? jail.dir : dir);
    snprintf(s.log, sizeof s.log, "%s/log.txt", dir);
    s.child = grade_timing_start(cfg, ex, jailed ? jail.self : cfg->self,
                                 jailed ? jail.kernel : kernel, n, s.dir, jailed, 0, s.log);
    char reply[64];
    if (grader_child_ask(s.child, NULL, reply, sizeof reply, 3 * cfg->timeout) != 0 ||
        strcmp(reply, SERVE_READY) != 0)
        snprintf(why, why_size, "its timing run did not start");
    uint64_t seed = grader_derive_seed(cfg->seed, jailed ? "alone" : "trusted timing", n);
    struct grader_exercise at_n = *ex;
    at_n.perf_n = n;
    if (!why[0])
        grade_timing_calibrate(cfg, &at_n, &s, seed, why, why_size);
    for (int r = 0; r < TIMED_ROUNDS && !why[0]; r++)
        if (jailed)
            student_round(cfg, &at_n, &s, r, seed, r == 0 ? 0 : -1, why, why_size);
        else
            grade_timing_round(cfg, &s, r, round_seed(seed, r), why, why_size);
    grade_timing_end(cfg, &s);
    if (!why[0]) {
        struct clu_stats t = clu_stats_of(s.timed.seconds, TIMED_ROUNDS);
        stats[0] = t.min, stats[1] = t.median, stats[2] = t.max;
    } else {
        char what[300];
        grader_describe_run(&s.ended, what, sizeof what);
        int used = (int)strlen(why);
        snprintf(why + used, why_size - (size_t)used, " (the harness %s)", what);
    }
    free(s.log_text);
    if (jailed)
        grader_jail_dir_remove(jail.dir);
    return why[0] ? -1 : 0;
}

int grader_time_trusted(const struct grader_config *cfg, const struct grader_exercise *ex,
                        const char *kernel, int n, const char *dir, double stats[3], char *why,
                        size_t why_size) {
    return time_alone(cfg, ex, kernel, n, dir, 0, stats, why, why_size);
}

int grader_time_student(const struct grader_config *cfg, const struct grader_exercise *ex,
                        const char *kernel, int n, const char *dir, double stats[3], char *why,
                        size_t why_size) {
    return time_alone(cfg, ex, kernel, n, dir, 1, stats, why, why_size);
}
