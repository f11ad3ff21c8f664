/* timing.c - the student's kernel timed against the reference solution's, with the grader's clock.
 *
 * A kernel on POCL is native code inside the process that runs it, so the student's kernel and
 * the reference never share a process, a folder or an address space: each has a serving harness
 * of its own (harness.c, --serve), the student's jailed like every other run of its code, the
 * reference's run as the grader's own. The grader drives both, one command at a time:
 *   - it chooses every round's seed (the child learns it only when the round starts) and a nonce
 *     per command, so no reply can be made up in advance or taken for another;
 *   - it times each launch command on its own monotonic clock, from sending it to reading the
 *     reply: that is the figure that counts. What a child reports of its own launch (its event
 *     time) is shown beside it and refused when longer than the grader saw it happen;
 *   - the student's processes are stopped (SIGSTOP on its whole session) while the reference
 *     runs and while the grader checks, so they cannot load the machine during the reference's
 *     turn or work between their own;
 *   - every round's C is checked (one round, chosen from the hidden seed, element by element; the
 *     others with Freivalds' test against A(Bx)), from the file the harness saved in its folder;
 *   - who goes first alternates every round, and the point is decided on the medians.
 */
#define _GNU_SOURCE /* getrandom */
#include "grade/internal.h"
#include "exercise/protocol.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <sys/file.h>
#include <unistd.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#define LOG_CAP 6000

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static unsigned long long nonce(void) {
    unsigned long long x = 0;
    if (getrandom(&x, sizeof x, 0) != (ssize_t)sizeof x)
        x = (unsigned long long)(now() * 1e9) * 0x9e3779b97f4a7c15ull;
    return x >> 1;
}

/* The inputs of timed round r: fresh A and B from a seed the grader derives one way, so that
 * a kernel cannot keep an answer from an earlier launch nor know the next round's inputs. */
static uint64_t round_seed(uint64_t seed, int r) {
    return grader_derive_seed(seed, "timed round", r);
}

struct grader_child *start_server(const struct grader_config *cfg, const struct grader_exercise *ex,
                                  const char *self, const char *kernel, int n, const char *dir,
                                  int jailed, int vendors, const char *log) {
    struct grader_argv argv = GRADER_ARGV_INIT;
    if (jailed)
        grader_sandbox_push(&cfg->jail, &cfg->sandbox, dir, &argv);
    grader_argv_push_all(&argv, (const char *const[]){self, HARNESS_COMMAND, FLAG_SERVE, FLAG_EX,
                                                      ex->id, FLAG_KERNEL, kernel, FLAG_OUT, dir,
                                                      FLAG_SEED, "0", NULL});
    if (vendors && !jailed) /* a vendor is timed only in the grader's own harness */
        grader_argv_push(&argv, FLAG_VENDORS);
    grader_argv_push(&argv, FLAG_N);
    grader_argv_pushf(&argv, "%d", n);
    for (int t = 0; t < CLU_MAX_DEFINES && ex->tuning[t].name; t++) { /* the row's, or tuned */
        grader_argv_push(&argv, FLAG_DEFINE);
        grader_argv_pushf(&argv, "%s=%d", ex->tuning[t].name, ex->tuning[t].value);
    }
    if (cfg->device) {
        grader_argv_push(&argv, FLAG_DEVICE);
        grader_argv_push(&argv, cfg->device);
    }
    struct grader_child *child = grader_start(&cfg->jail, argv.argv, jailed ? dir : NULL, log);
    grader_argv_clear(&argv);
    return child;
}

/* Send a command with a fresh nonce and read the reply; 0 when it is `expect R NONCE` followed
 * by the rest (copied to rest, may be NULL). */
static int exchange(struct side *s, const char *command, int round, double timeout,
                    const char *expect, char *rest, size_t rest_size) {
    unsigned long long n = nonce();
    char line[128], reply[256], want[128];
    snprintf(line, sizeof line, "%s %llu", command, n);
    if (grader_child_ask(s->child, line, reply, sizeof reply, timeout) != 0)
        return -1;
    snprintf(want, sizeof want, "%s %d %llu", expect, round, n);
    size_t length = strlen(want);
    if (strncmp(reply, want, length) != 0 || (reply[length] != '\0' && reply[length] != ' '))
        return -1;
    if (rest)
        snprintf(rest, rest_size, "%s", reply[length] ? reply + length + 1 : "");
    return 0;
}

/* Above this N the full check of a round is Freivalds' test and CHECK_SAMPLES elements, each
 * against its own double dot product: the whole reference is O(N^3) on the host, more than a
 * minute at N = 4096, where a GPU's timing grows to. */
#define FULL_CHECK_MAX_N 1024
#define CHECK_SAMPLES    4096

/* Elements of C (n x n) that differ from their double dot product, among `samples` positions
 * drawn from seed. */
static size_t sampled_wrong(int n, const float *a, const float *b, const float *c, uint64_t seed,
                            int samples) {
    size_t un = (size_t)n, wrong = 0;
    uint64_t state = grader_derive_seed(seed, "sampled elements", 0); /* one way, then splitmix64 */
    for (int s = 0; s < samples; s++) {
        state += 0x9e3779b97f4a7c15ull;
        uint64_t z = state;
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        uint64_t pick = (z ^ (z >> 31)) % (un * un);
        if (!grader_element_right(n, a, b, c, pick / un, pick % un, NULL))
            wrong++;
    }
    return wrong;
}

/* Why the student's C of timed round r is wrong ("" if right): every element against the
 * reference (full; sampled elements above FULL_CHECK_MAX_N), or Freivalds' O(N^2) check of the
 * product. */
void round_wrong(const struct grader_exercise *ex, const char *dir, int round, uint64_t seed,
                 int full, char *why, size_t why_size) {
    int n = ex->perf_n;
    size_t count = grader_output_count(ex, grader_square(n)), in_count = (size_t)n * (size_t)n;
    char reason[200] = "", name[32];
    snprintf(name, sizeof name, RESULT_ROUND, round);
    float *c = grader_load_result(dir, name, count + HARNESS_GUARD, reason, sizeof reason);
    double *expected = NULL, *tol = NULL;
    float *a = NULL, *b = NULL;
    why[0] = '\0';
    if (!c) {
        snprintf(why, why_size, "round %d: no result saved (%s)", round + 1, reason);
    } else if (grader_guard_damage(c + count, HARNESS_GUARD)) {
        snprintf(why, why_size, "round %d: it wrote past the end of C", round + 1);
    } else if ((full && n <= FULL_CHECK_MAX_N) || ex->is_vector) {
        if (grader_reference(ex, grader_square(n), seed, &expected, &tol) != 0) {
            snprintf(why, why_size, "grader out of memory");
        } else {
            struct grader_diagnosis d;
            grader_diagnose(ex, grader_square(n), seed, c, expected, tol, &d);
            if (d.m.wrong) {
                int used = snprintf(why, why_size, "round %d: ", round + 1);
                if (used > 0 && (size_t)used < why_size)
                    grader_describe_wrong(ex, grader_square(n), &d, why + used,
                                          why_size - (size_t)used);
            }
        }
    } else if (!(a = malloc(in_count * sizeof *a)) || !(b = malloc(in_count * sizeof *b))) {
        snprintf(why, why_size, "grader out of memory");
    } else {
        clu_random_fill(a, in_count, seed, 0);
        clu_random_fill(b, in_count, seed, 1);
        /* x from a seed the child never saw: knowing x, C x = A(Bx) is cheap to fake */
        size_t rows =
            grader_freivalds(grader_square(n), a, b, c, grader_derive_seed(seed, "freivalds x", 0));
        size_t sampled = full && !rows ? sampled_wrong(n, a, b, c, seed, CHECK_SAMPLES) : 0;
        if (rows)
            snprintf(why, why_size,
                     "round %d: C is not A*B (%zu of %d rows fail a check against A(Bx) for a "
                     "random x)",
                     round + 1, rows, n);
        else if (sampled)
            snprintf(why, why_size,
                     "round %d: %zu of %d elements checked are wrong (against a double-precision "
                     "dot product each)",
                     round + 1, sampled, CHECK_SAMPLES);
    }
    free(a);
    free(b);
    free(c);
    free(expected);
    free(tol);
}

/* One timed round of one side: inputs, the launch on the grader's clock, and (for the student)
 * C saved. 0, or -1 with why. */
int timed_round(const struct grader_config *cfg, struct side *s, int round, uint64_t seed, int save,
                char *why, size_t why_size) {
    char command[128], rest[128];
    snprintf(command, sizeof command, SERVE_INPUTS " %d %llu", round, (unsigned long long)seed);
    if (exchange(s, command, round, cfg->timeout, SERVE_INPUTS, NULL, 0) != 0) {
        snprintf(why, why_size, "%s: no answer to the inputs of round %d", s->who, round + 1);
        return -1;
    }
    snprintf(command, sizeof command, SERVE_LAUNCH " %d", round);
    double start = now();
    int ok = exchange(s, command, round, cfg->timeout, SERVE_LAUNCHED, rest, sizeof rest) == 0;
    double seen = now() - start;
    char *end = NULL;
    double reported = ok ? strtod(rest, &end) : 0;
    if (!ok || end == rest || !(reported > 0)) {
        snprintf(why, why_size, "%s: no answer to the launch of round %d", s->who, round + 1);
        return -1;
    }
    if (reported > seen) {
        snprintf(why, why_size,
                 "%s: round %d reported %.3f ms for a launch the grader saw take %.3f ms", s->who,
                 round + 1, reported * 1e3, seen * 1e3);
        return -1;
    }
    s->seconds[round] = seen;
    s->reported[round] = reported;
    snprintf(command, sizeof command, SERVE_SAVE " %d", round);
    if (save && exchange(s, command, round, cfg->timeout, SERVE_SAVED, NULL, 0) != 0) {
        snprintf(why, why_size, "%s: C of round %d was not saved", s->who, round + 1);
        return -1;
    }
    return 0;
}

/* Round r of every vendor not skipped yet, on the reference's harness: one launch each on the
 * grader's clock (the reply's own figure is not used). A vendor the harness skips, or whose
 * launch fails, is left out from then on with the reason. */
static void vendor_round(const struct grader_config *cfg, struct side *ref, int round,
                         struct grader_vendor_times *v) {
    for (int id = 0; id < CLU_VENDOR_COUNT; id++) {
        if (v->why[id][0])
            continue;
        unsigned long long n = nonce();
        char line[128], reply[256], timed[64], skipped[64];
        snprintf(line, sizeof line, SERVE_VENDOR " %d %s %llu", round, clu_vendor_key(id), n);
        snprintf(timed, sizeof timed, SERVE_VENDOR " %d %llu ", round, n);
        snprintf(skipped, sizeof skipped, SERVE_SKIPPED " %d %llu ", round, n);
        double start = now();
        int asked = grader_child_ask(ref->child, line, reply, sizeof reply, cfg->timeout);
        double seen = now() - start;
        if (asked == 0 && strncmp(reply, timed, strlen(timed)) == 0)
            v->seconds[id][round] = seen;
        else if (asked == 0 && strncmp(reply, skipped, strlen(skipped)) == 0)
            snprintf(v->why[id], sizeof v->why[id], "%s", reply + strlen(skipped));
        else
            snprintf(v->why[id], sizeof v->why[id], "no answer from the reference's harness");
    }
}

void end_side(const struct grader_config *cfg, struct side *s) {
    if (s->child)
        grader_finish(s->child, cfg->timeout, &s->ended);
    s->child = NULL;
    s->log_text = grader_read_capped(s->log, LOG_CAP);
}

/* What the reference took for the work at which the student's kernel was stopped (it was
 * right at every size: it ends): its build and two untimed launches when the student's did not
 * get ready (each timed from its own start), else one timed launch, the slowest of the
 * reference's so far or one made now. */
static void reference_pace(const struct grader_config *cfg, struct side *ref, int ready,
                           const double ready_seconds[2], uint64_t seed, struct grader_pace *pace) {
    if (!ready) {
        pace->work = "building the kernel and its two untimed launches";
        pace->seconds = ready_seconds[0];
        pace->reference_seconds = ready_seconds[1];
        return;
    }
    double slowest = 0.0;
    for (int r = 0; r < TIMED_ROUNDS; r++)
        slowest = ref->seconds[r] > slowest ? ref->seconds[r] : slowest;
    char why[200] = "";
    if (slowest <= 0.0 && timed_round(cfg, ref, 0, round_seed(seed, 0), 0, why, sizeof why) == 0)
        slowest = ref->seconds[0];
    pace->work = "one timed launch";
    pace->seconds = cfg->timeout;
    pace->reference_seconds = slowest;
}

/* Timings of different students on one device must not overlap (make batch with JOBS > 1 runs
 * graders side by side): each comparison holds an exclusive lock on a file of the cache folder,
 * one per device spec (graders of one batch are given the same), which only the grader's own
 * uid can open (0600), so a student's process can neither take it nor hold it. Waiting costs the
 * student nothing: no clock runs. The descriptor, or -1 (no cache folder: no one to wait for). */
static int timing_lock(const struct grader_config *cfg) {
    if (!cfg->cache)
        return -1;
    const char *device = cfg->device ? cfg->device : "";
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/timing-%016llx.lock", cfg->cache,
             (unsigned long long)grader_fnv1a(device, strlen(device)));
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0)
        return -1;
    while (flock(fd, LOCK_EX) != 0)
        if (errno != EINTR) {
            close(fd);
            return -1;
        }
    return fd;
}

void grader_perf_test(const struct grader_config *cfg, const struct grader_exercise *ex,
                      const char *kernel, const struct grader_exercise *rx, const char *reference,
                      double *gflops, double *ref_gflops, char *out, size_t out_size, int *earned,
                      int *too_busy, struct grader_vendor_times *vendors) {
    struct side sides[2] = {{.who = "yours"}, {.who = "reference"}};
    struct side *mine = &sides[0], *ref = &sides[1];
    struct grader_jail jail;
    *earned = 0;
    *too_busy = 0;
    out[0] = '\0';
    if (grader_jail_open(cfg->self, kernel, &jail) != 0) {
        snprintf(out, out_size, "not timed: the grader cannot prepare its folder in /tmp");
        return;
    }
    int lock = timing_lock(cfg);
    snprintf(mine->dir, sizeof mine->dir, "%s", jail.dir);
    snprintf(ref->dir, sizeof ref->dir, "%s/%s/perf-reference", cfg->work, ex->id);
    grader_make_dirs(ref->dir);
    snprintf(mine->log, sizeof mine->log, "%s/%s/perf-log.txt", cfg->work, ex->id);
    snprintf(ref->log, sizeof ref->log, "%s/log.txt", ref->dir);
    char why[900] = "", reply[64];
    /* each builds its kernel and makes two untimed launches, then says it is ready, within 3
     * timeouts of its start. One after the other, the reference first: its time for that work,
     * taken alone, is what a student's kernel stopped at it is compared with */
    double ready_seconds[2] = {0, 0};
    for (int w = 1; w >= 0 && !why[0]; w--) {
        double started = now();
        sides[w].child = w == 0 ? start_server(cfg, ex, jail.self, jail.kernel, ex->perf_n,
                                               jail.dir, 1, 0, mine->log)
                                : start_server(cfg, rx, cfg->self, reference, ex->perf_n, ref->dir,
                                               0, vendors != NULL, ref->log);
        if (!sides[w].child ||
            grader_child_ask(sides[w].child, NULL, reply, sizeof reply, 3 * cfg->timeout) != 0 ||
            strcmp(reply, SERVE_READY) != 0)
            snprintf(why, sizeof why, "%s: the timing run did not start", sides[w].who);
        ready_seconds[w] = now() - started;
    }
    int ready = !why[0];
    uint64_t seed = grader_seed_for(cfg->seed, ex, grader_square(ex->perf_n));
    int checked = (int)(grader_derive_seed(seed, "checked round", 0) % TIMED_ROUNDS);
    if (!why[0])
        grader_child_pause(mine->child, 1);
    if (vendors)
        memset(vendors, 0, sizeof *vendors);
    for (int r = 0; r < TIMED_ROUNDS && !why[0]; r++) {
        for (int turn = 0; turn < 2 && !why[0]; turn++) {
            int w = turn ^ (r & 1); /* who goes first swaps every round */
            if (w == 0)
                grader_child_pause(mine->child, 0);
            if (timed_round(cfg, &sides[w], r, round_seed(seed, r), w == 0, why, sizeof why) != 0)
                break;
            if (w == 0) {
                grader_child_pause(mine->child, 1);
                round_wrong(ex, mine->dir, r, round_seed(seed, r), r == checked, why, sizeof why);
                if (why[0]) {
                    char detail[900];
                    snprintf(detail, sizeof detail,
                             "not scored: the timed runs at N = %d did not all compute C: %s",
                             ex->perf_n, why);
                    snprintf(why, sizeof why, "%s", detail);
                }
            }
        }
        if (vendors && !why[0]) /* the student's processes stopped, as for the reference */
            vendor_round(cfg, ref, r, vendors);
    }
    if (vendors)
        for (int id = 0; id < CLU_VENDOR_COUNT; id++) {
            vendors->timed[id] = !why[0] && !vendors->why[id][0];
            if (why[0] && !vendors->why[id][0])
                snprintf(vendors->why[id], sizeof vendors->why[id], "the comparison stopped");
        }
    end_side(cfg, mine);
    /* the student's kernel stopped at its limit: the reference's time for the same work */
    struct grader_pace pace = {.ends = "it was right at every hidden size"};
    if (mine->ended.how == RUN_TIMEOUT)
        reference_pace(cfg, ref, ready, ready_seconds, seed, &pace);
    end_side(cfg, ref);
    if (why[0]) {
        char dead[200] = "";
        char at[32];
        snprintf(at, sizeof at, "N = %d", ex->perf_n);
        char *failure =
            grader_harness_failure(&mine->ended, mine->log_text, at, &pace, dead, sizeof dead);
        *too_busy = mine->ended.how == RUN_TOO_BUSY;
        if (failure && strncmp(why, "not scored", 10) != 0)
            snprintf(out, out_size, "%s", failure);
        else if (strncmp(why, "reference", 9) == 0)
            snprintf(out, out_size, "not timed: the reference's timing run failed (%s):\n%s", why,
                     ref->log_text);
        else
            snprintf(out, out_size, "%s", why);
        free(failure);
    } else {
        struct clu_stats s = clu_stats_of(mine->seconds, TIMED_ROUNDS);
        struct clu_stats t = clu_stats_of(ref->seconds, TIMED_ROUNDS);
        struct clu_stats s_event = clu_stats_of(mine->reported, TIMED_ROUNDS);
        struct clu_stats t_event = clu_stats_of(ref->reported, TIMED_ROUNDS);
        double flops = grader_flops(ex, grader_square(ex->perf_n));
        *gflops = flops / s.median * 1e-9;
        *ref_gflops = flops / t.median * 1e-9;
        double ratio = *gflops / *ref_gflops;
        *earned = ratio >= cfg->perf_ratio;
        snprintf(out, out_size,
                 "N = %d, median of %d alternating launches each, on the grader's clock:\n"
                 "yours      %.3f ms (min %.3f, max %.3f)  %.2f GFLOP/s  (its own events: %.3f "
                 "ms)\n"
                 "reference  %.3f ms (min %.3f, max %.3f)  %.2f GFLOP/s  (its own events: %.3f "
                 "ms)\n"
                 "ratio %.2f of medians (points from %.2f)",
                 ex->perf_n, TIMED_ROUNDS, s.median * 1e3, s.min * 1e3, s.max * 1e3, *gflops,
                 s_event.median * 1e3, t.median * 1e3, t.min * 1e3, t.max * 1e3, *ref_gflops,
                 t_event.median * 1e3, ratio, cfg->perf_ratio);
    }
    free(mine->log_text);
    free(ref->log_text);
    grader_jail_dir_remove(jail.dir);
    if (lock >= 0)
        close(lock); /* (the lock goes with it) */
}

void grade_vendors_alone(const struct grader_config *cfg, const struct grader_exercise *rx,
                         const char *reference, int rounds, struct grader_vendor_times *v) {
    struct side s = {.who = "reference"};
    memset(v, 0, sizeof *v);
    snprintf(s.dir, sizeof s.dir, "%s/%s/vendors-alone", cfg->work, rx->id);
    grader_remove_tree(s.dir);
    grader_make_dirs(s.dir);
    snprintf(s.log, sizeof s.log, "%s/log.txt", s.dir);
    int lock = timing_lock(cfg); /* it loads the device as a timing does: one at a time */
    char reply[64], why[300] = "";
    s.child = start_server(cfg, rx, cfg->self, reference, rx->perf_n, s.dir, 0, 1, s.log);
    if (!s.child || grader_child_ask(s.child, NULL, reply, sizeof reply, 3 * cfg->timeout) != 0 ||
        strcmp(reply, SERVE_READY) != 0)
        snprintf(why, sizeof why, "the reference's harness did not start");
    uint64_t seed = grader_derive_seed(cfg->seed, "vendors alone", rx->perf_n);
    /* a round of the reference gives the harness its inputs, on which the vendors are prepared */
    for (int r = 0; r < rounds && r < TIMED_ROUNDS && !why[0]; r++)
        if (timed_round(cfg, &s, r, round_seed(seed, r), 0, why, sizeof why) == 0)
            vendor_round(cfg, &s, r, v);
    end_side(cfg, &s);
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

int grader_time_trusted(const struct grader_config *cfg, const struct grader_exercise *ex,
                        const char *kernel, int n, const char *dir, double stats[3], char *why,
                        size_t why_size) {
    struct side s = {.who = "the OpenCL kernel"};
    snprintf(s.dir, sizeof s.dir, "%s", dir);
    snprintf(s.log, sizeof s.log, "%s/log.txt", dir);
    s.child = start_server(cfg, ex, cfg->self, kernel, n, dir, 0, 0, s.log);
    char reply[64];
    why[0] = '\0';
    if (grader_child_ask(s.child, NULL, reply, sizeof reply, 3 * cfg->timeout) != 0 ||
        strcmp(reply, SERVE_READY) != 0)
        snprintf(why, why_size, "its timing run did not start");
    uint64_t seed = grader_derive_seed(cfg->seed, "trusted timing", n);
    for (int r = 0; r < TIMED_ROUNDS && !why[0]; r++)
        timed_round(cfg, &s, r, round_seed(seed, r), 0, why, why_size);
    end_side(cfg, &s);
    if (!why[0]) {
        struct clu_stats t = clu_stats_of(s.seconds, TIMED_ROUNDS);
        stats[0] = t.min, stats[1] = t.median, stats[2] = t.max;
    } else {
        char what[300];
        grader_describe_run(&s.ended, what, sizeof what);
        int used = (int)strlen(why);
        snprintf(why + used, why_size - (size_t)used, " (the harness %s)", what);
    }
    free(s.log_text);
    return why[0] ? -1 : 0;
}

/* ---------------------------------------------------------------- the test */

/* The capstone against the vendors timed in the same rounds: points.vendor for each of the row's
 * fractions of CLBlast's speed reached, on the medians; the others (cuBLAS, OpenBLAS) reported.
 * Whether CLBlast can be timed here was decided before the student's code ran (grade.c's check of
 * the vendors alone, vendors_off): where it cannot (not installed, a device it fails on) the points
 * leave the maximum of every student. Where it could but then failed beside the student's kernel,
 * it is timed alone once the student's processes are gone; only when it fails alone too is the
 * grader's trouble left out for this student. v NULL: the kernel was not timed. */
void grade_test_vendors(const struct grader_config *cfg, const struct grader_exercise *ex,
                        const struct grader_exercise *rx, const char *reference,
                        const struct grader_vendor_times *v, const char *vendors_off,
                        struct grader_exercise_result *r) {
    char name[160], thresholds[64] = "";
    int count = 0;
    for (; count < GRADER_MAX_RATIOS && ex->vendor_ratios[count] > 0; count++) {
        size_t used = strlen(thresholds);
        snprintf(thresholds + used, sizeof thresholds - used, "%s%gx", count ? ", " : "",
                 ex->vendor_ratios[count]);
    }
    snprintf(name, sizeof name, "speed against CLBlast (points at %s)", thresholds);
    int pts = count * ex->points.vendor;
    if (vendors_off) {
        grader_add_verdict(r, GRADER_SKIPPED, name, 0, pts,
                           "skipped: CLBlast is not timed here (%s), so its %d points are left out "
                           "of the maximum, for every student graded here",
                           vendors_off, pts);
        return;
    }
    if (!v || r->gflops <= 0) {
        grader_add_verdict(r, GRADER_NOT_RUN, name, 0, pts,
                           "not timed: the kernel must first be right at every size and timed "
                           "against the reference");
        return;
    }
    struct grader_vendor_times alone;
    char beside[200] = "";
    if (!v->timed[CLU_CLBLAST]) { /* it ran in the check before: time it with nobody else */
        snprintf(beside, sizeof beside, "%s", v->why[CLU_CLBLAST]);
        grade_vendors_alone(cfg, rx, reference, TIMED_ROUNDS, &alone);
        v = &alone;
        if (!v->timed[CLU_CLBLAST]) {
            grader_add_verdict(r, GRADER_SKIPPED, name, 0, pts,
                               "skipped: CLBlast ran in the grader's check before your kernel, "
                               "but failed beside it (%s) and alone after it (%s): the machine's "
                               "trouble, so its %d points are left out of your maximum (an "
                               "instructor may grade again)",
                               beside, v->why[CLU_CLBLAST], pts);
            return;
        }
    }
    double flops = grader_flops(ex, grader_square(ex->perf_n)), clblast = 0.0;
    char lines[1200];
    int used = beside[0]
                   ? snprintf(lines, sizeof lines,
                              "N = %d, on the grader's clock: CLBlast failed in the rounds "
                              "beside your kernel (%.150s), so the vendors were timed alone "
                              "after it:",
                              ex->perf_n, beside)
                   : snprintf(lines, sizeof lines,
                              "N = %d, in the same rounds, on the grader's clock:", ex->perf_n);
    for (int id = 0; id < CLU_VENDOR_COUNT && used > 0 && (size_t)used < sizeof lines; id++) {
        if (!v->timed[id]) {
            used += snprintf(lines + used, sizeof lines - (size_t)used, "\n%-10s not timed: %s",
                             clu_vendor_name(id), v->why[id]);
            continue;
        }
        double seconds[TIMED_ROUNDS]; /* (clu_stats_of sorts them) */
        memcpy(seconds, v->seconds[id], sizeof seconds);
        struct clu_stats t = clu_stats_of(seconds, TIMED_ROUNDS);
        double gflops = flops / t.median * 1e-9;
        if (id == CLU_CLBLAST)
            clblast = gflops;
        used += snprintf(lines + used, sizeof lines - (size_t)used,
                         "\n%-10s %.3f ms (min %.3f, max %.3f)  %.2f GFLOP/s: yours at %.2fx",
                         clu_vendor_name(id), t.median * 1e3, t.min * 1e3, t.max * 1e3, gflops,
                         r->gflops / gflops);
    }
    r->clblast_ratio = r->gflops / clblast;
    int reached = 0;
    while (reached < count && r->clblast_ratio >= ex->vendor_ratios[reached])
        reached++;
    grader_add_test(r, name, reached * ex->points.vendor, pts,
                    "%s\nyours at %.2fx CLBlast's speed: %d of the %d fractions reached", lines,
                    r->clblast_ratio, reached, count);
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
    struct grader_vendor_times vendors;
    struct grader_exercise timed = *ex, ref_timed = *ref_ex;
    ex = &timed;
    for (;;) {
        ref_timed.perf_n = timed.perf_n;
        grader_perf_test(cfg, ex, kernel, &ref_timed, reference, &r->gflops, &r->ref_gflops, text,
                         sizeof text, &earned, &too_busy,
                         ex->vendor_ratios[0] > 0 ? &vendors : NULL);
        double ref_seconds =
            r->ref_gflops > 0 ? grader_flops(ex, grader_square(ex->perf_n)) / r->ref_gflops * 1e-9
                              : 0.0;
        int next = 2 * ex->perf_n;
        if (ex->is_vector || ex->perf_fixed || ref_seconds <= 0.0 ||
            ref_seconds >= PERF_MIN_SECONDS || next > PERF_MAX_N || !grader_size_valid(ex, next) ||
            !grader_size_valid(&ref_timed, next))
            break;
        timed.perf_n = next; /* too short a launch to time well: again at twice the size */
    }
    r->too_busy |= too_busy;
    if (earned && !ex->is_vector)
        grade_traffic_rows(cfg, ex, mine, reference, traffic, sizeof traffic);
    grader_add_test(r, name, earned ? pts : 0, pts, "%s%s%s", note, text, traffic);
    if (ex->vendor_ratios[0] > 0)
        grade_test_vendors(cfg, ex, &ref_timed, reference, &vendors, vendors_off, r);
}
