/* exercise.h - what an exercise is and what "right" means, for grading, the child programs and
 * the benchmark: the exercise table (table.c), the launch geometry of a row (launch.c), the
 * reference and the checks (check.c), and the seeds of every run (seed.c). The traffic count is
 * in traffic.h, the instructor's config (a plan made from the table) in config.h.
 */
#ifndef GRADER_EXERCISE_H
#define GRADER_EXERCISE_H

#include "clu.h"

#include <stddef.h>
#include <stdint.h>

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
    int perf;      /* median time within the plan's perf_ratio of the reference's (config.h) */
    int technique; /* the step's technique shows in the kernel's measured memory traffic */
};

/* What an exercise's technique does to memory traffic, checked on the accesses oclgrind counts
 * at memcheck_n (per multiply-add), not by reading the source. The counts do not say which buffer
 * a load read, but each operand read in the inner loop costs about one load per multiply-add
 * where it lives, and the step says where each should live: so a missed bound names the operand
 * in the row's own words. */
struct grader_technique {
    const char *what;        /* the technique, for the report */
    double max_global_loads; /* at most this many global loads per multiply-add (0: no bound) */
    double min_local_loads;  /* at least this many local loads per multiply-add (0: no bound) */
    const char *global_miss; /* which operand too many global loads mean, and what to do */
    const char *local_miss;  /* which operand too few local loads mean, and what to do */
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
    /* the advanced track (07 on): the kernel's tuning values and their defaults, each built as
     * -DNAME=VALUE instead of -DBLOCK ({NULL, 0} ends them; none: the row uses block) */
    struct clu_define tuning[CLU_MAX_DEFINES + 1];
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
 * machines swing up to 2x). A config file may change it (config.h: the plan's perf_ratio). */
#define GRADER_PERF_RATIO 0.5

#define GRADER_MAX_EXERCISES 16 /* rows the table may hold (a plan copies them all) */

/* The table as compiled; a config file changes a plan's copy of it (config.h), never this. */
extern const struct grader_exercise grader_exercises[];
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

/* The row's tuning values as "TS=32 WPT=8" ("BLOCK=16" for a row without any: its block). */
void grader_tuning_text(const struct grader_exercise *ex, char *buf, size_t size);

/* Sum of an exercise's points. */
int grader_max_points(const struct grader_exercise *ex);

/* ---------------------------------------------------------------- the launch of a row (launch.c)
 */

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

/* The kernel's signature as the exercise's skeleton declares it, e.g. "__kernel void mmul(const
 * int N, __global float *A, __global float *B, __global float *C)". */
void grader_signature(const struct grader_exercise *ex, char *buf, size_t size);

/* Set the kernel's arguments as the table row lists them; abc holds the buffers A, B, C. When the
 * kernel's parameters do not take them (a count that differs, or one of the wrong kind), says so
 * on stderr with the signature and returns the error. */
cl_int grader_set_args(const struct grader_exercise *ex, cl_kernel kernel, int n, int block,
                       cl_mem *abc);

/* A clu_launch_fn over a struct grader_launch. */
cl_int grader_enqueue(void *ctx, cl_command_queue queue, cl_event *done);

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
 * patterns (hint.c): never written, all zero, transposed, the tiles of A or B taken from the
 * block row or column of C's other dimension, only the diagonal or the first block right, last row
 * or column wrong, right only where N is a multiple of 16, the first or the last term of each sum
 * missing, B*A, A*B^T. */
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

/* A wrong output described: first wrong element, how many, the hint. */
void grader_describe_wrong(const struct grader_exercise *ex, int n,
                           const struct grader_diagnosis *d, char *buf, size_t size);

/* ---------------------------------------------------------------- seeds (seed.c) */

/* A seed derived one way (SHA-256-crypt) from seed, a label and an index: no way back. */
uint64_t grader_derive_seed(uint64_t seed, const char *label, long index);
/* The seed of one run: from the hidden seed, the exercise's id and the size (every size new data).
 */
uint64_t grader_seed_for(uint64_t hidden_seed, const struct grader_exercise *ex, int n);

#endif
