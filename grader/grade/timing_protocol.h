/* timing_protocol.h - a serving harness (harness.c --serve) driven one command at a time on the
 * grader's clock (timing_protocol.c): what the timed comparison (timing.c) and `make tune`'s
 * search (tune/tune.c) share. The first part is exactly what tune.c uses; the second, the vendors'
 * launch, the lock and the clock, the comparison's alone. It records figures and decides
 * nothing: which launches a busy machine starved is busy.h's, the points score.h's.
 */
#ifndef GRADER_GRADE_TIMING_PROTOCOL_H
#define GRADER_GRADE_TIMING_PROTOCOL_H

#include "grade/busy.h"

#include <limits.h>

/* One kernel in a serving harness of its own: a side of the comparison, or a candidate tuned. */
struct grade_side {
    const char *who;            /* "yours", "reference", "the candidate", ... */
    struct grader_child *child; /* its serving harness */
    char dir[PATH_MAX];         /* its folder (where it saves c-R-K.bin) */
    char log[PATH_MAX + 32];    /* its stdout and stderr */
    int launches;               /* launches per timed command (0: one) */
    int sets;                   /* launch sets (A, B and C each) they take in turn (0: one) */
    double calibrated; /* the faster of calibration's two commands, seconds a launch (0: none) */
    double inputs_s, launches_s, checks_s; /* wall seconds of its commands so far, for the log:
                                            * new inputs, fills and launches, saves and checks */
    double saves_s;                        /* of checks_s, the saves' (pauses included) */
    struct grade_busy_launches timed; /* each slot's launch: seconds, as reported, CPUs, waits */
    struct grader_run_result ended;   /* how it ended */
    char *log_text;                   /* its output, capped, once it ended */
    float *c_buffer;       /* C as the checks read it, one buffer for all (grade_timing_end frees */
    size_t c_buffer_count; /* it), and the floats it holds */
};

/* ---------------------------------------------------------------- what tune.c uses */

/* The serving harness on kernel at n, saving into dir, its output to log; jailed (self: the
 * jail's copy of the grader) or not (a trusted kernel); with vendors, the vendors' SGEMMs too
 * (only where not jailed). NULL when it cannot start. */
struct grader_child *grade_timing_start(const struct grader_config *cfg,
                                        const struct grader_exercise *ex, const char *self,
                                        const char *kernel, int n, const char *dir, int jailed,
                                        int vendors, const char *log);

/* One timed round of s: s->launches launches on launch sets from seed (grader_launch_seed), the
 * command on the grader's clock, per launch, into slot `round` of s->timed (with what it had of
 * the CPU and its threads' waits). 0, or -1 with why. */
int grade_timing_round(const struct grader_config *cfg, struct grade_side *s, int round,
                       uint64_t seed, char *why, size_t why_size);

/* Every launch set's C of s's timed round `round` (round seed `seed`) saved, checked and removed:
 * set `full` (-1: none) element by element (sampled above N = 1024), the others with Freivalds'
 * test, at ex->perf_n. "" in why when all are right. -1 when the harness did not save one. With
 * paused, s is paused between rounds: it runs only while it saves. */
int grade_timing_checked(const struct grader_config *cfg, const struct grader_exercise *ex,
                         struct grade_side *s, int round, uint64_t seed, int full, int paused,
                         char *why, size_t why_size);

/* How many launches make one timed command of the side last 20 ms, from one launch of it timed
 * now, twice (at ex->perf_n, within the memory the launch sets may take); sets s->launches and
 * s->sets. 0, or -1 with why. */
int grade_timing_calibrate(const struct grader_config *cfg, const struct grader_exercise *ex,
                           struct grade_side *s, uint64_t seed, char *why, size_t why_size);

/* The harness ended (within cfg->timeout), how in s->ended, its output in s->log_text. */
void grade_timing_end(const struct grader_config *cfg, struct grade_side *s);

/* ---------------------------------------------------------------- the comparison's own */

/* Seconds on the monotonic clock. */
double grade_timing_now(void);

/* One launch command of vendor id on the reference's harness ref, in slot `slot` of v: ref's
 * count of launches, on the grader's clock, with the CPUs the harness had and its threads' waits
 * where the vendor computes on the CPU (OpenBLAS always; the others on a CPU device). A vendor
 * the harness skips, or whose launch fails, is left out from then on with the reason. */
void grade_timing_vendor_launch(const struct grader_config *cfg, struct grade_side *ref, int id,
                                int slot, struct grader_vendor_times *v);

/* Timings of different students on one device must not overlap: an exclusive lock on a file of
 * the cache folder, one per device spec. The descriptor (closing it lets go), or -1 (no cache
 * folder: no one to wait for). */
int grade_timing_lock(const struct grader_config *cfg);

#endif
