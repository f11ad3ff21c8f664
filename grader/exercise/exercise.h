/* exercise.h - what an exercise is and what "right" means, for grading, the child programs and
 * the benchmark: the exercise table (table.c), the launch geometry of a row (launch.c), the
 * reference and the checks (check.c), and the seeds of every run (seed.c). The traffic count is
 * in traffic.h, the instructor's config (a plan made from the table) in config.h.
 */
#ifndef GRADER_EXERCISE_H
#define GRADER_EXERCISE_H

#include "clu.h"

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

/* ---------------------------------------------------------------- the exercise table (table.c) */

/* One kernel argument, in the order the kernel declares them; the harness sets each one. */
enum grader_arg {
    ARG_END = 0,    /* ends the list */
    ARG_N,          /* const int N: the matrix order (rectangular rows: the columns of C) */
    ARG_M,          /* const int M: the rows of A and C (rectangular rows) */
    ARG_K,          /* const int K: the columns of A, the rows of B (rectangular rows) */
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
    /* from 07 on: dimension 0 along a row of C. A group computes a tile of C of c_tile[0]
     * columns by c_tile[1] rows, each work-item per_item[0] x per_item[1] of its elements (tuning
     * values named in the row): global {roundup(N, c_tile[0]) / per_item[0], roundup(M,
     * c_tile[1]) / per_item[1]}, local {c_tile[0] / per_item[0], c_tile[1] / per_item[1]} */
    SHAPE_C_TILES,
};

/* The sizes of one product: C is m x n, A m x k, B k x n (row-major). Square rows: all N. */
struct grader_size {
    int m, n, k;
};
static inline struct grader_size grader_square(int n) {
    return (struct grader_size){n, n, n};
}

#define GRADER_GROUP_LIMIT                                                                         \
    64 /* work-group size cap of SHAPE_ROWS_GROUPED, as the lecture's N/16                         \
        */
#define GRADER_MAX_SIZES  6
#define GRADER_MAX_RATIOS 5 /* vendor_ratios, with the 0 that ends them */
#define GRADER_MAX_ARGS   8

/* Points of one exercise; each correctness size is a test of its own. */
struct grader_points {
    int per_size;  /* each hidden size computed right, with nothing written out of bounds */
    int host;      /* the student's host program saves a right result */
    int memcheck;  /* oclgrind finds no out-of-bounds access, data race or uninitialised read */
    int perf;      /* median time within the plan's perf_ratio of the reference's (config.h) */
    int technique; /* the step's technique shows in the kernel's measured memory traffic */
    int vendor;    /* each fraction of the vendor's speed reached (vendor_ratios) */
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
    /* the advanced track's bounds (0: none), at the row's oclgrind tuning values */
    double max_local_loads;   /* at most this many local loads per multiply-add */
    const char *local_excess; /* what too many local loads mean */
    double min_load_bytes;    /* at least this many bytes per global load instruction */
    const char *narrow_miss;  /* what narrower loads mean */
    /* at most this many barriers per tile of k, as the kernel really tiles k (not per TSK):
     * counted by oclgrind with the grader's plugin, grader/oclgrind/tiles.cpp */
    double max_barriers_per_tile;
    const char *barrier_miss; /* what more barriers mean */
};

/* The values `make tune` tries for one tuning value of a row (tune/tune.c). */
#define GRADER_MAX_CANDIDATES 8
struct grader_candidates {
    const char *name;                      /* a tuning value of the row */
    int values[GRADER_MAX_CANDIDATES + 1]; /* the values to try, 0 ends */
};

/* One question of a quiz: its id in answers.txt ("q1") and its points. */
struct grader_question {
    const char *id;
    int points;
};
#define GRADER_MAX_QUESTIONS 16

struct grader_exercise {
    const char *id; /* folder name, e.g. "04_local_B" */
    /* (sizes: a square row lists N in sizes, host_n, memcheck_n and perf_n; a rectangular one
     * lists M x N x K in shapes and host_shape, draws its memcheck size around memcheck_n, and is
     * timed at N = perf_n, square) */
    const char *title;                     /* the lecture's name of the case */
    const char *kernel;                    /* __kernel function name */
    int is_vector;                         /* c = a + b over count elements, not C = A * B */
    enum grader_arg args[GRADER_MAX_ARGS]; /* kernel arguments, ARG_END-terminated */
    enum grader_shape shape;               /* NDRange and local size */
    int block;                             /* BLOCK passed as -DBLOCK (tiles, and the hints) */
    /* the advanced track (07 on): the kernel's tuning values and their defaults, each built as
     * -DNAME=VALUE instead of -DBLOCK ({NULL, 0} ends them; none: the row uses block) */
    struct clu_define tuning[CLU_MAX_DEFINES + 1];
    /* smaller values for the runs under oclgrind (it interprets: a tile of 128 x 128 at the
     * smallest valid N would take minutes), which the kernel must take as well ({NULL, 0}: the
     * defaults) */
    struct clu_define check_tuning[CLU_MAX_DEFINES + 1];
    /* what `make tune` searches: candidate values per tuning value ({NULL} ends; a tuning value
     * without a list keeps its default) */
    struct grader_candidates candidates[CLU_MAX_DEFINES + 1];
    const char *c_tile[2];   /* SHAPE_C_TILES: tuning values naming C's tile of a work-group */
    const char *per_item[2]; /* SHAPE_C_TILES: ... and a work-item's share (NULL: 1) */
    /* tuning values that every size (M, N and K) must be a multiple of (NULL ends) */
    const char *multiple_of[4];
    int const_inputs;                            /* the skeleton declares const A and B */
    int rectangular;                             /* M x N x K sizes: shapes, host_shape */
    struct grader_size shapes[GRADER_MAX_SIZES]; /* hidden sizes of a rectangular row */
    struct grader_size host_shape;               /* its host program's run */
    struct grader_size
        memcheck_shape;          /* the drawn size of the oclgrind runs (grade_exercise.c), or 0 */
    int memcheck_small;          /* the memory check's second, smaller draw (0: none) */
    int technique_large;         /* the technique's second, larger draw (0: none) */
    int sizes[GRADER_MAX_SIZES]; /* hidden correctness sizes, 0-terminated */
    int host_n;                  /* size of the host program's run */
    int memcheck_n;              /* size of the oclgrind run (it interprets: keep small) */
    int perf_n; /* size of the timed comparison (doubled while the reference's launch is short) */
    int perf_fixed; /* perf_n set by the instructor's config: timed at exactly that size */
    int max_n;      /* largest valid size (0: no limit) */
    int multiple;   /* sizes must be multiples of this (1: any) */
    struct grader_points points;
    struct grader_technique technique; /* checked when points.technique > 0 */
    /* exercises without an OpenCL kernel (kernel == NULL) may have a quiz and a CUDA twin */
    struct grader_question quiz[GRADER_MAX_QUESTIONS]; /* answers.txt questions, id NULL ends */
    int cuda_per_size; /* points per hidden size of the CUDA twin kernel.cu (0: none) */
    /* the CUDA twin of a row with tuning values: the values nvcc builds it with where they differ
     * from the defaults ({NULL, 0} ends; CUDA caps a kernel's static __shared__ arrays at 48 KB) */
    struct clu_define cuda_tuning[CLU_MAX_DEFINES + 1];
    const char *cuda_beside; /* the row whose reference OpenCL kernel the twin is timed beside
                              * (NULL: this row's own) */
    int cuda_perf_n;         /* the size of the twin's timing, square (0: perf_n) */
    /* the capstone: the fractions of CLBlast's speed on the graded device that each earn
     * points.vendor, ascending (0 ends; none: no vendor is timed) */
    double vendor_ratios[GRADER_MAX_RATIOS];
    /* an OpenCL extension the kernel needs (NULL: none): graded where the device has it, else
     * one test skipped 0 of 0; oclgrind has none of them, so its runs are left out there too,
     * but the memory check of cl_khr_subgroups, run on the grader's own (grade/subgroups.h) */
    const char *needs_extension;
    /* what a C wrong almost everywhere most likely means in this step, where no pattern of the
     * wrong elements says more (NULL: nothing) */
    const char *wrong_everywhere_hint;
    /* the memory check's hint for a race in local memory where the step has a rule of its own
     * (double buffers: which buffer a step fills), NULL: the general one (findings.c) */
    const char *local_race_hint;
};

/* Full performance points at this fraction of the reference's speed or better (timings on shared
 * machines swing up to 2x). A config file may change it (config.h: the plan's perf_ratio). */
#define GRADER_PERF_RATIO 0.5

#define GRADER_MAX_EXERCISES 16 /* rows the table may hold (a plan copies them all) */

/* The table as compiled; a config file changes a plan's copy of it (config.h), never this. */
extern const struct grader_exercise grader_exercises[];
extern const int grader_exercise_count;

/* Which of a row's values a kernel is built and launched with: BLOCK for the rows up to 06, the
 * tuning values (the defaults, or the smaller ones of the runs under oclgrind) from 07. */
struct grader_variant {
    int block;                       /* BLOCK, for a row without tuning values */
    const struct clu_define *tuning; /* {NULL, 0}-ended, or NULL: the row has none */
};

/* The variant of ex: block (0: the row's) for the rows without tuning values; for the others the
 * defaults, or with check the oclgrind runs' values (where the row has them). */
struct grader_variant grader_variant_of(const struct grader_exercise *ex, int block, int check);

/* The tuning value name of v (0 when v has none of that name: then no multiple, a share of 1). */
int grader_variant_value(const struct grader_variant *v, const char *name);

/* The build options of v: "-DBLOCK=16" or "-DTS=32 -DWPT=8". */
void grader_build_options(const struct grader_variant *v, char *buf, size_t size);

/* "N = 100", or for a rectangular row "M x N x K = 17 x 33 x 65". */
void grader_size_text(const struct grader_exercise *ex, struct grader_size s, char *buf,
                      size_t size);

/* The hidden sizes of ex (how many; the i-th), and its host program's size. */
int grader_size_count(const struct grader_exercise *ex);
struct grader_size grader_hidden_size(const struct grader_exercise *ex, int i);
struct grader_size grader_host_size(const struct grader_exercise *ex);
/* The size of the runs under oclgrind: the drawn memcheck_shape, else N = memcheck_n. */
struct grader_size grader_memcheck_at(const struct grader_exercise *ex);

/* `grader --list`: one line per row, in the table's order, tab-separated: the id, the kind
 * (vector, matrix, or no-opencl: a quiz and a CUDA twin), the points, the OpenCL extension it
 * needs (- none) and the title. What the test suite and scripts read instead of a list of their
 * own. */
void grader_list_exercises(FILE *out);

/* "00_vadd to 13_fastest_sgemm": the first and last ids of the table, for messages. */
void grader_exercise_range(char *buf, size_t size);

/* The row of exercise id, or NULL. */
const struct grader_exercise *grader_find_exercise(const char *id);

/* The work-group of a SHAPE_ROWS_GROUPED launch at N: the largest divisor of N up to
 * GRADER_GROUP_LIMIT, max_group and N / 2 (two groups at least). */
size_t grader_rows_group(int n, size_t max_group);

/* The exercises a wrong id may have meant ("04_local": 04_local_B), "A or B" into out; their
 * count (0: none near). */
int grader_suggest_exercise(const char *id, char *out, size_t size);

/* Elements of the output at size s (s.n for vectors, m*n for matrices), and of A and of B. */
/* The name of ex's argument i as the skeleton declares it ("N", "A", "Bwrk"; "" past the list). */
void grader_arg_name(const struct grader_exercise *ex, int i, char *buf, size_t size);

size_t grader_output_count(const struct grader_exercise *ex, struct grader_size s);
size_t grader_a_count(const struct grader_exercise *ex, struct grader_size s);
size_t grader_b_count(const struct grader_exercise *ex, struct grader_size s);

/* Floats of the guard zone after C at size s, HARNESS_GUARD at least: all that a kernel without
 * bounds checks writes past C's end over a grid of whole tiles (a power of two up to GUARD_TILE:
 * the rows' tiles are 16 to 128; C indexed i * N + j or j * M + i). The harness and the grader
 * both size it so. Writes in the guard are seen and named; past it they corrupt the harness's
 * heap, which on POCL turns a wrong answer into a crash or a hang that depends on its layout. */
#define GUARD_TILE 256
size_t grader_guard_count(const struct grader_exercise *ex, struct grader_size s);
/* The same after A (which 0: M x K) or B (1: K x N), filled with CLU_PAST_END_BITS by the
 * harness: a read past an input's end gives a NaN the report names as such, never a neighbour's
 * data that depends on the heap's layout. */
size_t grader_input_guard(const struct grader_exercise *ex, struct grader_size s, int which);

/* Flops of one launch at size s (n for vectors, 2 m n k for matrices). */
double grader_flops(const struct grader_exercise *ex, struct grader_size s);

/* Whether n is a valid size for the exercise: multiple, max_n, and a multiple of the tuning
 * values the row names in multiple_of (the defaults: hidden, host and timed sizes). */
int grader_size_valid(const struct grader_exercise *ex, int n);
/* The same for the defaults (check 0) or the oclgrind runs' values (check 1: memcheck sizes). */
int grader_size_valid_at(const struct grader_exercise *ex, int check, int n);

/* The size of the memory check and the technique count: drawn by seed among the valid sizes
 * from 3/4 to 3/2 of the row's memcheck_n, other than memcheck_n itself (which the table and
 * the documentation show). */
int grader_memcheck_size(const struct grader_exercise *ex, uint64_t seed);
/* The second memory-check size of a square row without tuning values (01 to 05), below that
 * window: drawn by seed among the valid sizes from a quarter to half of memcheck_n (0: none; a
 * rectangular row's one draw already spans both sides, and a row with tuning values runs two
 * builds of its own, builds.c). A kernel that reads out of bounds only outside the
 * window, or only at sizes below it, is run there too; so small that it costs oclgrind little. */
int grader_memcheck_small(const struct grader_exercise *ex, uint64_t seed);
/* The technique's second count of a square row without tuning values (03 to 05), above that
 * window: drawn by seed among the valid sizes over 3/2 memcheck_n up to twice it (04: 40 to 48,
 * beside 18 to 36; 0: none, or a row without a technique point). A kernel that takes the step's
 * technique only at the window's sizes is counted where it does not; the bounds per multiply-add
 * hold better as N grows, so a right kernel keeps them there. */
int grader_technique_large(const struct grader_exercise *ex, uint64_t seed);
/* The same as M x N x K: a rectangular row draws each of the three from a quarter of memcheck_n
 * to three times it, none a multiple of 8, M x N x K at most (3/2 memcheck_n)^3 (any size it
 * takes); a square one is grader_memcheck_size's N x N x N. */
struct grader_size grader_memcheck_shape(const struct grader_exercise *ex, uint64_t seed);

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

/* Plan the launch of ex at size s with the variant's values (l->kernel left for the caller); -1
 * with a message if the device cannot take the work-group. env NULL: the geometry alone. */
int grader_plan_launch(const struct grader_exercise *ex, const struct clu_env *env,
                       struct grader_size s, const struct grader_variant *v,
                       struct grader_launch *l);

/* The kernel's signature as the exercise's skeleton declares it, e.g. "__kernel void mmul(const
 * int N, __global float *A, __global float *B, __global float *C)". */
void grader_signature(const struct grader_exercise *ex, char *buf, size_t size);

/* Set the kernel's arguments as the table row lists them; abc holds the buffers A, B, C. When the
 * kernel's parameters do not take them (a count that differs, or one of the wrong kind), says so
 * on stderr with the signature and returns the error. */
cl_int grader_set_args(const struct grader_exercise *ex, cl_kernel kernel, struct grader_size s,
                       const struct grader_variant *v, cl_mem *abc);

/* A clu_launch_fn over a struct grader_launch. */
cl_int grader_enqueue(void *ctx, cl_command_queue queue, cl_event *done);

/* ---------------------------------------------------------------- checking outputs (check.c) */

/* The NaNs of an output by kind (clu.h's clu_nan_kind): the grader fills C with a NaN that no
 * arithmetic makes (CLU_UNWRITTEN_BITS), so a store that never happened and a NaN the kernel
 * computed are told apart by their bits. */
struct grader_nans {
    size_t unwritten;      /* still the grader's fill: never written */
    size_t from_unwritten; /* the fill passed through arithmetic: C read before it was written */
    size_t computed;       /* any other NaN: computed by the kernel (0/0, inf - inf, ...) */
    size_t past_end;       /* the guard after A or B (CLU_PAST_END_BITS): read past their end */
};
struct grader_nans grader_count_nans(const float *got, size_t count);
/* What the NaNs of an output of count elements say, for a report ("" when there are none). */
void grader_nan_hint(const struct grader_nans *n, size_t count, char *buf, size_t size);

struct grader_diagnosis {
    struct clu_mismatch m;  /* wrong count, first wrong element */
    size_t unwritten;       /* elements still the grader's fill (never written) */
    struct grader_nans nan; /* every NaN by kind (nan.unwritten == unwritten) */
    char hint[600];         /* what the pattern suggests, or "" */
};

/* Whether a vector row's C (count floats, the output at s) is right at every element, from the
 * inputs of seed, with the tolerance grader_reference gives: 1 or 0. Cheap (no array: the inputs
 * drawn as it goes), for the timed rounds' checks at 16M elements; a C it finds wrong is diagnosed
 * with grader_reference. */
int grader_vector_right(const struct grader_exercise *ex, struct grader_size s, uint64_t seed,
                        const float *c);

/* Reference (expected values and per-element tolerances) for an exercise at size n from the
 * seeded inputs. Returns 0, or -1 if out of memory. */
int grader_reference(const struct grader_exercise *ex, struct grader_size s, uint64_t seed,
                     double **expected, double **tol);

/* Compare got (grader_output_count elements) with the reference and recognise common bug
 * patterns (hint.c): never written, NaN computed (told apart by the bits of the grader's fill), all
 * zero, transposed, the tiles of A or B taken from the block row or column of C's other dimension,
 * only the diagonal or the first block right, last row or column wrong, right only where N is a
 * multiple of 16, the first or the last term of each sum missing, B*A, A*B^T. */
void grader_diagnose(const struct grader_exercise *ex, struct grader_size s, uint64_t seed,
                     const float *got, const double *expected, const double *tol,
                     struct grader_diagnosis *d);

/* Whether x[0 .. count) differs from the inputs clu_random_fill(seed, stream) generates: a kernel
 * that wrote into A or B. */
int grader_input_changed(const float *x, size_t count, uint64_t seed, uint64_t stream);

/* Whether C(i,j) of the square product C = A*B of order n is within tolerance of the dot
 * product of A's row i and B's column j in doubles (*want gets it, when want is not NULL): the
 * check of a sampled element, where a full reference would take too long. NaN is wrong. */
int grader_element_right(int n, const float *a, const float *b, const float *c, size_t i, size_t j,
                         double *want);
/* The same with A and B drawn from inputs as clu_random_fill(inputs, 0 and 1) would, element by
 * element: no copy of them in memory. */
int grader_element_right_drawn(int n, uint64_t inputs, const float *c, size_t i, size_t j);

/* Freivalds' check of C = A*B for n x n matrices in O(n^2): C x against A (B x) for a random
 * +-1 vector x from seed, each row within the sum of its elements' tolerances. Returns the rows
 * that fail (0: C is the product, but for a chance of 2^-n per wrong element pattern). */
size_t grader_freivalds(struct grader_size s, const float *a, const float *b, const float *c,
                        uint64_t seed);
/* The same with A and B drawn from inputs as clu_random_fill(inputs, 0 and 1) would, as the
 * check reads them: the same verdict, with no 64 MB copies of them to make at N = 4096. */
size_t grader_freivalds_drawn(struct grader_size s, uint64_t inputs, const float *c, uint64_t seed);

/* Elements of the guard zone after C that the kernel changed (0 when intact). */
size_t grader_guard_damage(const float *guard, size_t count);
/* The same of the guard after A or B (CLU_PAST_END_BITS, grader_input_guard): a write past an
 * input's end. */
size_t grader_input_guard_damage(const float *guard, size_t count);

/* A wrong output described: first wrong element, how many, the hint. */
void grader_describe_wrong(const struct grader_exercise *ex, struct grader_size s,
                           const struct grader_diagnosis *d, char *buf, size_t size);

/* ---------------------------------------------------------------- seeds (seed.c) */

/* A seed derived one way (SHA-256-crypt) from seed, a label and an index: no way back. */
uint64_t grader_derive_seed(uint64_t seed, const char *label, long index);
/* The inputs' seed of launch set k of a timed round whose seed is round_seed (set 0: the round's
 * own), for the serving harness and the grader that checks it alike. */
uint64_t grader_launch_seed(uint64_t round_seed, int k);
/* The seed of one run: from the hidden seed, the exercise's id and the size (every size new data).
 */
uint64_t grader_seed_for(uint64_t hidden_seed, const struct grader_exercise *ex,
                         struct grader_size s);

/* Whether the space-separated list extensions (NULL: none) names the extension `name` whole
 * (CL_DEVICE_EXTENSIONS; a row's needs_extension). */
int grader_has_extension(const char *extensions, const char *name);

#endif
