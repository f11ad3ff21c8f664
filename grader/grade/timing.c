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
#define _GNU_SOURCE /* getrandom, sched_getaffinity */
#include "grade/internal.h"
#include "grade/barrier_loop.h"
#include "exercise/protocol.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <sched.h>
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

/* Why the C of launch set `set` of timed round r (its inputs from seed) is wrong ("" if right):
 * every element against the reference (full; sampled elements above FULL_CHECK_MAX_N), or
 * Freivalds' O(N^2) check of the product. */
static void round_wrong(const struct grader_exercise *ex, const char *dir, int round, int set,
                        uint64_t seed, int full, char *why, size_t why_size) {
    int n = ex->perf_n;
    size_t count = grader_output_count(ex, grader_square(n)), in_count = (size_t)n * (size_t)n;
    char reason[200] = "", name[32];
    snprintf(name, sizeof name, RESULT_LAUNCH, round, set);
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

/* How long one timed command lasts at least, on the grader's clock: its own overhead per command
 * (a fraction of a millisecond on a GPU) is then a percent or two of what it times. */
#define PERF_COMMAND_SECONDS 0.020
/* The first seconds of a timed command with no watch of the child's limits: the watch (a walk
 * of /proc, some milliseconds) delayed the reading of a reply that came meanwhile, by up to 3% of
 * a 100 ms launch on the H200 */
#define QUIET_SECONDS 1.0
/* The device memory the launch sets of one side may take (each A, B and C of its own) */
#define LAUNCH_SETS_BYTES (1ull << 30)

/* The share of a window of `seen` seconds in which threads of the child waited for a CPU that
 * another task held, from its waited seconds before and after (-1: unknown). */
static double waited_share(double before, double after, double seen) {
    return before >= 0.0 && after >= before && seen > 0.0 ? (after - before) / seen : -1.0;
}

/* One command of s->launches launches on launch sets from seed, on the grader's clock: per launch,
 * the seconds it saw, those the harness reported, the CPUs the harness had and the threads of it
 * that waited for one, on average (-1: unknown). 0, or -1 with why. */
static int time_command(const struct grader_config *cfg, struct side *s, int round, uint64_t seed,
                        double got[4], char *why, size_t why_size) {
    char command[160], rest[128];
    int launches = s->launches > 0 ? s->launches : 1, sets = s->sets > 0 ? s->sets : 1;
    snprintf(command, sizeof command, SERVE_INPUTS " %d %llu %d", round, (unsigned long long)seed,
             sets);
    if (exchange(s, command, round, cfg->timeout, SERVE_INPUTS, NULL, 0) != 0) {
        snprintf(why, why_size, "%s: no answer to the inputs of round %d", s->who, round + 1);
        return -1;
    }
    /* the fills of C that the command makes between launches on one set, timed alone first (C
     * is the unwritten NaN either way), to be taken out of its time */
    double fills = 0.0;
    if (launches > sets) {
        snprintf(command, sizeof command, SERVE_FILL " %d %d", round, launches);
        grader_child_quiet(s->child, QUIET_SECONDS);
        double fill_start = now();
        int filled = exchange(s, command, round, cfg->timeout, SERVE_FILLED, NULL, 0);
        fills = now() - fill_start;
        grader_child_quiet(s->child, 0.0);
        if (filled != 0) {
            snprintf(why, why_size, "%s: no answer to the fills of round %d", s->who, round + 1);
            return -1;
        }
    }
    snprintf(command, sizeof command, SERVE_LAUNCH " %d %d", round, launches);
    double waited = grader_child_waited_seconds(s->child);
    double cpu = grader_child_cpu_seconds(s->child);
    grader_child_quiet(s->child, QUIET_SECONDS);
    double start = now();
    int ok = exchange(s, command, round, cfg->timeout, SERVE_LAUNCHED, rest, sizeof rest) == 0;
    double seen = now() - start;
    grader_child_quiet(s->child, 0.0);
    double cpu_after = grader_child_cpu_seconds(s->child);
    double waited_after = grader_child_waited_seconds(s->child);
    char *end = NULL;
    double reported = ok ? strtod(rest, &end) : 0;
    if (!ok || end == rest || !(reported > 0)) {
        snprintf(why, why_size, "%s: no answer to the launch of round %d", s->who, round + 1);
        return -1;
    }
    if (reported > seen) {
        snprintf(why, why_size,
                 "%s: round %d reported %.3f ms for %d launch%s the grader saw take %.3f ms",
                 s->who, round + 1, reported * 1e3, launches, launches == 1 ? "" : "es",
                 seen * 1e3);
        return -1;
    }
    if (fills > 0.0)
        seen = seen - fills > reported ? seen - fills : reported;
    got[0] = seen / launches;
    got[1] = reported / launches;
    got[2] = cpu >= 0.0 && cpu_after >= cpu ? (cpu_after - cpu) / seen : -1.0;
    got[3] = waited_share(waited, waited_after, seen);
    return 0;
}

int timed_round(const struct grader_config *cfg, struct side *s, int round, uint64_t seed,
                char *why, size_t why_size) {
    double got[4];
    if (round < 0 || round >= SLOTS || time_command(cfg, s, round, seed, got, why, why_size))
        return -1;
    s->seconds[round] = got[0];
    s->reported[round] = got[1];
    s->cpus[round] = got[2];
    s->waited[round] = got[3];
    return 0;
}

int round_checked(const struct grader_config *cfg, const struct grader_exercise *ex, struct side *s,
                  int round, uint64_t seed, int full, int paused, char *why, size_t why_size) {
    int launches = s->sets > 0 ? s->sets : 1; /* (each set's C, as its last launch left it) */
    why[0] = '\0';
    for (int k = 0; k < launches && !why[0]; k++) {
        char command[64], path[PATH_MAX + 64];
        snprintf(command, sizeof command, SERVE_SAVE " %d %d", round, k);
        if (paused) /* it runs to save, and is stopped again while the grader checks */
            grader_child_pause(s->child, 0);
        int saved = exchange(s, command, round, cfg->timeout, SERVE_SAVED, NULL, 0);
        if (paused)
            grader_child_pause(s->child, 1);
        if (saved != 0) {
            snprintf(why, why_size, "%s: C of round %d was not saved", s->who, round + 1);
            return -1;
        }
        round_wrong(ex, s->dir, round, k, grader_launch_seed(seed, k), k == full, why, why_size);
        if (why[0] && launches > 1) { /* which of the command's launches */
            char detail[900];
            snprintf(detail, sizeof detail, "%s (launch %d of the round's %d)", why, k + 1,
                     launches);
            snprintf(why, why_size, "%s", detail);
        }
        snprintf(path, sizeof path, "%s/" RESULT_LAUNCH, s->dir, round, k);
        unlink(path); /* checked: its disk back (64 MB at N = 4096) */
    }
    return 0;
}

int calibrate_launches(const struct grader_config *cfg, const struct grader_exercise *ex,
                       struct side *s, uint64_t seed, char *why, size_t why_size) {
    double got[4], one = 0.0;
    s->launches = s->sets = 1;
    /* twice, the faster counting: a first launch after the build is slower (a CPU's caches and
     * threads cold), and at N = 512 here it put a command at one launch of 7 ms, not 20 ms */
    for (int k = 0; k < 2; k++) {
        if (time_command(cfg, s, SLOTS, grader_derive_seed(seed, "calibration", k), got, why,
                         why_size) != 0)
            return -1;
        one = k == 0 || got[0] < one ? got[0] : one;
    }
    struct grader_size size = grader_square(ex->perf_n);
    unsigned long long set_bytes =
        sizeof(float) * (grader_a_count(ex, size) + grader_b_count(ex, size) +
                         grader_output_count(ex, size) + HARNESS_GUARD);
    unsigned long long budget = LAUNCH_SETS_BYTES;
    if (cfg->jail.limits.memory_bytes > 0 && /* a CPU's device memory is the jail's */
        (unsigned long long)cfg->jail.limits.memory_bytes / 3 < budget)
        budget = (unsigned long long)cfg->jail.limits.memory_bytes / 3;
    long most = (long)(budget / set_bytes);
    long want = one > 0.0 ? (long)ceil(PERF_COMMAND_SECONDS / one) : 1;
    if (want > SERVE_MAX_LAUNCHES)
        want = SERVE_MAX_LAUNCHES;
    s->launches = want < 1 ? 1 : (int)want;
    /* a set per launch where they fit, else as many as fit, each used in turn */
    long sets = want < most ? want : most;
    if (sets > SERVE_MAX_SETS)
        sets = SERVE_MAX_SETS;
    s->sets = sets < 1 ? 1 : (int)sets;
    return 0;
}

/* One launch command of vendor id on the reference's harness, in slot `slot` of v: the
 * reference's count of launches, on the grader's clock (the reply's own figure is not used), with
 * the CPUs the harness had meanwhile where the vendor computes on the CPU (OpenBLAS always; the
 * others on a CPU device), so that a launch a busy machine starved is known as the sides' are. A
 * vendor the harness skips, or whose launch fails, is left out from then on with the reason. */
static void vendor_launch(const struct grader_config *cfg, struct side *ref, int id, int slot,
                          struct grader_vendor_times *v) {
    int launches = ref->launches > 0 ? ref->launches : 1;
    unsigned long long n = nonce();
    char line[128], reply[256], timed[64], skipped[64];
    snprintf(line, sizeof line, SERVE_VENDOR " %d %s %llu", slot, clu_vendor_key(id), n);
    snprintf(timed, sizeof timed, SERVE_VENDOR " %d %llu ", slot, n);
    snprintf(skipped, sizeof skipped, SERVE_SKIPPED " %d %llu ", slot, n);
    double waited = grader_child_waited_seconds(ref->child);
    grader_child_quiet(ref->child, QUIET_SECONDS); /* (as a side's launch is timed) */
    double cpu = grader_child_cpu_seconds(ref->child), start = now();
    int asked = grader_child_ask(ref->child, line, reply, sizeof reply, cfg->timeout);
    double seen = now() - start, cpu_after = grader_child_cpu_seconds(ref->child);
    grader_child_quiet(ref->child, 0.0);
    double waited_after = grader_child_waited_seconds(ref->child);
    int on_cpu = id == CLU_OPENBLAS || cfg->device_cpu;
    v->cpus[id][slot] =
        on_cpu && cpu >= 0.0 && cpu_after >= cpu && seen > 0.0 ? (cpu_after - cpu) / seen : -1.0;
    v->waited[id][slot] = on_cpu ? waited_share(waited, waited_after, seen) : -1.0;
    if (asked == 0 && strncmp(reply, timed, strlen(timed)) == 0)
        v->seconds[id][slot] = seen / launches;
    else if (asked == 0 && strncmp(reply, skipped, strlen(skipped)) == 0)
        snprintf(v->why[id], sizeof v->why[id], "%s", reply + strlen(skipped));
    else
        snprintf(v->why[id], sizeof v->why[id], "no answer from the reference's harness");
}

/* Round r of every vendor not skipped yet. */
static void vendor_round(const struct grader_config *cfg, struct side *ref, int round,
                         struct grader_vendor_times *v) {
    for (int id = 0; id < CLU_VENDOR_COUNT; id++)
        if (!v->why[id][0])
            vendor_launch(cfg, ref, id, round, v);
    if (round + 1 > v->rounds)
        v->rounds = round + 1;
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
    for (int r = 0; r < MAX_ROUNDS; r++)
        slowest = ref->seconds[r] > slowest ? ref->seconds[r] : slowest;
    char why[200] = "";
    grader_child_pause(ref->child, 0);
    if (slowest <= 0.0 && timed_round(cfg, ref, 0, round_seed(seed, 0), why, sizeof why) == 0)
        slowest = ref->seconds[0];
    int launches = ref->launches > 0 ? ref->launches : 1;
    pace->work = launches == 1 ? "one timed launch" : "one timed command of its launches";
    pace->seconds = cfg->timeout;
    pace->reference_seconds = slowest * launches;
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

/* A round is measured again when a side, or a vendor on the CPU, lost more than STARVED_LOST of
 * what it wanted to a busy machine: its threads waited for a CPU another task held (the kernel's
 * run-queue count) more than that share of the time they ran and waited, or it had under
 * 1 - STARVED_LOST of the CPUs it had at best in any round so far. The waits tell what the CPU
 * share cannot: OpenBLAS's threads spin while they wait for each other, so a library starved of
 * one core still counts two. More rounds are added while the rounds' own ratios spread more than
 * SPREAD_MOST (their middle half, against the median). */
#define STARVED_LOST 0.25
#define SPREAD_MOST  0.15

/* What a launch lost to a busy machine in round r, from the CPUs it had (cpus[r]) and its threads
 * that waited for one (waited[r]), against the best CPUs of any round (best); 0 where neither is
 * known (a GPU's launch). */
static double lost_share(const double *cpus, const double *waited, int r, double best) {
    double lost = 0.0;
    if (cpus[r] >= 0.0 && best > 0.0 && 1.0 - cpus[r] / best > lost)
        lost = 1.0 - cpus[r] / best;
    if (cpus[r] >= 0.0 && waited[r] > 0.0 && waited[r] / (cpus[r] + waited[r]) > lost)
        lost = waited[r] / (cpus[r] + waited[r]);
    return lost;
}

/* Each launch of the round, as one walk: the sides' (sides; NULL: none) in slots 0 and 1, the
 * vendors' still timed (v; NULL: none) in 2 + id; -1 for a slot that has none. */
static int round_slot(struct side *sides, const struct grader_vendor_times *v, int slot,
                      const double **cpus, const double **waited) {
    if (slot < 2 && sides) {
        *cpus = sides[slot].cpus, *waited = sides[slot].waited;
        return 0;
    }
    if (slot >= 2 && v && !v->why[slot - 2][0]) {
        *cpus = v->cpus[slot - 2], *waited = v->waited[slot - 2];
        return 0;
    }
    return -1;
}

/* The most any launch of round r lost, each against the best CPUs it had in rounds [0, upto). */
static double round_lost(struct side *sides, const struct grader_vendor_times *v, int r, int upto) {
    double most = 0.0;
    for (int slot = 0; slot < 2 + CLU_VENDOR_COUNT; slot++) {
        const double *cpus, *waited;
        if (round_slot(sides, v, slot, &cpus, &waited) != 0)
            continue;
        double best = 0.0;
        for (int q = 0; q < upto; q++)
            best = cpus[q] > best ? cpus[q] : best;
        double lost = lost_share(cpus, waited, r, best);
        most = lost > most ? lost : most;
    }
    return most;
}

/* Whether round r, the last so far, was starved (judged against the rounds up to it). */
static int round_starved(struct side *sides, const struct grader_vendor_times *v, int r) {
    return round_lost(sides, v, r, r + 1) > STARVED_LOST;
}

/* Whether rounds measured so far, `kept` of them quiet, show a machine busy throughout:
 * TIMED_ROUNDS + 3 of them, under 3 quiet. More would rarely be quiet (beside the other tests'
 * load here, up to 15 rounds a comparison made `make test` 40 s longer); the least starved
 * count. */
static int starved_throughout(int rounds, int kept) {
    return rounds >= TIMED_ROUNDS + 3 && kept < 3;
}

/* Vendor id's launches that lost at most STARVED_LOST to a busy machine, each against the best
 * CPUs it had in any (the rounds' and those taken again): their seconds into quiet (sorted by
 * clu_stats_of later), and how many. A vendor's verdict is on these alone: OpenBLAS's threads
 * wait on each other, so one that lost a core ran here at a third of its speed (103 ms against
 * 33 at N = 1024), where POCL's work-groups, handed out as threads come free, slowed by half. */
static int vendor_quiet(const struct grader_vendor_times *v, int id,
                        double quiet[GRADER_VENDOR_SLOTS]) {
    int slots = v->rounds + v->again, count = 0;
    double best = 0.0;
    for (int slot = 0; slot < slots; slot++)
        best = v->seconds[id][slot] > 0.0 && v->cpus[id][slot] > best ? v->cpus[id][slot] : best;
    for (int slot = 0; slot < slots; slot++)
        if (v->seconds[id][slot] > 0.0 &&
            lost_share(v->cpus[id], v->waited[id], slot, best) <= STARVED_LOST)
            quiet[count++] = v->seconds[id][slot];
    return count;
}

/* The CPUs the grader may run on, and its children with it (its affinity, else those online). */
static double machine_cpus(void) {
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
        return CPU_COUNT(&set);
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    return online > 0 ? (double)online : 1.0;
}

/* Whether the student's launch in slot r lost more than STARVED_LOST to other work: its threads
 * waited for a CPU over that share of the time while it had under 1 - STARVED_LOST of the
 * machine's CPUs (cpus_here). Threads that wait while their side holds the CPUs wait for each
 * other (more of them than CPUs: its own doing), and the jail refuses to pin them to fewer CPUs
 * (session.c), so no kernel can look starved on an idle machine. 0 where unknown (a GPU). */
static int outside_starved(const struct side *s, int r, double cpus_here) {
    double had = s->cpus[r], waited = s->waited[r];
    return had >= 0.0 && waited > 0.0 && waited / (had + waited) > STARVED_LOST &&
           had < (1.0 - STARVED_LOST) * cpus_here;
}

/* The student's launches so far (rounds and rounds again) that other work did not starve. */
static int student_quiet(const struct side *mine, int slots) {
    double cpus_here = machine_cpus();
    int count = 0;
    for (int slot = 0; slot < slots; slot++)
        count += mine->seconds[slot] > 0.0 && !outside_starved(mine, slot, cpus_here);
    return count;
}

/* One timed round of the student's side (its launches checked after: set `full` element by
 * element, -1 none): 0, or -1 with why. */
static int student_round(const struct grader_config *cfg, const struct grader_exercise *ex,
                         struct side *mine, int r, uint64_t seed, int full, char *why,
                         size_t why_size) {
    grader_child_pause(mine->child, 0);
    int failed = timed_round(cfg, mine, r, round_seed(seed, r), why, why_size);
    grader_child_pause(mine->child, 1);
    if (failed)
        return -1;
    if (round_checked(cfg, ex, mine, r, round_seed(seed, r), full, 1, why, why_size) == 0 &&
        why[0]) {
        char detail[900];
        snprintf(detail, sizeof detail,
                 "not scored: the timed runs at N = %d did not all compute C: %s", ex->perf_n, why);
        snprintf(why, why_size, "%s", detail);
    }
    return why[0] ? -1 : 0;
}

/* Where under VENDOR_QUIET_WANTED of the anchor's launches, or of the student's (mine; NULL: the
 * vendors timed alone), in the rounds were quiet, rounds of the student's kernel and the anchor
 * alone follow (each frozen while the other runs, as before), until each has that many or
 * VENDOR_AGAIN_SECONDS pass: load that comes and goes, as a neighbour's builds do, leaves gaps
 * between its spells, and both have the same chances in them. A machine busy throughout leaves
 * one of them none, and the points are then left out of this grading's maximum
 * (grade_test_vendors) rather than judged on a starved launch. */
#define VENDOR_QUIET_WANTED  2
#define VENDOR_AGAIN_SECONDS 12.0
#define VENDOR_AGAIN_GAP_NS  100000000L /* (a pause between, so that the tries spread in time) */
static void vendor_again(const struct grader_config *cfg, const struct grader_exercise *ex,
                         struct side *mine, struct side *ref, uint64_t seed,
                         struct grader_vendor_times *v, char *why, size_t why_size) {
    int id = grader_vendor_anchor(cfg);
    double quiet[GRADER_VENDOR_SLOTS], start = now(), until = start + VENDOR_AGAIN_SECONDS;
    while (!why[0] && !v->why[id][0] &&
           (vendor_quiet(v, id, quiet) < VENDOR_QUIET_WANTED ||
            (mine && student_quiet(mine, v->rounds + v->again) < VENDOR_QUIET_WANTED)) &&
           v->again < GRADER_VENDOR_AGAIN && now() < until) {
        int slot = v->rounds + v->again;
        struct timespec gap = {0, VENDOR_AGAIN_GAP_NS};
        nanosleep(&gap, NULL);
        if (mine) {
            if (student_round(cfg, ex, mine, slot, seed, -1, why, why_size) != 0)
                break;
            if (!cfg->device_cpu) /* (as in the rounds) */
                mine->cpus[slot] = mine->waited[slot] = -1.0;
        }
        grader_child_pause(ref->child, 0);
        vendor_launch(cfg, ref, id, slot, v);
        grader_child_pause(ref->child, 1);
        v->again++;
        v->again_seconds = now() - start;
    }
}

/* Which of the first `rounds` rounds count, and how many: none where a side, or a vendor still
 * timed (v; NULL: none), was starved, each judged against its best of every round (a first round
 * that was starved is known only later). One set for all of them, so that the student's speed
 * and the vendor's it is held against come from the same rounds. Where fewer than 3 were quiet
 * (starved throughout), the TIMED_ROUNDS least starved rather than a verdict on two: each launch
 * suffers from a busy machine in its own way (OpenBLAS splits the work evenly between its threads,
 * POCL hands out work-groups), so the ratios drift the more the rounds lost. */
static int rounds_kept(struct side sides[2], const struct grader_vendor_times *v, int rounds,
                       int kept[MAX_ROUNDS]) {
    double lost[MAX_ROUNDS];
    int count = 0;
    for (int r = 0; r < rounds; r++) {
        lost[r] = round_lost(sides, v, r, rounds);
        count += kept[r] = lost[r] <= STARVED_LOST;
    }
    if (count >= 3)
        return count;
    int want = rounds < TIMED_ROUNDS ? rounds : TIMED_ROUNDS;
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

/* The rounds' own ratios (the reference's launch against the student's beside it), sorted. */
static int round_ratios(struct side sides[2], const struct grader_vendor_times *v, int rounds,
                        double ratios[MAX_ROUNDS]) {
    int kept[MAX_ROUNDS], n = 0;
    rounds_kept(sides, v, rounds, kept);
    for (int r = 0; r < rounds; r++)
        if (kept[r] && sides[0].seconds[r] > 0.0)
            ratios[n++] = sides[1].seconds[r] / sides[0].seconds[r];
    clu_stats_of(ratios, n); /* (sorts them) */
    return n;
}

static double ratios_spread(struct side sides[2], const struct grader_vendor_times *v, int rounds) {
    double ratios[MAX_ROUNDS];
    int n = round_ratios(sides, v, rounds, ratios);
    if (n < 4)
        return 0.0;
    double median = clu_stats_of(ratios, n).median;
    return median > 0.0 ? (ratios[(3 * n) / 4] - ratios[n / 4]) / median : 0.0;
}

/* What the comparison reports, from the rounds kept. */
struct round_figures {
    struct clu_stats mine, ref;   /* seconds per launch */
    double mine_event, ref_event; /* medians of what the harnesses reported */
    double cpus[2];               /* median CPUs each had (0: unknown) */
    double ratio;                 /* the median of the rounds' own ratios */
    int kept, starved;            /* rounds counted, rounds left out */
    double ref_unloaded;          /* the reference's fastest launch, less what the machine took */
};

static void round_figures(struct side sides[2], const struct grader_vendor_times *vendors,
                          int rounds, struct round_figures *f) {
    int kept[MAX_ROUNDS];
    double v[4][MAX_ROUNDS], cpus[2][MAX_ROUNDS], ratios[MAX_ROUNDS];
    f->kept = rounds_kept(sides, vendors, rounds, kept);
    f->starved = rounds - f->kept;
    int n = 0, known[2] = {0, 0};
    for (int r = 0; r < rounds; r++) {
        if (!kept[r])
            continue;
        v[0][n] = sides[0].seconds[r], v[1][n] = sides[1].seconds[r];
        v[2][n] = sides[0].reported[r], v[3][n] = sides[1].reported[r];
        for (int w = 0; w < 2; w++)
            if (sides[w].cpus[r] >= 0.0)
                cpus[w][known[w]++] = sides[w].cpus[r];
        /* the share of the CPU time it wanted that it had: the launch alone would take that much
         * of its time */
        double had = sides[1].cpus[r], waited = sides[1].waited[r], seconds = sides[1].seconds[r];
        if (had > 0.0 && waited > 0.0)
            seconds *= had / (had + waited);
        if (n == 0 || seconds < f->ref_unloaded)
            f->ref_unloaded = seconds;
        n++;
    }
    f->mine = clu_stats_of(v[0], n);
    f->ref = clu_stats_of(v[1], n);
    f->mine_event = clu_stats_of(v[2], n).median;
    f->ref_event = clu_stats_of(v[3], n).median;
    for (int w = 0; w < 2; w++)
        f->cpus[w] = known[w] ? clu_stats_of(cpus[w], known[w]).median : 0.0;
    f->ratio = clu_stats_of(ratios, round_ratios(sides, vendors, rounds, ratios)).median;
}

void grader_perf_test(const struct grader_config *cfg, const struct grader_exercise *ex,
                      const char *kernel, const struct grader_exercise *rx, const char *reference,
                      double *gflops, double *ref_gflops, double *ref_fastest, char *out,
                      size_t out_size, int *earned, int *too_busy,
                      struct grader_vendor_times *vendors) {
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
    /* both sides stopped but for their own turns: neither works (POCL's threads included) while
     * the other is timed, and each is treated as the other */
    for (int w = 0; w < 2 && !why[0]; w++)
        grader_child_pause(sides[w].child, 1);
    /* launches per command from the reference's pace, the same for both */
    if (!why[0]) {
        grader_child_pause(ref->child, 0);
        calibrate_launches(cfg, ex, ref, seed, why, sizeof why);
        grader_child_pause(ref->child, 1);
        mine->launches = ref->launches;
        mine->sets = ref->sets;
    }
    int checked = (int)(grader_derive_seed(seed, "checked round", 0) % TIMED_ROUNDS);
    int checked_set = (int)(grader_derive_seed(seed, "checked set", 0) %
                            (unsigned)(ref->sets > 0 ? ref->sets : 1));
    if (vendors)
        memset(vendors, 0, sizeof *vendors);
    int rounds = 0, kept = 0, want = TIMED_ROUNDS;
    for (; rounds < MAX_ROUNDS && kept < want && !starved_throughout(rounds, kept) && !why[0];
         rounds++) {
        int r = rounds;
        for (int turn = 0; turn < 2 && !why[0]; turn++) {
            int w = turn ^ (r & 1); /* who goes first swaps every round */
            if (w == 0) {
                if (student_round(cfg, ex, mine, r, seed, r == checked ? checked_set : -1, why,
                                  sizeof why) != 0)
                    break;
                continue;
            }
            grader_child_pause(ref->child, 0);
            int failed = timed_round(cfg, ref, r, round_seed(seed, r), why, sizeof why);
            grader_child_pause(ref->child, 1);
            if (failed)
                break;
        }
        if (vendors && !why[0]) { /* the student's processes stopped; the reference's thawed */
            grader_child_pause(ref->child, 0);
            vendor_round(cfg, ref, r, vendors);
            grader_child_pause(ref->child, 1);
        }
        if (why[0])
            break;
        if (!cfg->device_cpu) /* a GPU's launch needs no CPU but the waiting thread's */
            for (int w = 0; w < 2; w++)
                sides[w].cpus[r] = sides[w].waited[r] = -1.0;
        kept += !round_starved(sides, vendors, r);
        if (kept == want && want < MAX_ROUNDS &&
            ratios_spread(sides, vendors, rounds + 1) > SPREAD_MOST)
            want += 2; /* the rounds disagree: more of them, while there is room */
    }
    if (vendors && !why[0])
        vendor_again(cfg, ex, mine, ref, seed, vendors, why, sizeof why);
    if (vendors) {
        rounds_kept(sides, vendors, rounds, vendors->kept);
        double cpus_here = machine_cpus();
        for (int r = 0; r < rounds + vendors->again; r++) {
            vendors->yours[r] = mine->seconds[r];
            vendors->yours_starved[r] = outside_starved(mine, r, cpus_here);
        }
        for (int id = 0; id < CLU_VENDOR_COUNT; id++) {
            vendors->timed[id] = !why[0] && !vendors->why[id][0];
            if (why[0] && !vendors->why[id][0])
                snprintf(vendors->why[id], sizeof vendors->why[id], "the comparison stopped");
        }
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
        struct round_figures f = {0};
        round_figures(sides, vendors, rounds, &f);
        double flops = grader_flops(ex, grader_square(ex->perf_n));
        *gflops = flops / f.mine.median * 1e-9;
        *ref_gflops = flops / f.ref.median * 1e-9;
        *ref_fastest = f.ref_unloaded;
        double ratio = f.ratio;
        *earned = ratio >= cfg->perf_ratio;
        char again[240] = "", cpus[2][40] = {"", ""};
        if (f.starved)
            snprintf(
                again, sizeof again,
                ", %d more left out where a busy machine took the most from a side or a vendor "
                "(over %.0f%% of the CPU time it wanted; the most of all where every round lost "
                "that much)",
                f.starved, 100 * STARVED_LOST);
        for (int w = 0; w < 2; w++)
            if (f.cpus[w] > 0.0)
                snprintf(cpus[w], sizeof cpus[w], ", %.1f CPUs", f.cpus[w]);
        snprintf(out, out_size,
                 "N = %d, %d launch%s per timed command, %d alternating rounds%s, on the grader's "
                 "clock (per launch):\n"
                 "yours      %.3f ms (min %.3f, max %.3f)  %.2f GFLOP/s  (its own events: %.3f "
                 "ms%s)\n"
                 "reference  %.3f ms (min %.3f, max %.3f)  %.2f GFLOP/s  (its own events: %.3f "
                 "ms%s)\n"
                 "ratio %.2f, the median of the rounds' own ratios (points from %.2f)",
                 ex->perf_n, mine->launches, mine->launches == 1 ? "" : "es", f.kept, again,
                 f.mine.median * 1e3, f.mine.min * 1e3, f.mine.max * 1e3, *gflops,
                 f.mine_event * 1e3, cpus[0], f.ref.median * 1e3, f.ref.min * 1e3, f.ref.max * 1e3,
                 *ref_gflops, f.ref_event * 1e3, cpus[1], ratio, cfg->perf_ratio);
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
    /* as many launches per command as in a comparison (the check before a student's code: one) */
    if (!why[0] && rounds > 1)
        calibrate_launches(cfg, rx, &s, seed, why, sizeof why);
    /* a round of the reference gives the harness its inputs, on which the vendors are prepared;
     * a round where a vendor was starved is measured again, while there is room */
    for (int r = 0, kept = 0;
         kept < rounds && r < MAX_ROUNDS && !starved_throughout(r, kept) && !why[0]; r++)
        if (timed_round(cfg, &s, r, round_seed(seed, r), why, sizeof why) == 0) {
            vendor_round(cfg, &s, r, v);
            kept += !round_starved(NULL, v, r);
        }
    rounds_kept(NULL, v, v->rounds, v->kept);
    if (!why[0] && rounds > 1)
        vendor_again(cfg, rx, NULL, &s, seed, v, why, sizeof why);
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
    struct grader_exercise at_n = *ex;
    at_n.perf_n = n;
    if (!why[0])
        calibrate_launches(cfg, &at_n, &s, seed, why, why_size);
    for (int r = 0; r < TIMED_ROUNDS && !why[0]; r++)
        timed_round(cfg, &s, r, round_seed(seed, r), why, why_size);
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

enum clu_vendor_id grader_vendor_anchor(const struct grader_config *cfg) {
    return cfg->device_cpu ? CLU_OPENBLAS : CLU_CLBLAST;
}

/* The capstone against the vendors timed in the same rounds: points.vendor for each of the row's
 * fractions of the anchor's speed reached (grader_vendor_anchor: OpenBLAS on a CPU, CLBlast on a
 * GPU), on the medians; the others reported. Whether the anchor can be timed here was decided
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
    int count = 0;
    for (; count < GRADER_MAX_RATIOS && ex->vendor_ratios[count] > 0; count++) {
        size_t used = strlen(thresholds);
        snprintf(thresholds + used, sizeof thresholds - used, "%s%gx", count ? ", " : "",
                 ex->vendor_ratios[count]);
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
    /* your fastest launch, against each vendor's fastest that a busy machine did not starve
     * (a launch of yours that was is only slower): this machine's two cores run
     * OpenBLAS at 33 ms or at 63 ms (N = 1024) in spells of a second or two with nothing else
     * running (the host's doing, unseen from inside), and a slow capstone, hit less, measured
     * from 0.57x to 0.87x of it alone by the rounds' medians; the fastest of each is what the two
     * do on the machine at its best */
    double yours = 0.0;
    int yours_count = 0, yours_quiet = 0;
    for (int slot = 0; slot < v->rounds + v->again; slot++)
        if (v->yours[slot] > 0.0) {
            yours = yours_count == 0 || v->yours[slot] < yours ? v->yours[slot] : yours;
            yours_count++;
            yours_quiet += !v->yours_starved[slot];
        }
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
    double quiet[GRADER_VENDOR_SLOTS];
    if (vendor_quiet(v, anchor, quiet) == 0) {
        grader_add_verdict(
            r, GRADER_SKIPPED, name, 0, pts,
            "skipped: the machine was too busy to time %s: in all %d of its "
            "launches (%d in the rounds, %d in more rounds of yours and it alone, "
            "over %.1f s) other work took over %.0f%% of the CPU time it wanted (its "
            "threads wait on each other, so that slows it more than your kernel): the "
            "machine's trouble, so its %d points are left out of your maximum "
            "(grade again on a quieter machine; an instructor may grade again)",
            who, v->rounds + v->again, v->rounds, v->again, v->again_seconds, 100 * STARVED_LOST,
            pts);
        return;
    }
    if (yours_count > 0 && yours_quiet == 0) {
        grader_add_verdict(
            r, GRADER_SKIPPED, name, 0, pts,
            "skipped: the machine was too busy to time your kernel against %s: in all %d of "
            "its launches (%d in more rounds of yours and %s alone, over %.1f s) other work "
            "took over %.0f%% of the CPU time it wanted, while %s had quiet ones: the "
            "machine's trouble, so the %d points are left out of your maximum (grade again on "
            "a quieter machine; an instructor may grade again)",
            who, yours_count, v->again, who, v->again_seconds, 100 * STARVED_LOST, who, pts);
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
                         counted, v->rounds, v->rounds - counted, 100 * STARVED_LOST);
    if (v->again > 0 && used > 0 && (size_t)used < sizeof lines)
        used += snprintf(lines + used, sizeof lines - (size_t)used,
                         "; %d more rounds of yours and %s alone, where under %d of its "
                         "launches in the rounds were quiet",
                         v->again, who, VENDOR_QUIET_WANTED);
    if (yours > 0.0 && used > 0 && (size_t)used < sizeof lines)
        used += snprintf(lines + used, sizeof lines - (size_t)used,
                         "\nyours      fastest %.3f ms of %d launches  %.2f GFLOP/s", yours * 1e3,
                         yours_count, flops / yours * 1e-9);
    for (int id = 0; id < CLU_VENDOR_COUNT && used > 0 && (size_t)used < sizeof lines; id++) {
        if (!v->timed[id]) {
            used += snprintf(lines + used, sizeof lines - (size_t)used, "\n%-10s not timed: %s",
                             clu_vendor_name(id), v->why[id]);
            continue;
        }
        int n = vendor_quiet(v, id, quiet);
        const char *starved = "";
        if (n == 0) { /* (not the anchor: its points are never judged on these) */
            for (int round = 0; round < v->rounds; round++)
                if (v->kept[round])
                    quiet[n++] = v->seconds[id][round];
            starved = ", every launch starved by a busy machine";
        }
        struct clu_stats t = clu_stats_of(quiet, n);
        double gflops = flops / t.median * 1e-9;
        double ratio = yours > 0.0 ? t.min / yours : r->gflops / gflops;
        if (id == (int)anchor)
            r->vendor_ratio = ratio;
        used += snprintf(lines + used, sizeof lines - (size_t)used,
                         "\n%-10s %.3f ms (min %.3f, max %.3f%s)  %.2f GFLOP/s: yours at %.2fx%s",
                         clu_vendor_name(id), t.median * 1e3, t.min * 1e3, t.max * 1e3, starved,
                         gflops, ratio, id == (int)anchor ? " (the points' anchor)" : "");
    }
    r->vendor_anchor = (int)anchor;
    int reached = 0;
    while (reached < count && r->vendor_ratio >= ex->vendor_ratios[reached])
        reached++;
    grader_add_test(r, name, reached * ex->points.vendor, pts,
                    "%s\nyours at %.2fx %s's speed: %d of the %d fractions reached%s", lines,
                    r->vendor_ratio, who, reached, count,
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
                         &ref_seconds, text, sizeof text, &earned, &too_busy,
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
