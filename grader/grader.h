/* grader.h - the workbook's grader: the exercise table, the sandboxed runner, the kernel harness,
 * the checks and the reports.
 *
 * The grader never trusts a student's program: it builds the student's main.c against the pristine
 * common/ library, runs every student program and kernel in a child process with a time limit,
 * and checks the numbers those children save against its own double-precision reference. Nothing
 * a student program prints is read as a verdict.
 */
#ifndef GRADER_H
#define GRADER_H

#include "argv.h"
#include "clu.h"

#include <linux/limits.h> /* PATH_MAX */
#include <stdio.h>
#include <sys/types.h>

/* ---------------------------------------------------------------- the exercise table (table.c) */

/* One kernel argument, in the order the kernel declares them; the harness sets each one. */
enum grader_arg {
    ARG_END = 0,    /* ends the list */
    ARG_N,          /* const int N: the matrix order */
    ARG_COUNT,      /* const unsigned int count: the vector length */
    ARG_A,          /* __global input A (or a) */
    ARG_B,          /* __global input B (or b) */
    ARG_C,          /* __global output C (or c) */
    ARG_LOCAL_ROW,  /* __local float[N]: one column of B */
    ARG_LOCAL_TILE, /* __local float[BLOCK * BLOCK]: one tile */
};

/* How the harness launches the kernel (the NDRange and the local size). */
enum grader_shape {
    SHAPE_VECTOR,       /* 1-D {count}, local size left to the runtime */
    SHAPE_ELEMENTS,     /* 2-D {N, N}, local size left to the runtime */
    SHAPE_ROWS,         /* 1-D {N}, local size left to the runtime */
    SHAPE_ROWS_GROUPED, /* 1-D {N}, local size: largest divisor of N up to GROUP_LIMIT */
    SHAPE_TILES,        /* 2-D {N, N}, local size {BLOCK, BLOCK} */
};

#define GRADER_GROUP_LIMIT                                                                         \
    64 /* work-group size cap of SHAPE_ROWS_GROUPED, as the lecture's N/16                         \
        */
#define GRADER_MAX_SIZES 6
#define GRADER_MAX_ARGS  8

/* Points of one exercise; each correctness size is a test of its own. */
struct grader_points {
    int per_size;  /* each hidden size computed right, with nothing written out of bounds */
    int host;      /* the student's host program saves a right result */
    int memcheck;  /* oclgrind finds no out-of-bounds access, data race or uninitialised read */
    int perf;      /* median time within grader_perf_ratio of the reference's */
    int technique; /* the step's technique shows in the kernel's measured memory traffic */
};

/* What an exercise's technique does to memory traffic, checked on the accesses oclgrind counts
 * at memcheck_n (per multiply-add), not by reading the source. */
struct grader_technique {
    const char *what;        /* the technique, for the report */
    double max_global_loads; /* at most this many global loads per multiply-add (0: no bound) */
    double min_local_loads;  /* at least this many local loads per multiply-add (0: no bound) */
};

/* One question of a quiz: its id in answers.txt ("q1") and its points. */
struct grader_question {
    const char *id;
    int points;
};
#define GRADER_MAX_QUESTIONS 16

struct grader_exercise {
    const char *id;                        /* folder name, e.g. "04_local_B" */
    const char *title;                     /* the lecture's name of the case */
    const char *kernel;                    /* __kernel function name */
    int is_vector;                         /* c = a + b over count elements, not C = A * B */
    enum grader_arg args[GRADER_MAX_ARGS]; /* kernel arguments, ARG_END-terminated */
    enum grader_shape shape;               /* NDRange and local size */
    int block;                             /* BLOCK passed as -DBLOCK (tiles, and the hints) */
    int sizes[GRADER_MAX_SIZES];           /* hidden correctness sizes, 0-terminated */
    int host_n;                            /* size of the host program's run */
    int memcheck_n; /* size of the oclgrind run (it interprets: keep small) */
    int perf_n;     /* size of the timed comparison */
    int max_n;      /* largest valid size (0: no limit) */
    int multiple;   /* sizes must be multiples of this (1: any) */
    struct grader_points points;
    struct grader_technique technique; /* checked when points.technique > 0 */
    /* exercises without an OpenCL kernel (kernel == NULL) may have a quiz and a CUDA twin */
    struct grader_question quiz[GRADER_MAX_QUESTIONS]; /* answers.txt questions, id NULL ends */
    int cuda_per_size; /* points per hidden size of the CUDA twin kernel.cu (0: none) */
};

/* Full performance points at this fraction of the reference's speed or better (timings on shared
 * machines swing up to 2x). A config file may change it. */
extern double grader_perf_ratio;

extern struct grader_exercise grader_exercises[]; /* a config file may change rows */
extern const int grader_exercise_count;

/* The row of exercise id, or NULL. */
const struct grader_exercise *grader_find_exercise(const char *id);

/* Elements of the output at size n (n for vectors, n*n for matrices). */
size_t grader_output_count(const struct grader_exercise *ex, int n);

/* Flops of one launch at size n (n for vectors, 2 n^3 for matrices). */
double grader_flops(const struct grader_exercise *ex, int n);

/* Whether n is a valid size for the exercise (multiple, max_n). */
int grader_size_valid(const struct grader_exercise *ex, int n);

/* The size of the memory check and the technique count: drawn by seed among the valid sizes
 * from 3/4 to 3/2 of the row's memcheck_n, other than memcheck_n itself (which the table and
 * the documentation show). */
int grader_memcheck_size(const struct grader_exercise *ex, uint64_t seed);

/* Sum of an exercise's points. */
int grader_max_points(const struct grader_exercise *ex);

/* ---------------------------------------------------------------- running children (run.c) */

enum grader_run_how {
    RUN_EXITED,     /* exited; code is its status */
    RUN_SIGNALED,   /* killed by signal code */
    RUN_TIMEOUT,    /* ran past the limit and was killed */
    RUN_NO_START,   /* could not be started (fork or exec failed) */
    RUN_OVER_LIMIT, /* stopped by a watched limit; code is LIMIT_DISK or LIMIT_MEMORY */
    RUN_TOO_BUSY,   /* stopped at its time limit, twice, having got under a quarter of a CPU
                       while it wanted one: the machine was too busy (not the program's fault) */
};
#define LIMIT_DISK   1
#define LIMIT_MEMORY 2

struct grader_run_result {
    enum grader_run_how how;
    int code;       /* exit status or signal number */
    double seconds; /* wall time */
};

/* Run argv[0] with argv in its own process group, stdin from /dev/null, stdout and stderr
 * appended to out_path (created anew), with a wall-clock limit of timeout seconds; the whole
 * group is killed at the limit and when the child ends (no stray processes). Output files are
 * capped by RLIMIT_FSIZE. Never fails: the outcome is in *result. */
void grader_run(char *const argv[], const char *out_path, double timeout,
                struct grader_run_result *result);

/* A child that takes commands: it runs like grader_run (jailed in dir, or not when dir is
 * NULL), with its stdin a command channel and its fd 3 a reply channel. Never NULL but out of
 * memory; when it could not start, grader_finish says why. */
struct grader_child;
struct grader_child *grader_start(char *const argv[], const char *dir, const char *out_path);
/* Send one command line (none when NULL) and read one reply line (without its newline) within
 * timeout seconds, watching the child's limits meanwhile: 0, or -1 when it ended, broke the
 * protocol, or was stopped (at its time or a limit: grader_finish tells). */
int grader_child_ask(struct grader_child *c, const char *command, char *reply, size_t size,
                     double timeout);
/* Stop (SIGSTOP) or continue every process of the child's session: a paused child cannot work
 * while another is timed. */
void grader_child_pause(struct grader_child *c, int paused);
/* Close its commands, wait up to timeout seconds for it to end, kill what is left, free c. */
void grader_finish(struct grader_child *c, double timeout, struct grader_run_result *result);

/* What a student's own processes (its build and its host program) may use. */
struct grader_limits {
    double cpu_seconds;     /* RLIMIT_CPU of each process */
    long processes;         /* RLIMIT_NPROC: tasks (threads too) at once */
    long open_files;        /* RLIMIT_NOFILE */
    long long memory_bytes; /* RLIMIT_DATA of each process, and resident memory of them all */
    long long disk_bytes;   /* what its folder may hold */
};
void grader_set_limits(const struct grader_limits *l);
const struct grader_limits *grader_get_limits(void);

/* Control groups for every jailed run from now on (cgroup.h: a run's group with the memory and
 * process limits, its CPU time counted, frozen to pause it, killed whole at the end); NULL
 * goes back to the fallback: uid, rlimits and the watch. */
struct grader_cgroup_student;
void grader_jail_use_cgroups(struct grader_cgroup_student *groups);

/* The uid student processes run as when the grader is root (an unused one, random per grader
 * run), or (uid_t)-1 when the grader is not root or GRADER_NO_UID is set. */
uid_t grader_jail_uid(void);

/* grader_run for a student's own program: the limits above, HOME and TMPDIR in dir, the folder
 * handed to the student's uid (when root) and watched for size; after the run every process of
 * that uid is killed, even those that left the process group. */
void grader_run_jailed(char *const argv[], const char *dir, const char *out_path, double timeout,
                       struct grader_run_result *result);

/* A folder (its uid's, or NULL) for POCL's compiled kernels shared by the jailed kernel runs of
 * one exercise (POCL_CACHE_DIR, bound into the sandbox): a kernel is compiled once, not at every
 * run. Student host programs never get it (they could plant a slow binary for the reference). */
void grader_set_kernel_cache(const char *dir);
const char *grader_kernel_cache(void);

/* The nice value of the next jailed runs, and of their session (0: the grader's). A student's
 * host program and build run at 19: a fork bomb's processes then leave the CPU to a neighbour's
 * kernel runs (which cannot fork and keep the grader's priority), so they do not time out. */
void grader_set_jail_niceness(int niceness);

/* In a child before exec (system calls only): a session of its own, whose autogroup gets that
 * nice value (1..19; 0 leaves it), and a seccomp filter under which setsid() fails with EPERM, so
 * nothing it starts takes a CPU share of its own (the kernel shares the CPU between sessions
 * first). Also sets no_new_privs. 0, or -1 with errno. */
int grader_enter_own_session(int niceness);

/* One line describing a run outcome, e.g. "crashed with SIGSEGV (signal 11)". */
void grader_describe_run(const struct grader_run_result *r, char *buf, size_t size);

/* The first executable `name` on $PATH (a regular file) into path: 0, or -1 if there is none. */
int grader_find_program(const char *name, char *path, size_t size);

/* FNV-1a of bytes; of a file's bytes (0 if unreadable): names a cache entry after its source. */
uint64_t grader_fnv1a(const void *data, size_t length);
uint64_t grader_file_hash(const char *path);

/* rm -rf of a folder of the grader's own. */
void grader_remove_tree(const char *path);

/* At most max bytes of a file: the head and the tail of it when longer, with a note between.
 * Returns a malloc'd string ("" for a missing file). */
char *grader_read_capped(const char *path, size_t max);

/* ---------------------------------------------------------------- the kernel harness (harness.c)
 */

/* Exit statuses of `grader --harness`, the child that runs a kernel for the grader. */
#define HARNESS_OK          0
#define HARNESS_USAGE       2
#define HARNESS_OPENCL      3    /* an OpenCL call failed (message on stderr) */
#define HARNESS_BUILD       4    /* the kernel source did not build (build log on stderr) */
#define HARNESS_NO_KERNEL   5    /* no __kernel of the expected name */
#define HARNESS_BAD_DEVICE  6    /* no device, or the work-group does not fit it */
#define HARNESS_GUARD       1024 /* floats of guard zone after C, filled with GUARD_VALUE */
#define HARNESS_GUARD_VALUE 1234567.0f

/* One launch of a kernel as the table row says: NDRange and local size. */
struct grader_launch {
    cl_kernel kernel;
    cl_uint dims;     /* 1 or 2 */
    size_t global[2]; /* NDRange */
    size_t local[2];  /* local size, when has_local */
    int has_local;    /* 0: the runtime chooses */
};

/* Plan the launch of ex at size n with BLOCK block (l->kernel left for the caller); -1 with a
 * message if the device cannot take the work-group. */
int grader_plan_launch(const struct grader_exercise *ex, const struct clu_env *env, int n,
                       int block, struct grader_launch *l);

/* Set the kernel's arguments as the table row lists them; abc holds the buffers A, B, C. */
cl_int grader_set_args(const struct grader_exercise *ex, cl_kernel kernel, int n, int block,
                       cl_mem *abc);

/* A clu_launch_fn over a struct grader_launch. */
cl_int grader_enqueue(void *ctx, cl_command_queue queue, cl_event *done);

/* `grader --harness ...`: see harness.c for the flags. Returns the exit status. */
int grader_harness_main(int argc, char **argv);

/* ---------------------------------------------------------------- checking outputs (check.c) */

struct grader_diagnosis {
    struct clu_mismatch m; /* wrong count, first wrong element */
    size_t unwritten;      /* elements still NaN (the grader fills C with NaN first) */
    char hint[400];        /* what the pattern suggests, or "" */
};

/* Reference (expected values and per-element tolerances) for an exercise at size n from the
 * seeded inputs. Returns 0, or -1 if out of memory. */
int grader_reference(const struct grader_exercise *ex, int n, uint64_t seed, double **expected,
                     double **tol);

/* Compare got (grader_output_count elements) with the reference and recognise common bug
 * patterns: never written, all zero, transposed, B*A, only the first block right, last row or
 * column wrong, right only where N is a multiple of 16. */
void grader_diagnose(const struct grader_exercise *ex, int n, uint64_t seed, const float *got,
                     const double *expected, const double *tol, struct grader_diagnosis *d);

/* Whether x[0 .. count) differs from the inputs clu_random_fill(seed, stream) generates: a kernel
 * that wrote into A or B (0 when memory runs out: nothing to say). */
int grader_input_changed(const float *x, size_t count, uint64_t seed, uint64_t stream);

/* Freivalds' check of C = A*B for n x n matrices in O(n^2): C x against A (B x) for a random
 * +-1 vector x from seed, each row within the sum of its elements' tolerances. Returns the rows
 * that fail (0: C is the product, but for a chance of 2^-n per wrong element pattern). */
size_t grader_freivalds(int n, const float *a, const float *b, const float *c, uint64_t seed);

/* Elements of the guard zone after C that the kernel changed (0 when intact). */
size_t grader_guard_damage(const float *guard, size_t count);

/* ---------------------------------------------------------------- results and reports (report.c)
 */

struct grader_test {
    char name[96];  /* e.g. "04_local_B: correct at N=100" */
    int score, max; /* points */
    char *output;   /* what the student reads about it (malloc'd) */
};

#define GRADER_MAX_TESTS 32

struct grader_exercise_result {
    const struct grader_exercise *ex;
    struct grader_test tests[GRADER_MAX_TESTS];
    int test_count;
    int not_implemented; /* nothing was written anywhere: the skeleton as given */
    int too_busy;        /* a run was stopped twice because the machine starved it: no verdict */
    double gflops;       /* student kernel at perf_n (0: not timed) */
    double ref_gflops;   /* reference solution at perf_n (0: not timed) */
    char summary[200];   /* one line for the summary table */
};

/* Add a test to a result; output is printf-style. */
void grader_add_test(struct grader_exercise_result *r, const char *name, int score, int max,
                     const char *fmt, ...) __attribute__((format(printf, 5, 6)));

int grader_result_score(const struct grader_exercise_result *r);
int grader_result_max(const struct grader_exercise_result *r);

/* The per-exercise report (tests, scores, outputs). */
void grader_print_exercise(FILE *out, const struct grader_exercise_result *r);

/* The lecture-style summary table and the score line. */
void grader_print_summary(FILE *out, const struct grader_exercise_result *results, int count,
                          const char *device);

/* results.json in Gradescope's format. Returns 0, or -1 with a message. */
int grader_write_json(const char *path, const struct grader_exercise_result *results, int count,
                      double seconds);

/* Make text safe to show, in place: every C0 control but \n and \t, DEL, every C1 control and
 * each invalid UTF-8 sequence (stray, truncated, overlong, surrogate, past U+10FFFF) become '?';
 * valid UTF-8 is kept. */
void grader_sanitize_text(char *text);

/* s sanitized (grader_sanitize_text), with JSON string escapes; malloc'd. */
char *grader_json_escape(const char *s);

void grader_free_result(struct grader_exercise_result *r);

/* ---------------------------------------------------------------- grading (grade.c) */

#define SANDBOX_NONE      0
#define SANDBOX_OWN_PROC  1 /* bubblewrap with a /proc of its own */
#define SANDBOX_HOST_PROC 2 /* inside another sandbox: /proc cannot be mounted, it is bound */

struct grader_config {
    const char *root;       /* repository root: pristine common/, build/libclu.a, solutions/ */
    const char *submission; /* folder holding the student's NN_name/ folders */
    const char *work;       /* scratch folder for builds and outputs */
    const char *cache;      /* what does not depend on the student, kept between runs (or NULL) */
    const char *results;    /* folder for per-exercise logs */
    const char *device;     /* device spec for every run (NULL: the first device) */
    const char *self;       /* path of the grader executable (for --harness children) */
    uint64_t seed;          /* hidden seed of this grading run */
    double timeout;         /* seconds allowed per run of a student's kernel or program */
    int memcheck;           /* run oclgrind when it is installed */
    int perf;               /* time against the reference */
    int sandbox; /* SANDBOX_*: build and run student programs under bubblewrap when it works */
};

/* Helpers the graders of grade.c and cuda.c share. */
void grader_make_dirs(const char *path); /* mkdir -p */
/* A seed derived one way (SHA-256-crypt) from seed, a label and an index: no way back. */
uint64_t grader_derive_seed(uint64_t seed, const char *label, long index);
/* The seed of one run: from the hidden seed, the exercise and the size (every size new data). */
uint64_t grader_seed_for(const struct grader_config *cfg, const struct grader_exercise *ex, int n);
/* Copy a student's source: a plain file (no link, FIFO or device) of at most 1 MB. 0, or -1 with
 * the reason in why. */
int grader_copy_source(const char *from, const char *to, char *why, size_t why_size);
/* The bubblewrap prefix for a student's build or program writing only to dir, pushed onto argv
 * (nothing without a sandbox). Returns 1 if it pushed a prefix. */
int grader_sandbox_push(const struct grader_config *cfg, const char *dir, struct grader_argv *argv);
/* A folder for a student's own processes that their uid can reach wherever the work folder is:
 * /tmp/clmm-host-XXXXXX/w (the grader's top folder, 0711). 0, or -1. Removed with the other. */
int grader_jail_dir_make(char *dir, size_t size);
void grader_jail_dir_remove(const char *dir);
/* The folder of a jailed harness run: the grader's own executable and the kernel copied in
 * (the student's uid may not reach the originals). */
struct grader_jail {
    char dir[PATH_MAX];         /* from grader_jail_dir_make */
    char self[PATH_MAX + 16];   /* the grader, copied */
    char kernel[PATH_MAX + 16]; /* the kernel, copied */
};
int grader_jail_open(const struct grader_config *cfg, const char *kernel, struct grader_jail *j);
/* Copy one of the workbook's own files (trusted: no size limit). 0, or -1. */
int grader_copy_trusted(const char *from, const char *to);
/* Why a harness run failed, for the report (NULL when it succeeded); sets dead when no later
 * run of this kernel can work (it does not build, or it hangs). */
char *grader_harness_failure(const struct grader_run_result *run, const char *log, int n,
                             char *dead, size_t dead_size);
/* dir/name saved by clu_save_result holding exactly want floats, or NULL with why set. */
float *grader_load_result(const char *dir, const char *name, size_t want, char *why,
                          size_t why_size);
/* A wrong output described: first wrong element, how many, the hint. */
void grader_describe_wrong(const struct grader_exercise *ex, int n,
                           const struct grader_diagnosis *d, char *buf, size_t size);

/* The quiz of ex (quiz.c): one test per question, the student's answers.txt against the key in
 * solutions/<ex>/answers.txt. */
void grader_quiz_tests(const struct grader_config *cfg, const struct grader_exercise *ex,
                       struct grader_exercise_result *r);

/* The CUDA twin of ex (cuda.c): built with nvcc and run at the hidden sizes through the CUDA
 * driver; reported as skipped (max 0) where nvcc or a CUDA device is missing. */
void grader_cuda_tests(const struct grader_config *cfg, const struct grader_exercise *ex,
                       struct grader_exercise_result *r);

/* `grader --cuda-harness ...`: runs a CUDA kernel for the grader (cuda.c). */
int grader_cuda_harness_main(int argc, char **argv);

/* An instructor's config file (config.c): lines `key = value`, # comments. Keys: exercises
 * (comma-separated ids: the ones to grade), timeout, perf_ratio, cpu_seconds, processes,
 * open_files, memory_mb, disk_mb, and per exercise ID.sizes (comma-separated), ID.host_n,
 * ID.memcheck_n, ID.perf_n, ID.points.per_size|host|memcheck|perf|technique|cuda_per_size,
 * ID.quiz.QUESTION (points). Changes the table rows, *cfg, the limits and fills chosen (up to
 * max) when `exercises` is set. Returns 0, or -1 with "FILE:LINE: what" in err. */
int grader_load_config(const char *path, struct grader_config *cfg,
                       const struct grader_exercise **chosen, int max, int *chosen_count, char *err,
                       size_t err_size);

/* The student's kernel timed against the reference at perf_n (timing.c): each in a serving
 * harness of its own, every launch on the grader's clock, every round's C checked. Fills the
 * report text, the GFLOP/s of both (when timed), whether the point is earned, and whether the
 * machine was too busy to time it. */
void grader_perf_test(const struct grader_config *cfg, const struct grader_exercise *ex,
                      const char *kernel, const char *reference, double *gflops, double *ref_gflops,
                      char *out, size_t out_size, int *earned, int *too_busy);

/* A trusted kernel (a reference solution) timed alone at n on the grader's clock, in a serving
 * harness that saves into dir: 0 with min, median and max seconds, or -1 with why. */
int grader_time_trusted(const struct grader_config *cfg, const struct grader_exercise *ex,
                        const char *kernel, int n, const char *dir, double stats[3], char *why,
                        size_t why_size);

/* Grade one exercise of the submission. */
void grader_grade_exercise(const struct grader_config *cfg, const struct grader_exercise *ex,
                           struct grader_exercise_result *r);

#endif
