/* internal.h - what the files of grade/ share among themselves and nobody else includes: the
 * harness child on a student's kernel (harness_run.c) and the tests grade_exercise.c puts in order,
 * one file each. The wing's public header is grade.h.
 */
#ifndef GRADER_GRADE_INTERNAL_H
#define GRADER_GRADE_INTERNAL_H

#include "grade/grade.h"
#include "grade/score.h"
#include "exercise/protocol.h"
#include "exercise/traffic.h"
#include "oclgrind/findings.h"

#include <limits.h>

#define LOG_CAP 6000 /* bytes of a child's output shown in a report */

/* ---------------------------------------------------------------- harness children (harness_run.c)
 */

struct harness_run {
    struct grader_run_result run;
    char dir[PATH_MAX]; /* where it saved its files (its jail, removed by grade_harness_done) */
    char *log;          /* its output, capped */
    struct grader_jail jail;
};

/* Where the harness runs the kernel: on the graded device, or interpreted by oclgrind with its
 * memory checks (findings.h's OCLGRIND_CHECKS), built as the OpenCL compiler optimises it or
 * without optimisations (-cl-opt-disable). */
enum grade_under { UNDER_DEVICE, UNDER_OCLGRIND, UNDER_OCLGRIND_UNOPTIMISED };

/* The harness on kernel at s, jailed, its logs in the work folder `tag`; under oclgrind, built
 * with the values of grader_variant_of(ex, 0, 1), its findings in oclgrind.txt in h->dir. */
void grade_run_harness(const struct grader_config *cfg, const struct grader_exercise *ex,
                       const char *kernel, struct grader_size s, const char *tag,
                       enum grade_under under, struct harness_run *h);
/* The same on the device at count sizes in one harness (--then): sizes[0]'s files in h->dir, size
 * I's in h->dir/then-I, each folder with RESULT_DONE once all its files are saved. */
void grade_run_harness_sizes(const struct grader_config *cfg, const struct grader_exercise *ex,
                             const char *kernel, const struct grader_size *sizes, int count,
                             const char *tag, struct harness_run *h);
void grade_harness_done(struct harness_run *h);
/* The reference solution's harness run at n, jailed like the student's, timed: its seconds, or 0
 * when it did not finish right (what a stopped kernel is compared with); warm: its kernel built
 * by a run before, as the student's was at any size after the first. */
double grade_reference_seconds(const struct grader_config *cfg, const struct grader_exercise *ex,
                               struct grader_size s, int warm);

/* ---------------------------------------------------------------- the tests, one file each */

/* The kernel at each hidden size (kernel_tests.c), one test each; sets *passed, *sizes and
 * *untouched_all (nothing at all was written at any size). A run that makes every later one
 * pointless sets dead. */
void grade_test_sizes(const struct grader_config *cfg, const struct grader_exercise *ex,
                      const char *kernel, char *dead, size_t dead_size, int *passed, int *sizes,
                      int *untouched_all, struct grader_exercise_result *r);

/* ---------------------------------------------------------------- the builds under oclgrind */

/* One build of the student's kernel that the runs under oclgrind check (builds.c): its values,
 * the grader's canonical text preprocessed at them, and a size they allow. Its row is the
 * exercise's with check_tuning set to those values and memcheck_shape (memcheck_n) to that size,
 * so that everything that reads "the oclgrind runs' values and size" from a row (the harness's
 * --define values, the traffic count, the host program's run, the technique's tiles) takes this
 * build's. */
struct grade_build {
    struct grader_exercise row;
    char kernel[PATH_MAX + 128]; /* the canonical text at these values */
    char values[160];            /* "TSM=128 TSN=128 ..." ("" for a row without tuning values) */
    const char *which;           /* what these values are, for the report */
};

/* Every build a kernel is judged on, the graded one first:
 *   - the graded values (the row's defaults), which every hidden size and the host program build,
 *     at the drawn size rounded up to the smallest size those values allow;
 *   - where the device's tuning file times the student's kernel with other values, those, at the
 *     smallest size they allow from the drawn size up (the timed build);
 *   - where the row has smaller values for oclgrind, those at the drawn size: more work-groups
 *     and more tile edges for the same time, and every value the kernel's rules allow must work.
 * Rows without tuning values have one build at the drawn size, the same again at the technique's
 * draw above it (technique_large, 03 to 05), and at the second, smaller drawn size
 * (memcheck_small), last. */
#define GRADE_BUILDS 3
struct grade_builds {
    struct grade_build b[GRADE_BUILDS];
    int count;
};

struct grade_timed; /* (tuned.c, below) */

/* The builds of ex (the row with its drawn memcheck size): canonical is the text at the defaults,
 * checked at the row's check_tuning (the same path where it has none), timed what the timed
 * comparison builds (grade_timed_values; NULL: not timed). */
void grade_oclgrind_builds(const struct grader_exercise *ex, const char *canonical,
                           const char *checked, const struct grade_timed *timed,
                           struct grade_builds *out);
/* The builds' indices from the smallest run up (M x N x K at its size; of two as large, the later
 * first): the memory check runs them so, so that a kernel that fails at a small size costs no
 * larger run, and a hang is explained at the smallest. */
void grade_builds_by_size(const struct grade_builds *b, int order[GRADE_BUILDS]);
/* "N = 128 with the graded values TSM=128 TSN=128 ..." for the report. */
void grade_build_text(const struct grade_build *b, char *buf, size_t size);

/* A kernel of build b under oclgrind (oclgrind_kernel.c): run as the compiler optimises it; where
 * oclgrind's own log (never the run's output, which the kernel's printf writes to) says oclgrind
 * could not interpret it, run once more unoptimised. What the last run found is in found. */
struct oclgrind_kernel_run {
    struct harness_run h;         /* the last run (grade_harness_done, by grade_oclgrind_done) */
    struct grader_findings found; /* its log */
    int unreadable;               /* the log is no plain file: why says why */
    char why[100];
    int unoptimised;           /* the last run was built with -cl-opt-disable */
    char not_interpreted[100]; /* what the optimised build stopped on ("": nothing) */
};
void grade_oclgrind_kernel(const struct grader_config *cfg, const struct grade_build *b,
                           const char *tag, struct oclgrind_kernel_run *o);
/* Whether the run ended right and oclgrind's log holds nothing at all. */
int grade_oclgrind_clean(const struct oclgrind_kernel_run *o);
void grade_oclgrind_done(struct oclgrind_kernel_run *o);

/* The student's main.c built and run (host_test.c). */
/* The host program's size flags: --n N (and --m M --k K for a rectangular row), and with check
 * the values of the row's runs under oclgrind as --define NAME=VALUE. */
void grade_push_host_size(struct grader_argv *argv, const struct grader_exercise *ex,
                          struct grader_size s, int check);
/* The command as the report shows it: "04_local_B --n 120". */
void grade_host_command(const struct grader_exercise *ex, struct grader_size s, char *buf,
                        size_t size);
/* graded: the build the host program's run under oclgrind takes (the graded values). */
void grade_test_host(const struct grader_config *cfg, const struct grader_exercise *ex,
                     const char *kernel, const struct grade_build *graded, const char *dead,
                     struct grader_exercise_result *r);

/* Append printf-style text to the string out of size bytes, cut at its end (report.c). */
void grade_appendf(char *out, size_t size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* The compiler's output on a main.c built in the jail folder dir, every path in that folder
 * named as the workbook names it (id/main.c, common/clu.h, ...; host_paths.c); malloc'd, or NULL
 * when out of memory. */
char *grade_host_paths_rewrite(const char *text, const char *dir, const char *id);

/* The host program once more under oclgrind's API and memory checks (host_oclgrind.c): its own
 * folder, readied before the program's first run; `skip` says why not where it cannot run. */
struct host_oclgrind {
    char dir[PATH_MAX];              /* "" when it does not run */
    char again[PATH_MAX];            /* the same, for a second run ("": none) */
    char skip[120];                  /* why not */
    const struct grade_build *build; /* the build it checks: its row, values, size and text */
};
void grade_host_oclgrind_prepare(const struct grader_config *cfg, const struct grade_build *build,
                                 const char *prog, struct host_oclgrind *o);
/* Run it at the build's size: 1 when oclgrind's findings take the host test's points, the
 * findings and hints (quoting main_text, the student's main.c) in out; 0 with a note in out
 * otherwise. */
int grade_host_oclgrind(const struct grader_config *cfg, struct host_oclgrind *o,
                        const char *main_text, char *out, size_t size, int *too_busy);
void grade_host_oclgrind_done(struct host_oclgrind *o);

/* Whether the host program drove the device (host_launches.c): its run carries the grader's
 * OpenCL layer (child/launch_layer.c), which reports on a channel of its own what programs the
 * program built, what kernels it created and how it enqueued them. */
struct host_launches {
    struct grader_jail_channel channel; /* the run's channel: made anew for each start */
    int fd;                             /* the grader's end of the latest start's, or -1 */
    int starts;                         /* starts of the run so far */
    char nonce[LAYER_NONCE_SIZE + 1];   /* the latest start's */
    char source[PATH_MAX];              /* build/grader/launch_layer.so */
    char layer[PATH_MAX + 32];          /* its copy in the run's folder */
    char env[PATH_MAX];                 /* env, which sets LD_AUDIT for the program alone */
    char audit[PATH_MAX + 48];          /* LD_AUDIT=layer */
    char skip[160];                     /* why the check is not made ("": it is) */
    char trouble[160];                  /* why the latest start has no channel ("": it has) */
    struct host_seen *seen;             /* its records, once read (host_launches.c) */
};
/* A wrong C at size drawn beside the exercise's log (results/ID-WHO-SIZE.svg: WHO "C" for the
 * kernel's hidden sizes, "host-C" for the host program's), its name appended to wrong as
 * "picture: PATH"; an older picture of that size is removed where draw is 0 (C right, or nothing
 * written: the hint says all of it then). */
void grade_picture(const struct grader_config *cfg, const struct grader_exercise *ex,
                   const char *who, struct grader_size size, const float *c, const double *expected,
                   const double *tol, int draw, char *wrong, size_t wrong_size);

/* Ready the layer for a run of the host program in dir (before its first start). */
void grade_host_launches_prepare(const struct grader_config *cfg, const char *dir,
                                 struct host_launches *h);
/* Push `env LD_AUDIT=...` onto the run's command, after the sandbox and before the program. */
void grade_host_launches_push(const struct host_launches *h, struct grader_argv *argv);
/* js with the channel of h. */
struct grader_jail_settings grade_host_launches_jail(const struct grader_jail_settings *js,
                                                     const struct host_launches *h);
/* After the run, where it saved a right result at size `at`: 1 when the layer saw it build
 * kernel (the grader's copy of kernel.cl), create the row's kernel from it and enqueue it at the
 * exercise's geometry, or when the check cannot be made (the grader's trouble: a note in out);
 * 0 with what was not seen in out. */
int grade_host_launches_judge(const struct grader_config *cfg, const struct grader_exercise *ex,
                              struct grader_size at, const char *kernel, struct host_launches *h,
                              int *too_busy, char *out, size_t size);
/* After a run that failed (a wrong result, none saved, a crash): what the layer saw, for the
 * report: a launch it failed for its local memory, the launches of the row's kernel beside the
 * exercise's at size `at` ("" where the layer was not in the run). */
void grade_host_launches_seen(const struct grader_exercise *ex, struct grader_size at,
                              struct host_launches *h, char *out, size_t size);
/* After the run: the writes past a buffer's end the layer found in its guard zones (their count;
 * what they were in out, "" where none). */
int grade_host_launches_guards(const struct grader_exercise *ex, struct host_launches *h, char *out,
                               size_t size);
/* After the run: what the program still held at its normal exit (buffers, programs, kernels), a
 * note for the report ("" where it released everything, or the layer saw no exit). */
void grade_host_launches_hygiene(struct host_launches *h, char *out, size_t size);
void grade_host_launches_done(struct host_launches *h);

/* Whether the memory check can run (memcheck.c): 0 with its test added as not run where the
 * kernel is dead or oclgrind is missing. */
int grade_memcheck_can_run(const char *name, int pts, const char *dead,
                           struct grader_exercise_result *r);
/* The kernel under oclgrind at each build (memcheck.c): the point only where all are clean. */
void grade_test_memcheck(const struct grader_config *cfg, const struct grader_exercise *ex,
                         const struct grade_builds *builds, const char *dead,
                         struct grader_exercise_result *r);

/* Memory traffic of a kernel at memcheck_n, counted under oclgrind (technique.c): 0, or -1 with
 * t->why set. */
int grade_count_traffic(const struct grader_config *cfg, const struct grader_exercise *ex,
                        const char *kernel, const char *tag, struct grader_traffic *t);
/* The student's traffic beside the reference's, for the report ("" when not counted). */
void grade_traffic_rows(const struct grader_config *cfg, const struct grader_exercise *ex,
                        const struct grader_traffic *mine, const char *reference, char *out,
                        size_t size);
/* Whether a count keeps every bound of ex's technique (and was counted). */
int grade_technique_shows(const struct grader_exercise *ex, const struct grader_traffic *got);
/* The step's technique from the student's counted traffic. */
void grade_test_technique(const struct grader_exercise *ex, int all_right,
                          const struct grader_traffic *got, struct grader_exercise_result *r);
/* The same from the graded build's traffic (counted: 1 where it was), and where large_n > 0 (03 to
 * 05, grader_technique_large) counted again at N = large_n above the window: the count where the
 * technique does not show is the one judged and named; where it shows at both, the report adds
 * the second. */
void grade_test_technique_counted(const struct grader_config *cfg, const struct grade_build *graded,
                                  const struct grader_traffic *traffic, int counted, int large_n,
                                  int all_right, struct grader_exercise_result *r);

/* ---------------------------------------------------------------- the timed comparison
 * (timing.c; one harness's commands in timing_protocol.h, its judgement in busy.h and score.h) */

#define TIMED_ROUNDS GRADER_TIMED_ROUNDS /* timed rounds of each kernel, at least (grade.h) */
#define MAX_ROUNDS   GRADER_MAX_ROUNDS   /* and at most, those measured again included */
/* A GPU's: its launch needs no CPU but the waiting thread's, so outside load takes nothing from
 * it (no round is starved), and its rounds agree: on the H200, five rounds' slowest and fastest
 * launch within 1% of each other from 01 to 13, the points' steps 25% apart */
#define GPU_TIMED_ROUNDS 3
#define SLOTS            GRADER_VENDOR_SLOTS /* those and the capstone's rounds for a quiet vendor */

/* Whether the capstone's anchor (grader_vendor_anchor) can be timed here, decided before any code
 * of the student's runs (grade_exercise.c, grade_vendors_alone): the same for every student. */
struct grade_anchor_here {
    const char *off;   /* why it cannot (NULL: it can; else why, or another text) */
    char why[200];     /* (what off points to, from the check) */
    char library[200]; /* what runs, as its harness said ("OpenBLAS 0.3.21 ...") */
};

/* The kernel timed against the reference (perf_test.c), with the traffic rows when it earns it:
 * kernel built with ex's tuning values, the reference with ref_ex's; note (may be "") heads the
 * report's text. A row with vendor_ratios gets its test against the vendor's anchor as well
 * (grade_test_vendors), right or not. */
void grade_test_perf(const struct grader_config *cfg, const struct grader_exercise *ex,
                     const struct grader_exercise *ref_ex, const char *kernel, const char *note,
                     int all_right, const struct grader_traffic *mine,
                     const struct grade_anchor_here *here, struct grader_exercise_result *r);

/* A handout's (cfg->handout) lines beside the student's kernel timed alone at n, mine_seconds a
 * launch (baselines.c): the lecture's sequential loop and OpenBLAS in the grader's own process,
 * appended to out. */
void grade_baselines_text(const struct grader_config *cfg, int n, double mine_seconds, char *out,
                          size_t size);

/* The shortest reference launch the comparison times: a shorter one grows N (perf_test.c) */
#define GRADE_PERF_MIN_SECONDS 0.020
/* The timed size after a comparison at ex->perf_n whose reference launch took ref_seconds (rx
 * the reference's row): the next doubling to time at, or 0 where this one stays (perf_test.c). */
int grade_perf_next_n(const struct grader_exercise *ex, const struct grader_exercise *rx,
                      double ref_seconds);
/* The reference's launch at rx->perf_n (rx's build values, the device of cfg) kept by an earlier
 * grading in the cache folder, when under GRADE_PERF_MIN_SECONDS: its seconds, or 0 (none kept,
 * no cache folder) (pace_cache.c). */
double grade_pace_kept(const struct grader_config *cfg, const struct grader_exercise *rx,
                       const char *reference);
/* Keeps it there (nothing without a cache folder). */
void grade_pace_keep(const struct grader_config *cfg, const struct grader_exercise *rx,
                     const char *reference, double seconds);

/* The capstone's test against its anchor (perf_test.c), for a row with vendor_ratios: skipped
 * for every student where here->off says why the anchor is not timed here, not run where the
 * kernel was not timed (timed 0, or no GFLOP/s), else the fractions reached: the student's ratio
 * to the reference times the reference's speed over the anchor's (grade_anchor_get, rx's
 * reference at rx->perf_n). */
void grade_test_vendors(const struct grader_config *cfg, const struct grader_exercise *ex,
                        const struct grader_exercise *rx, const char *reference, int timed,
                        const struct grade_anchor_here *here, struct grader_exercise_result *r);

/* The vendors' SGEMMs timed with the reference (timing.c): the reference's harness of rx at
 * rx->perf_n with the vendors, `rounds` rounds (at most TIMED_ROUNDS) of the reference's launches,
 * each followed by one launch of each vendor, while no process of a student's runs; then more of
 * the anchor where under GRADE_BUSY_QUIET_WANTED of its launches were quiet. With one round it is
 * the check of what can be timed here, the same for every student. */
void grade_vendors_alone(const struct grader_config *cfg, const struct grader_exercise *rx,
                         const char *reference, int rounds, struct grader_vendor_times *v);

/* The capstone's anchor against the reference (anchor.c): each vendor's launches and the
 * reference's fastest, timed together with no student's code running. */
struct grade_anchor {
    struct grade_score_anchor score;      /* the reference's and the anchor's fastest */
    struct clu_stats t[CLU_VENDOR_COUNT]; /* each vendor's quiet launches (else its rounds') */
    int every_starved[CLU_VENDOR_COUNT];  /* no launch of it was quiet */
    int timed[CLU_VENDOR_COUNT];          /* timed, else why not: */
    char why[CLU_VENDOR_COUNT][200];
    int rounds, again; /* rounds with the reference, the anchor's after */
    long long when;    /* when (seconds since the epoch) */
    int kept;          /* read from the cache folder, timed by an earlier grading */
};

/* The check before any code of a student's runs (anchor.c): ex's reference (its kernel.cl) and
 * the vendors timed in one round, into here. */
void grade_anchor_here_of(const struct grader_config *cfg, const struct grader_exercise *ex,
                          const char *reference, struct grade_anchor_here *here);

/* rx's reference at rx->perf_n against the vendors, for the anchor library (here->library):
 * from the cache folder where a grading on this device timed the same reference, N and library
 * with quiet launches of the anchor, else timed now (and kept there when its launches were
 * quiet). 0, or -1 where the anchor could not be timed (a->why says why). */
int grade_anchor_get(const struct grader_config *cfg, const struct grader_exercise *rx,
                     const char *reference, const struct grade_anchor_here *here,
                     struct grade_anchor *a);

/* ---------------------------------------------------------------- tuned values (tuned.c) */

/* What the timed comparison builds each side with: the row's defaults, or where the graded
 * device has a tuning file (cfg->tuning_file), its reference line for the reference and its
 * submission line for the student's kernel. */
struct grade_timed {
    struct grader_exercise mine, reference; /* the row with each side's values */
    char kernel[PATH_MAX + 128];            /* the student's canonical text at theirs */
    char note[1600];                        /* for the report: which values, from where ("") */
};

/* From the row ex, the student's kernel.cl as copied (source) and its canonical text at the
 * defaults (canonical), into t; a submission line's values get a canonical text of their own
 * beside it. A line that cannot be used is said in the note and left out. */
void grade_timed_values(const struct grader_config *cfg, const struct grader_exercise *ex,
                        const char *source, const char *canonical, struct grade_timed *t);

#endif
