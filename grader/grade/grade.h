/* grade.h - grading one exercise, test by test; grade_exercise.c holds their order, each test has a
 * file of its own: the harness child runs and the loading of what they saved (harness_run.c), the
 * kernel at the hidden sizes (kernel_tests.c), the host program (host_test.c), the memory check
 * (memcheck.c), the technique and the traffic rows (technique.c), the timing against the reference
 * (perf_test.c, timing.c; score.h how speed is scored), the CUDA twin (cuda.c), the quiz
 * (quiz.c), the report, the logs' head and results.json (report.c), and what that head says of the
 * run (provenance.c). The instructor's config is exercise/config.h. What those files share among
 * themselves is internal.h.
 */
#ifndef GRADER_GRADE_H
#define GRADER_GRADE_H

#include "exercise/exercise.h"
#include "jail/jail.h"
#include "clu_vendor.h"

#include <stdio.h>
#include <time.h>

/* ---------------------------------------------------------------- results and reports (report.c)
 */

/* What became of a test: the data every consumer (the report, results.json, the batch's
 * gradebook) reads, never the wording of its output. */
enum grader_verdict {
    GRADER_PASS, /* it ran and earned all its points (a test worth 0 of 0 that ran, too) */
    GRADER_FAIL, /* it ran and lost points, or went wrong */
    /* not run for the grader's own reasons, decided before any code of the student's runs and so
     * the same for every student graded on this machine with these flags: a switch (--no-perf,
     * --no-memcheck), a tool or library missing here (CLBlast, nvcc or an NVIDIA GPU, an
     * extension oclgrind lacks), an extension the device lacks. Its points leave the maximum
     * (left_out) */
    GRADER_SKIPPED,
    GRADER_NOT_RUN, /* it could not run because of the student's work: what it needs failed
                       first or is missing (the kernel does not build or is wrong, no answer to a
                       question); its points stay in the maximum */
};

/* The one rule of the maximum: every test an exercise has is listed for every student, and the
 * exercise's maximum (the sum of its tests' max) plus the points of its skipped tests (left_out)
 * is the table's grader_max_points of its row, whatever the student's code does
 * (grader_result_max_ok). */
struct grader_test {
    char name[96];        /* e.g. "04_local_B: correct at N=100" */
    const char *exercise; /* the id of its exercise (the table's string), e.g. "04_local_B" */
    enum grader_verdict verdict; /* pass, fail, skipped or not run */
    int score, max;              /* points (a skipped test: 0 of 0) */
    int left_out;                /* a skipped test: the points it is worth, out of the maximum */
    int instructors;             /* a handout's skipped test: the instructor's grading decides it */
    char *output;                /* what the student reads about it (malloc'd) */
    char *detail;   /* the protocol's details, in the exercise's log only (malloc'd, or NULL):
                     * the lines of a test's text that start with GRADER_LOG_ONLY */
    double seconds; /* wall time from the verdict before it (or the exercise's start) to this
                     * one: what its builds, runs and timing cost, for the log's tail */
};
#define GRADER_LOG_ONLY "log: "

#define GRADER_MAX_TESTS 32
#define GRADER_TIMED_ROUNDS                                                                        \
    5 /* timed rounds of each kernel in the comparison, at least (timing.c) */
#define GRADER_MAX_ROUNDS 15 /* and at most: rounds measured again, or while the ratios spread */

struct grader_exercise_result {
    const struct grader_exercise *ex;
    struct grader_test tests[GRADER_MAX_TESTS];
    int test_count;
    int not_implemented; /* nothing was written anywhere: the skeleton as given */
    int too_busy;        /* a run was stopped twice because the machine starved it: no verdict */
    double gflops;       /* student kernel at perf_n (0: not timed) */
    double ref_gflops;   /* reference solution at perf_n (0: not timed) */
    double ratio;        /* the one ratio to the reference shown everywhere: the one its point
                            is scored on (0: none) */
    double vendor_ratio; /* the capstone: its speed over the anchor's (0: not timed) */
    int vendor_anchor;   /* that anchor (enum clu_vendor_id, grader_vendor_anchor) */
    char summary[200];   /* one line for the summary table */
    double started;      /* CLOCK_MONOTONIC seconds when its grading began (0: not stamped) */
    double marked;       /* ... and when its last verdict was added */
};

/* Stamp the start of r's grading: each verdict added from now on carries its seconds. */
void grader_result_start_clock(struct grader_exercise_result *r);

/* Add a test to a result; output is printf-style. Its verdict is GRADER_PASS when score is max,
 * else GRADER_FAIL. */
void grader_add_test(struct grader_exercise_result *r, const char *name, int score, int max,
                     const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* Add a test with the verdict its producer chose: GRADER_NOT_RUN (0 of its max) where the
 * student's work kept it from running, GRADER_FAIL for a test worth nothing that went wrong, or
 * GRADER_SKIPPED where the grader could not run it here (see the verdicts): then max is the points
 * it is worth, which it keeps as left_out, scoring 0 of 0. */
void grader_add_verdict(struct grader_exercise_result *r, enum grader_verdict verdict,
                        const char *name, int score, int max, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));

/* A test a handout cannot run (it needs the reference solutions, which only the instructor's
 * workbook has): skipped here, its max points named as the instructor's grading's. */
void grader_add_instructors(struct grader_exercise_result *r, const char *name, int max,
                            const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* More text under a test already added: its output, a line break, then fmt's text. */
void grader_test_append(struct grader_test *t, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* The verdict's name in results.json: "pass", "fail", "skipped" or "not_run". */
const char *grader_verdict_name(enum grader_verdict verdict);

int grader_result_score(const struct grader_exercise_result *r);
int grader_result_max(const struct grader_exercise_result *r);
/* The points of r's skipped tests: out of its maximum, for every student on this machine. */
int grader_result_left_out(const struct grader_exercise_result *r);
/* Those of them a handout leaves to the instructor's grading (grader_add_instructors). */
int grader_result_instructors(const struct grader_exercise_result *r);
/* Whether r keeps the rule of the maximum: max + left out == grader_max_points of its row (a
 * result of no tests, never graded, too). 0 is a bug of the grader's: a test that went missing
 * or a skip that does not say its points. */
int grader_result_max_ok(const struct grader_exercise_result *r);

/* The per-exercise report (tests, scores, outputs; details: each test's log-only lines too, as
 * the exercise's log has them). */
void grader_print_exercise(FILE *out, const struct grader_exercise_result *r, int details);

/* What an exercise's log says about the run that wrote it, above its report: enough to repeat the
 * run, and nothing a student must not read. */
struct grader_run_info {
    const char *device;           /* as the summary names it */
    char date[32];                /* the run's start: UTC, ISO 8601 */
    char version[PATH_MAX + 160]; /* the grader's version, and where it came from */
    uint64_t seed;                /* the hidden seed */
    int seed_secret;              /* it came from --seed-file (a batch's secret): never written */
    unsigned long fingerprint; /* all a log says of a secret seed (the same seed, the same one) */
    const char *repeat;        /* the command line of this run less --ex and --seed (NULL: none) */
    char containment[1200];    /* what contains each run (cgroups, uid, rlimits), for the log */
};

/* The head of an exercise's log: date, device, grader version, the seed and the command that
 * repeats the run for this exercise (a secret seed: its fingerprint, and who can repeat it). */
void grader_print_log_header(FILE *out, const struct grader_run_info *run,
                             const struct grader_exercise *ex);

/* ---------------------------------------------------------------- where a run came from
 * (provenance.c) */

/* The version compiled in, for a workbook that is no git checkout (a tarball, Gradescope's). */
#define GRADER_VERSION "1.0"

/* The grader's version into out: `git describe --always --tags` of the workbook at root (its own
 * .git), noting uncommitted changes to what grades (grader/, common/, solutions/, Makefile); else
 * GRADER_VERSION. Either way it says which. */
void grader_version(const char *root, char *out, size_t size);

/* when as UTC in ISO 8601 (2026-11-23T14:05:09Z). */
void grader_utc_date(time_t when, char *out, size_t size);

/* argv as one line a POSIX shell runs (words quoted where needed), after `cd CWD && ` when cwd is
 * not NULL; malloc'd, or NULL. */
char *grader_shell_command(const char *cwd, const char *const *argv);

/* The lecture-style summary table and the score line. */
void grader_print_summary(FILE *out, const struct grader_exercise_result *results, int count,
                          const char *device);

/* results.json in Gradescope's format; what Gradescope has no key for goes in its extra_data
 * (documented as stored, not read): at the top the maximum, the points left out, the device (NULL:
 * none) and each exercise's score, maximum, points left out and table points; each test's
 * exercise, verdict and points left out in the test's. Returns 0, or -1 with a message. */
int grader_write_json(const char *path, const struct grader_exercise_result *results, int count,
                      double seconds, const char *device);

/* Make text safe to show, in place: every C0 control but \n and \t, DEL, every C1 control, every
 * noncharacter (U+FDD0..U+FDEF, U+xFFFE, U+xFFFF) and each invalid UTF-8 sequence (stray,
 * truncated, overlong, surrogate, past U+10FFFF) become '?'; valid UTF-8 is kept. */
void grader_sanitize_text(char *text);

/* s sanitized (grader_sanitize_text), with JSON string escapes; malloc'd. */
char *grader_json_escape(const char *s);

void grader_free_result(struct grader_exercise_result *r);

/* ---------------------------------------------------------------- grading */

struct grader_config {
    const char *root;        /* repository root: pristine common/, build/libclu.a, solutions/ */
    const char *submission;  /* folder holding the student's NN_name/ folders */
    const char *work;        /* scratch folder for builds and outputs */
    const char *cache;       /* what does not depend on the student, kept between runs (or NULL) */
    const char *results;     /* folder for per-exercise logs */
    const char *device;      /* device spec for every run (NULL: the first device) */
    const char *device_name; /* what the device calls itself (NULL: unknown) */
    const char *device_extensions; /* its CL_DEVICE_EXTENSIONS, space-separated (NULL: none) */
    int device_cpu; /* a CPU device (CL_DEVICE_TYPE_CPU): the capstone's anchor is OpenBLAS, and a
                     * timed launch's speed is the CPUs it had */
    int sizes_in_one_run; /* the hidden sizes run in one harness first (a GPU: its driver's start
                           * costs more than the runs; GRADER_SIZES_IN_ONE_RUN=0 or 1 says) */
    const char *self;     /* path of the grader executable (for --harness children) */
    uint64_t seed;        /* hidden seed of this grading run */
    double timeout;       /* seconds allowed per run of a student's kernel or program */
    double perf_ratio;    /* full performance points at this fraction of the reference's speed */
    int memcheck;         /* run oclgrind when it is installed */
    const char *memcheck_off; /* why memcheck is 0, for the report (NULL: --no-memcheck) */
    int perf;                 /* time against the reference */
    /* a handout (make handout): the workbook without solutions/. What needs the reference (the
     * timed comparison, the capstone's vendor fractions, the quiz's key, the CUDA twin's timing)
     * is the instructor's grading's: reported as such, its points out of this maximum */
    int handout;
    /* the graded device's tuning file (exercise/tuning.h; NULL: none): the timed comparison
     * builds each side with its line's values */
    const char *tuning_file;
    struct grader_sandbox
        sandbox; /* build and run student programs under bubblewrap when it works */
    struct grader_jail_settings jail; /* every jailed run's limits, cgroups, nice (jail.h) */
};

/* What the grader knows when a student's kernel is stopped at its time limit: how long the
 * reference solution took for the same work, and whether the kernel is known to end. With it a
 * kernel that is only slow is told so, and by how much, instead of being suspected of a loop
 * that never ends. */
struct grader_pace {
    double seconds;           /* the student's kernel ran this long at `work` and was stopped */
    double reference_seconds; /* the reference solution's time for the same work (0: unknown) */
    const char *work;         /* that work, e.g. "the same run" */
    const char *ends;         /* why the kernel is known to end ("it was right at N = 16"), or
                                 NULL: it may be a loop that never ends */
};

/* Why a harness run failed, for the report (NULL when it succeeded); sets dead when no later
 * run of this kernel can work (it does not build, its parameters are not the exercise's, or it
 * hangs). at: the size, "N = 100" (grader_size_text); pace (or NULL) says a run stopped at its
 * limit against the reference's time. */
char *grader_harness_failure(const struct grader_run_result *run, const char *log, const char *at,
                             const struct grader_pace *pace, char *dead, size_t dead_size);
/* dir/name saved by clu_save_result holding exactly want floats, or NULL with why set. */
float *grader_load_result(const char *dir, const char *name, size_t want, char *why,
                          size_t why_size);
/* The same into x (want floats), a buffer used again from check to check: 0, or -1 with why. */
int grader_load_result_into(const char *dir, const char *name, float *x, size_t want, char *why,
                            size_t why_size);

/* The quiz of ex (quiz.c): one test per question, the student's answers.txt against the key in
 * solutions/<ex>/answers.txt. */
void grader_quiz_tests(const struct grader_config *cfg, const struct grader_exercise *ex,
                       struct grader_exercise_result *r);

/* The CUDA twin of ex (cuda.c): built with nvcc and run at the hidden sizes through the CUDA
 * driver; reported as skipped (max 0) where nvcc or a CUDA device is missing. Returns 1 when it
 * shows nothing done: skipped, or a kernel.cu that ran and wrote nothing anywhere. */
int grader_cuda_tests(const struct grader_config *cfg, const struct grader_exercise *ex,
                      struct grader_exercise_result *r);

/* The vendor whose speed the capstone's fractions are of on cfg's device, the same for every
 * student graded there and known before any student's code runs (score.c): OpenBLAS on a CPU
 * device, the library a CPU user would call (CLBlast runs untuned there: POCL at N = 512 here,
 * 1.6 GFLOP/s against OpenBLAS's 82, so every correct kernel beat it), CLBlast on a GPU. */
enum clu_vendor_id grader_vendor_anchor(const struct grader_config *cfg);

/* The vendors' SGEMMs timed with the reference, no student's code running (the capstone's
 * anchor: grade_vendors_alone): each launch on the grader's clock, in the reference's harness
 * (never in a process the student's code runs in). Where under two of the anchor's launches in
 * the rounds were quiet, more launches of it follow: slots rounds to rounds + again - 1 (the other
 * vendors' are 0). */
#define GRADER_VENDOR_AGAIN 40 /* the anchor's launches taken again, at most */
#define GRADER_VENDOR_SLOTS (GRADER_MAX_ROUNDS + GRADER_VENDOR_AGAIN)
struct grader_vendor_times {
    double seconds[CLU_VENDOR_COUNT][GRADER_VENDOR_SLOTS]; /* each round's launch */
    double cpus[CLU_VENDOR_COUNT][GRADER_VENDOR_SLOTS];    /* CPUs the harness had (-1: unknown) */
    double waited[CLU_VENDOR_COUNT][GRADER_VENDOR_SLOTS]; /* its threads waiting for one (-1: "") */
    double ref_fastest;                  /* the reference's fastest quiet launch (0: none) */
    int rounds;                          /* rounds timed */
    int again;                           /* launches of the anchor after them */
    double again_seconds;                /* over how long */
    int kept[GRADER_MAX_ROUNDS];         /* those that count */
    int timed[CLU_VENDOR_COUNT];         /* every round timed */
    char why[CLU_VENDOR_COUNT][200];     /* else why not */
    char library[CLU_VENDOR_COUNT][200]; /* what ran, as the harness said ("OpenBLAS 0.3.21 ...") */
};

/* The student's kernel timed against the reference at perf_n (timing.c): each in a serving
 * harness of its own, every launch on the grader's clock, every round's C checked; each built
 * and launched with its own row's tuning values (ex; rx, the reference's: a tuning file's). Fills
 * the report text, the GFLOP/s of both (when timed), the ratio the point is scored on (the
 * median of the rounds' own ratios), the reference's fastest round (seconds per launch), whether
 * the point is earned, and whether the machine was too busy to time it. Where the reference's
 * launch, timed first alone, is shorter than grow_below seconds (0: never), nothing more runs: the
 * student's harness is not started and ref_fastest holds that launch, for a larger N. */
void grader_perf_test(const struct grader_config *cfg, const struct grader_exercise *ex,
                      const char *kernel, const struct grader_exercise *rx, const char *reference,
                      double grow_below, double *gflops, double *ref_gflops, double *ratio,
                      double *ref_fastest, char *out, size_t out_size, int *earned, int *too_busy);

/* A trusted kernel (a reference solution) timed alone at n on the grader's clock, in a serving
 * harness that saves into dir: 0 with min, median and max seconds, or -1 with why. */
int grader_time_trusted(const struct grader_config *cfg, const struct grader_exercise *ex,
                        const char *kernel, int n, const char *dir, double stats[3], char *why,
                        size_t why_size);
/* The same for a student's kernel, jailed, every round's C checked as in a comparison (a
 * handout's figure: it scores nothing); its log goes to dir. */
int grader_time_student(const struct grader_config *cfg, const struct grader_exercise *ex,
                        const char *kernel, int n, const char *dir, double stats[3], char *why,
                        size_t why_size);

/* The grader's oclgrind plugin beside its executable self, into path (technique.c): 0 when it is
 * there to read, -1 when not (make grader builds it). */
int grader_tiles_plugin(const char *self, char *path, size_t size);

/* Grade one exercise of the submission. */
void grader_grade_exercise(const struct grader_config *cfg, const struct grader_exercise *ex,
                           struct grader_exercise_result *r);

#endif
