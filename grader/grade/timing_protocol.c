/* timing_protocol.c - one serving harness (harness.c --serve) driven on the grader's clock
 * (timing_protocol.h): the commands the timed comparison (timing.c) and make tune (tune.c) send,
 * the checks of what each round computed, the vendors' launches and the lock. It records figures;
 * busy.c judges them and score.c scores them.
 *
 *   - the grader chooses every round's seed (the child learns it only when the round starts) and
 *     a nonce per command, so no reply can be made up in advance or taken for another;
 *   - it times each launch command on its own monotonic clock, from sending it to reading the
 *     reply: that is the figure that counts. What a child reports of its own launch (its event
 *     time) is shown beside it and refused when longer than the grader saw it happen;
 *   - every round's C is checked (one round, chosen from the hidden seed, element by element; the
 *     others with Freivalds' test against A(Bx)), from the file the harness saved in its folder.
 */
#define _GNU_SOURCE /* getrandom */
#include "grade/internal.h"
#include "grade/timing_protocol.h"
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

double grade_timing_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static unsigned long long nonce(void) {
    unsigned long long x = 0;
    if (getrandom(&x, sizeof x, 0) != (ssize_t)sizeof x)
        x = (unsigned long long)(grade_timing_now() * 1e9) * 0x9e3779b97f4a7c15ull;
    return x >> 1;
}

struct grader_child *grade_timing_start(const struct grader_config *cfg,
                                        const struct grader_exercise *ex, const char *self,
                                        const char *kernel, int n, const char *dir, int jailed,
                                        int vendors, const char *log) {
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
static int exchange(struct grade_side *s, const char *command, int round, double timeout,
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
 * drawn from seed and the hidden seed. */
static size_t sampled_wrong(int n, const float *c, uint64_t seed, uint64_t hidden, int samples) {
    size_t un = (size_t)n, wrong = 0;
    /* one way from the hidden seed too (the child knows its launch seed), then splitmix64 */
    uint64_t state = grader_derive_seed(seed ^ hidden, "sampled elements", 0);
    for (int s = 0; s < samples; s++) {
        state += 0x9e3779b97f4a7c15ull;
        uint64_t z = state;
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        uint64_t pick = (z ^ (z >> 31)) % (un * un);
        if (!grader_element_right_drawn(n, seed, c, pick / un, pick % un))
            wrong++;
    }
    return wrong;
}

/* Why the C of launch set `set` of timed round r (its inputs from seed) is wrong ("" if right),
 * read into c (its floats and the guard zone's): every element against the reference (full;
 * sampled elements above FULL_CHECK_MAX_N), or Freivalds' O(N^2) check of the product, its x and
 * its samples drawn with the grading's hidden seed as well. */
static void round_wrong(const struct grader_exercise *ex, const char *dir, int round, int set,
                        uint64_t seed, uint64_t hidden, int full, float *c, char *why,
                        size_t why_size) {
    int n = ex->perf_n;
    size_t count = grader_output_count(ex, grader_square(n));
    size_t guard = grader_guard_count(ex, grader_square(n));
    char reason[200] = "", name[32];
    snprintf(name, sizeof name, RESULT_LAUNCH, round, set);
    int loaded = grader_load_result_into(dir, name, c, count + guard, reason, sizeof reason) == 0;
    double *expected = NULL, *tol = NULL;
    why[0] = '\0';
    if (!loaded) {
        snprintf(why, why_size, "round %d: no result saved (%s)", round + 1, reason);
    } else if (grader_guard_damage(c + count, guard)) {
        snprintf(why, why_size, "round %d: it wrote past the end of C", round + 1);
    } else if (ex->is_vector && grader_vector_right(ex, grader_square(n), seed, c) == 1) {
        /* right: nothing to diagnose (the reference's arrays took 2 s a check at 16M) */
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
    } else {
        /* A and B drawn as read (no 64 MB copies of them a check); x, and the elements sampled,
         * from the hidden seed too: the child knows its launch seed, and knowing x, a C with
         * C x = A(Bx) is cheap to fake */
        size_t rows = grader_freivalds_drawn(grader_square(n), seed, c,
                                             grader_derive_seed(seed ^ hidden, "freivalds x", 0));
        size_t sampled = full && !rows ? sampled_wrong(n, c, seed, hidden, CHECK_SAMPLES) : 0;
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
/* the saved Cs of one round on disk at once, at most (and a quarter of the jail's disk) */
#define SAVE_BATCH_BYTES (256ll << 20)

/* One command of s->launches launches on launch sets from seed, on the grader's clock: per launch,
 * the seconds it saw, those the harness reported, the CPUs the harness had and the threads of it
 * that waited for one, on average (-1: unknown). 0, or -1 with why. */
static int time_command(const struct grader_config *cfg, struct grade_side *s, int round,
                        uint64_t seed, double got[4], char *why, size_t why_size) {
    char command[160], rest[128];
    int launches = s->launches > 0 ? s->launches : 1, sets = s->sets > 0 ? s->sets : 1;
    snprintf(command, sizeof command, SERVE_INPUTS " %d %llu %d", round, (unsigned long long)seed,
             sets);
    double asked = grade_timing_now();
    int answered = exchange(s, command, round, cfg->timeout, SERVE_INPUTS, NULL, 0);
    s->inputs_s += grade_timing_now() - asked;
    if (answered != 0) {
        snprintf(why, why_size, "%s: no answer to the inputs of round %d", s->who, round + 1);
        return -1;
    }
    /* the fills of C that the command makes between launches on one set, timed alone first (C
     * is the unwritten NaN either way), to be taken out of its time */
    double fills = 0.0;
    if (launches > sets) {
        snprintf(command, sizeof command, SERVE_FILL " %d %d", round, launches);
        grader_child_quiet(s->child, QUIET_SECONDS);
        double fill_start = grade_timing_now();
        int filled = exchange(s, command, round, cfg->timeout, SERVE_FILLED, NULL, 0);
        fills = grade_timing_now() - fill_start;
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
    double start = grade_timing_now();
    int ok = exchange(s, command, round, cfg->timeout, SERVE_LAUNCHED, rest, sizeof rest) == 0;
    double seen = grade_timing_now() - start;
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
    s->launches_s += seen + fills;
    if (fills > 0.0)
        seen = seen - fills > reported ? seen - fills : reported;
    got[0] = seen / launches;
    got[1] = reported / launches;
    got[2] = cpu >= 0.0 && cpu_after >= cpu ? (cpu_after - cpu) / seen : -1.0;
    got[3] = grade_busy_waited_share(waited, waited_after, seen);
    return 0;
}
int grade_timing_round(const struct grader_config *cfg, struct grade_side *s, int round,
                       uint64_t seed, char *why, size_t why_size) {
    double got[4];
    if (round < 0 || round >= SLOTS || time_command(cfg, s, round, seed, got, why, why_size))
        return -1;
    s->timed.seconds[round] = got[0];
    s->timed.reported[round] = got[1];
    s->timed.cpus[round] = got[2];
    s->timed.waited[round] = got[3];
    return 0;
}

/* Sets first..last-1 of round r saved by the harness, which runs only for them where it is
 * paused: 0, or -1 with why. */
static int save_batch(const struct grader_config *cfg, struct grade_side *s, int round, int first,
                      int last, int paused, char *why, size_t why_size) {
    double asked = grade_timing_now();
    int saved = 0;
    if (paused) /* it runs to save, and is stopped again while the grader checks */
        grader_child_pause(s->child, 0);
    for (int k = first; k < last && saved == 0; k++) {
        char command[64];
        snprintf(command, sizeof command, SERVE_SAVE " %d %d", round, k);
        saved = exchange(s, command, round, cfg->timeout, SERVE_SAVED, NULL, 0);
    }
    if (paused)
        grader_child_pause(s->child, 1);
    s->saves_s += grade_timing_now() - asked;
    if (saved != 0)
        snprintf(why, why_size, "%s: C of round %d was not saved", s->who, round + 1);
    return saved;
}

/* Why set k's saved C of round r is wrong, into why ("" if right), with which launch of the
 * command where it had several. */
static void set_wrong(const struct grader_config *cfg, const struct grader_exercise *ex,
                      struct grade_side *s, int round, int k, int launches, uint64_t seed, int full,
                      char *why, size_t why_size) {
    round_wrong(ex, s->dir, round, k, seed, cfg->seed, full, s->c_buffer, why, why_size);
    if (why[0] && launches > 1) {
        char detail[900];
        snprintf(detail, sizeof detail, "%s (launch %d of the round's %d)", why, k + 1, launches);
        snprintf(why, why_size, "%s", detail);
    }
}

int grade_timing_checked(const struct grader_config *cfg, const struct grader_exercise *ex,
                         struct grade_side *s, int round, uint64_t seed, int full, int paused,
                         char *why, size_t why_size) {
    int launches = s->sets > 0 ? s->sets : 1; /* (each set's C, as its last launch left it) */
    why[0] = '\0';
    double began = grade_timing_now();
    /* one buffer for every check of the side (fresh pages cost more than the check), as large
     * as the largest C it has checked */
    struct grader_size z = grader_square(ex->perf_n);
    size_t need = grader_output_count(ex, z) + grader_guard_count(ex, z);
    if (!s->c_buffer || s->c_buffer_count < need) {
        free(s->c_buffer);
        s->c_buffer_count = 0;
        s->c_buffer = malloc(need * sizeof(float));
        if (!s->c_buffer) {
            snprintf(why, why_size, "grader out of memory");
            return 0;
        }
        s->c_buffer_count = need;
    }
    /* the sets saved in batches between one thaw and one freeze, then checked while it is
     * stopped: a freeze of the harness took longer here (10 to 30 ms) than the save of a small C,
     * and at N = 64 a round has 33 sets */
    size_t file_bytes = need * sizeof(float) + 16;
    long long room = SAVE_BATCH_BYTES;
    if (cfg->jail.limits.disk_bytes > 0 && cfg->jail.limits.disk_bytes / 4 < room)
        room = cfg->jail.limits.disk_bytes / 4; /* (the saves are in the student's folder) */
    int batch = (int)((unsigned long long)room / file_bytes);
    batch = batch < 1 ? 1 : batch;
    for (int first = 0; first < launches && !why[0]; first += batch) {
        int last = first + batch < launches ? first + batch : launches;
        int saved = save_batch(cfg, s, round, first, last, paused, why, why_size) == 0;
        for (int k = first; k < last && saved && !why[0]; k++)
            set_wrong(cfg, ex, s, round, k, launches, grader_launch_seed(seed, k), k == full, why,
                      why_size);
        /* checked, or not needed: their disk back (64 MB a C at N = 4096) */
        for (int k = first; k < last; k++) {
            char path[PATH_MAX + 64];
            snprintf(path, sizeof path, "%s/" RESULT_LAUNCH, s->dir, round, k);
            unlink(path);
        }
        if (!saved)
            return -1;
    }
    s->checks_s += grade_timing_now() - began;
    return 0;
}

int grade_timing_calibrate(const struct grader_config *cfg, const struct grader_exercise *ex,
                           struct grade_side *s, uint64_t seed, char *why, size_t why_size) {
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
    s->calibrated = one;
    struct grader_size size = grader_square(ex->perf_n);
    unsigned long long set_bytes =
        sizeof(float) * (grader_a_count(ex, size) + grader_b_count(ex, size) +
                         grader_output_count(ex, size) + grader_guard_count(ex, size));
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
void grade_timing_vendor_launch(const struct grader_config *cfg, struct grade_side *ref, int id,
                                int slot, struct grader_vendor_times *v) {
    int launches = ref->launches > 0 ? ref->launches : 1;
    unsigned long long n = nonce();
    char line[128], reply[512], timed[64], skipped[64];
    snprintf(line, sizeof line, SERVE_VENDOR " %d %s %llu", slot, clu_vendor_key(id), n);
    snprintf(timed, sizeof timed, SERVE_VENDOR " %d %llu ", slot, n);
    snprintf(skipped, sizeof skipped, SERVE_SKIPPED " %d %llu ", slot, n);
    double waited = grader_child_waited_seconds(ref->child);
    grader_child_quiet(ref->child, QUIET_SECONDS); /* (as a side's launch is timed) */
    double cpu = grader_child_cpu_seconds(ref->child), start = grade_timing_now();
    int asked = grader_child_ask(ref->child, line, reply, sizeof reply, cfg->timeout);
    double seen = grade_timing_now() - start, cpu_after = grader_child_cpu_seconds(ref->child);
    grader_child_quiet(ref->child, 0.0);
    double waited_after = grader_child_waited_seconds(ref->child);
    int on_cpu = id == CLU_OPENBLAS || cfg->device_cpu;
    v->cpus[id][slot] =
        on_cpu && cpu >= 0.0 && cpu_after >= cpu && seen > 0.0 ? (cpu_after - cpu) / seen : -1.0;
    v->waited[id][slot] = on_cpu ? grade_busy_waited_share(waited, waited_after, seen) : -1.0;
    if (asked == 0 && strncmp(reply, timed, strlen(timed)) == 0) {
        v->seconds[id][slot] = seen / launches;
        const char *library = strchr(reply + strlen(timed), ' '); /* (after its own figure) */
        if (library)
            snprintf(v->library[id], sizeof v->library[id], "%s", library + 1);
    } else if (asked == 0 && strncmp(reply, skipped, strlen(skipped)) == 0)
        snprintf(v->why[id], sizeof v->why[id], "%s", reply + strlen(skipped));
    else
        snprintf(v->why[id], sizeof v->why[id], "no answer from the reference's harness");
}

void grade_timing_end(const struct grader_config *cfg, struct grade_side *s) {
    if (s->child)
        grader_finish(s->child, cfg->timeout, &s->ended);
    s->child = NULL;
    s->log_text = grader_read_capped(s->log, LOG_CAP);
    free(s->c_buffer);
    s->c_buffer = NULL;
    s->c_buffer_count = 0;
}

/* Timings of different students on one device must not overlap (make batch with JOBS > 1 runs
 * graders side by side): each comparison holds an exclusive lock on a file of the cache folder,
 * one per device spec (graders of one batch are given the same), which only the grader's own
 * uid can open (0600), so a student's process can neither take it nor hold it. Waiting costs the
 * student nothing: no clock runs. The descriptor, or -1 (no cache folder: no one to wait for). */
int grade_timing_lock(const struct grader_config *cfg) {
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
