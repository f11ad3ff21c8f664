/* clu.h - the workbook's one host library ("CL utilities").
 *
 * Every host program of the workbook (exercises, solutions, grader) uses these helpers and nothing
 * here is copied into an exercise. Sections: errors, devices, programs, timing, matrices,
 * options, the matmul driver and result lines. Matrices are row-major N x N: C(i,j) = C[i*N+j].
 */
#ifndef CLU_H
#define CLU_H

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120 /* the lecture's API level; every driver we target has it */
#endif
#include <CL/cl.h>

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" { /* a C library: C++ callers (nvcc's host code in 06) link its names unmangled */
#endif

/* ---------------------------------------------------------------- errors (clu_error.c) */

/* Name of an OpenCL status code, e.g. "CL_INVALID_WORK_GROUP_SIZE"; "unknown" if not listed. */
const char *clu_error_name(cl_int err);

/* One line to stderr: "OpenCL error CL_X (-n) in OPERATION at FILE:LINE" (no FILE: no "at"), plus a
 * hint for the codes students meet most. Returns err so callers may test it. */
cl_int clu_report_error(cl_int err, const char *operation, const char *file, int line);

/* The host-code error idiom: on failure print the error name, the operation, file and line, and
 * exit with status CLU_EXIT_OPENCL. CLU_CHECK wraps a call that returns cl_int; CLU_CHECK_ERR
 * checks the err out-parameter of a call that returns an object. */
#define CLU_EXIT_OPENCL               3
#define CLU_CHECK(call)               clu_check_((call), #call, __FILE__, __LINE__)
#define CLU_CHECK_ERR(err, operation) clu_check_((err), (operation), __FILE__, __LINE__)
/* an error that main.c's callback returned to the driver: named as main.c's, with no line of
 * common/ (which the student neither wrote nor can fix) */
#define CLU_CHECK_MAIN(err, operation) clu_check_((err), (operation), NULL, 0)
void clu_check_(cl_int err, const char *operation, const char *file, int line);

/* ---------------------------------------------------------------- devices (clu_device.c) */

struct clu_env {
    cl_platform_id platform; /* platform of the chosen device */
    cl_device_id device;     /* the chosen device */
    cl_context context;      /* context holding only that device */
    cl_command_queue queue;  /* in-order queue with profiling enabled */
    char device_name[256];   /* CL_DEVICE_NAME, for result lines */
    char platform_name[256]; /* CL_PLATFORM_NAME */
};

/* Print every device of every platform with its index, as `--list` shows them. Returns the
 * number of devices, or -1 (after a one-line explanation) if there is no platform or device. */
int clu_list_devices(void);

/* Number of devices clu_list_devices would print, without printing them (-1 with the one-line
 * explanation if there is none). */
int clu_device_count(void);

/* Choose a device by spec and create its context and profiling queue. spec is NULL or "" (the
 * first device), a decimal index from clu_list_devices, or a case-insensitive substring of
 * "platform / device / vendor" (e.g. "pocl", "nvidia"). On failure prints one line saying
 * what is wrong and what to check, and returns -1. */
int clu_env_open(struct clu_env *env, const char *spec);
void clu_env_close(struct clu_env *env);

/* Largest work-group size the device accepts (CL_DEVICE_MAX_WORK_GROUP_SIZE). */
size_t clu_device_max_group(const struct clu_env *env);

/* ---------------------------------------------------------------- programs (clu_program.c) */

/* Directory holding the running executable (no trailing slash), so kernel sources are found
 * next to the program whatever the current directory is. */
const char *clu_exe_dir(void);

/* Whole file into a NUL-terminated malloc'd buffer; NULL (with errno set) on failure. */
char *clu_read_file(const char *path, size_t *length);

/* Build the OpenCL C file at path for env's device with the given options. On a build failure
 * the whole build log is printed to stderr and NULL is returned; *err gets the status. */
cl_program clu_build_file(const struct clu_env *env, const char *path, const char *options,
                          cl_int *err);

/* clu_build_file on "<exe dir>/kernel.cl", then clCreateKernel(name). Exits on failure. */
cl_kernel clu_kernel_next_to_exe(const struct clu_env *env, const char *name, const char *options,
                                 cl_program *program);

/* ---------------------------------------------------------------- timing (clu_timing.c) */

/* Seconds a finished kernel ran, from its profiling event (COMMAND_START to COMMAND_END). */
double clu_event_seconds(cl_event event);

struct clu_stats {
    double min, median, max; /* seconds */
    int count;               /* timed repeats behind the figures */
};

/* Summary of n samples (sorted in place). */
struct clu_stats clu_stats_of(double *samples, int n);

/* Enqueues one launch and returns its event in *done (or NULL in *done if nothing was launched). */
typedef cl_int (*clu_launch_fn)(void *ctx, cl_command_queue queue, cl_event *done);

/* Run launch `warmup` times untimed (first-launch code generation happens there), then `repeats`
 * times, each timed by its profiling event. Returns CL_SUCCESS, the first error, or
 * CLU_NOT_LAUNCHED if a launch produced no event. */
#define CLU_NOT_LAUNCHED 1
cl_int clu_time_launches(cl_command_queue queue, clu_launch_fn launch, void *ctx, int warmup,
                         int repeats, struct clu_stats *stats);

/* ---------------------------------------------------------------- threads (clu_parallel.c) */

/* fn(ctx, lo, hi, part) over [0, n) in parts on threads of their own: one part per min_part items
 * at most (0 counts as 1), one per online CPU and CLU_PARALLEL_MAX in all; parts write disjoint
 * outputs (a per-part result goes to a slot of ctx indexed by part). A thread that cannot start (a
 * jail's limit on processes) leaves its part to the caller, so the result never depends on threads.
 * Returns the number of parts, which clu_parallel_parts(n, min_part) gives beforehand. */
#define CLU_PARALLEL_MAX 16
typedef void clu_part_fn(void *ctx, size_t lo, size_t hi, size_t part);
size_t clu_parallel_parts(size_t n, size_t min_part);
size_t clu_parallel_for(size_t n, size_t min_part, clu_part_fn *fn, void *ctx);

/* ---------------------------------------------------------------- matrices (clu_matrix.c) */

/* Fill n floats with values uniform in [-1, 1) drawn from (seed, stream): distinct streams give
 * independent data, so A, B and every hidden test case differ. Never constant. */
void clu_random_fill(float *x, size_t n, uint64_t seed, uint64_t stream);
/* The same values one at a time, for a check that needs no copy of the inputs in memory (a fresh
 * 64 MB array costs its page faults at every check): clu_random_start(&r, seed, stream), then
 * clu_random_next(&r) gives x[0], x[1], ... as clu_random_fill would. */
struct clu_random {
    uint64_t state;
};
void clu_random_start(struct clu_random *r, uint64_t seed, uint64_t stream);
static inline float clu_random_next(struct clu_random *r) {
    uint64_t z = (r->state += 0x9E3779B97F4A7C15ull); /* splitmix64 */
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    /* 24 random bits give every float in [-1, 1) on a 2^-23 grid, exactly representable */
    return (float)(uint32_t)(z >> 40) * (2.0f / 16777216.0f) - 1.0f;
}
/* Moves r on by count values at once (splitmix64 is a counter), as count calls of
 * clu_random_next would: a part of a stream from its own index. */
static inline void clu_random_skip(struct clu_random *r, size_t count) {
    r->state += 0x9E3779B97F4A7C15ull * count;
}

/* The same values made by a kernel on the device, into a buffer of n floats or more: no copy from
 * the host (clu_device_fill.c). open builds the kernel (an error code: the caller fills on the
 * host instead); fill enqueues it, not waited for. */
struct clu_device_fill {
    cl_program program;
    cl_kernel kernel;
};
cl_int clu_device_fill_open(const struct clu_env *env, struct clu_device_fill *f);
cl_int clu_device_fill(const struct clu_device_fill *f, cl_command_queue queue, cl_mem x, size_t n,
                       uint64_t seed, uint64_t stream);
void clu_device_fill_close(struct clu_device_fill *f);

/* What C holds before a launch, so that an element the kernel never writes is known for one: a
 * signalling NaN with a payload of its own. IEEE 754 arithmetic never returns a signalling NaN (it
 * quiets every NaN it passes on, and makes its own 0/0 or inf - inf as a quiet one), so these bits
 * are found only where nothing was stored, or where a kernel copied C's own value without
 * arithmetic. Compare the bits (clu_nan_kind), never isnan: a NaN the kernel computed is another
 * bug than a store that never happened. */
#define CLU_UNWRITTEN_BITS 0x7fa1dea5u
#define CLU_QUIET_BIT      0x00400000u /* a NaN's quiet bit (the mantissa's highest) */
/* What lies after A and B in the grader's harness (their guard zones): a signalling NaN with a
 * payload of its own, so that a C computed from a read past an input's end says so. */
#define CLU_PAST_END_BITS 0x7fa0e0d5u

/* Fill n floats with CLU_UNWRITTEN_BITS, or with CLU_PAST_END_BITS (as bits: no float
 * conversion can quiet them). */
void clu_fill_unwritten(float *x, size_t n);
void clu_fill_past_end(float *x, size_t n);

enum clu_nan_kind {
    CLU_NOT_NAN,        /* a number (or an infinity) */
    CLU_UNWRITTEN,      /* exactly the fill: never written */
    CLU_FROM_UNWRITTEN, /* the fill quieted, either sign: arithmetic on C's unwritten value (C +=
                           without C = 0 first), where the hardware passes a NaN's payload on */
    CLU_COMPUTED_NAN,   /* any other NaN: computed (0/0, inf - inf, an unset variable) */
    CLU_PAST_END,       /* CLU_PAST_END_BITS, copied or quieted, either sign: a value read past
                           the end of A or B */
};
enum clu_nan_kind clu_nan_kind(float x);

/* C = A*B (N x N, row-major) in float by the lecture's triple loop, as a student writes it first
 * (i-j-k, one dot product per element): the sequential baseline `make bench` and a handout's
 * grading time. */
void clu_sequential_matmul(int n, const float *a, const float *b, float *c);

/* Double-precision reference of C = A*B (N x N, row-major). If abs_ref is not NULL it receives
 * |A|*|B|, the scale that bounds the rounding error of each float dot product. */
void clu_ref_matmul(int n, const float *a, const float *b, double *ref, double *abs_ref);

/* The same for rectangular matrices: A is M x K, B is K x N, ref and abs_ref M x N, row-major
 * (C(i,j) = C[i*N + j]). clu_ref_matmul(n, ...) is clu_ref_gemm(n, n, n, ...). */
void clu_ref_gemm(int m, int n, int k, const float *a, const float *b, double *ref,
                  double *abs_ref);

/* Error allowed for one element of a float dot product of length n whose |A|*|B| is abs_scale:
 * the classic bound gamma_n = n*u/(1-n*u) (Higham, Accuracy and Stability, 3.1) with u = 2^-24,
 * doubled to leave room for fused multiply-adds and any summation order, plus a tiny floor. */
double clu_dot_tolerance(int n, double abs_scale);

struct clu_mismatch {
    size_t wrong;    /* elements outside tolerance (NaN counts as wrong) */
    size_t first;    /* index of the first wrong element (valid if wrong > 0) */
    double expected; /* reference value there */
    float got;       /* value found there */
    double max_err;  /* largest |got - expected| over all elements (inf if a NaN was found) */
};

/* Compare count floats against a reference with per-element tolerance tol[i] (or one tolerance
 * for all when tol is NULL, using tol_all). */
struct clu_mismatch clu_compare(const float *got, const double *expected, const double *tol,
                                double tol_all, size_t count);

/* Largest divisor of n that is at most limit (at least 1): a local size that divides the global
 * size, as OpenCL 1.2 requires. */
size_t clu_divisor_at_most(size_t n, size_t limit);

/* ---------------------------------------------------------------- result files (clu_result.c) */

/* A host program's result as the grader reads it: an 8-byte magic "CLURES1\n", the element count
 * as a little-endian uint64, then the floats. The grader checks these numbers itself; it never
 * reads a verdict from what a program prints. clu_save_result returns 0, or -1 with a message. */
int clu_save_result(const char *path, const float *x, size_t count);

/* The floats of a result file in a malloc'd array, *count set; NULL with a message in why (a
 * buffer of why_size bytes) if the file is missing, truncated, or not a result file. */
float *clu_load_result(const char *path, size_t *count, char *why, size_t why_size);
/* The same into x, which the file must fill exactly (count floats): 0, or -1 with why. A buffer
 * used again costs no page faults (64 MB of them took 0.2 s a file on a VM). */
int clu_load_result_into(const char *path, float *x, size_t count, char *why, size_t why_size);

/* ---------------------------------------------------------------- options (clu_options.c) */

/* A tuning value of a kernel: the `#ifndef NAME` of kernel.cl, built with -DNAME=value. */
struct clu_define {
    const char *name;
    int value;
};
#define CLU_MAX_DEFINES     8  /* tuning values of one kernel */
#define CLU_DEFINE_NAME_MAX 32 /* bytes of a tuning value's name, with its NUL */

struct clu_options {
    int n;              /* matrix order N (or vector length for vadd); columns of C */
    int m, k;           /* rows of C and A, and the inner size (--m, --k; default N) */
    uint64_t seed;      /* seed of the random inputs */
    const char *device; /* device spec, see clu_env_open; default from $DEVICE */
    int repeats;        /* timed repeats after the warm-up */
    int warmup;         /* untimed launches before them */
    int block;          /* BLOCK passed to the kernel as -DBLOCK (blocked exercise) */
    int list;           /* --list: print devices and exit */
    const char *output; /* --output FILE: save the result (C or c) there for the grader */
    /* --define NAME=VALUE (or -D NAME=VALUE), in the order given: tuning values that replace
     * the exercise's defaults (clu_mm checks the names) */
    char define_names[CLU_MAX_DEFINES][CLU_DEFINE_NAME_MAX];
    int define_values[CLU_MAX_DEFINES];
    int define_count;
};

/* Parse the flags every host program shares: --n N, --m M, --k K, --seed S, --device SPEC,
 * --repeats R, --warmup W, --block B, --define NAME=VALUE (-D), --output FILE, --list, --help.
 * Defaults: n = default_n, m = k = n, seed 42, device $DEVICE, repeats 5, warmup 1, block 16, no
 * defines. Prints
 * usage and exits on --help or a bad flag. */
void clu_parse_options(struct clu_options *opt, int argc, char **argv, int default_n,
                       const char *summary);

/* ---------------------------------------------------------------- matmul driver (clu_mm.c) */

/* What a matmul host program hands the driver: how to set its kernel's arguments and how to
 * launch it. The student writes these two functions; the driver does everything else. */
struct clu_mm {
    struct clu_env env;     /* device, context, queue */
    struct clu_options opt; /* parsed flags (opt.n is N; opt.m and opt.k M and K) */
    cl_kernel kernel;       /* the exercise's kernel, built from kernel.cl */
    cl_mem a, b, c;         /* device buffers: A (M x K), B (K x N), C (M x N); N x N if square */
    struct clu_define tuning[CLU_MAX_DEFINES + 1]; /* the values built with, {NULL, 0} ends */
};

struct clu_mm_exercise {
    const char *title;       /* the lecture's case name, printed in the result line */
    const char *kernel_name; /* __kernel function in kernel.cl */
    int default_n;           /* N when --n is not given */
    int max_n;               /* largest N the exercise supports (0: no limit) */
    int n_multiple_of_block; /* non-zero: N must be a multiple of --block */
    /* Tuning values with their defaults, {NULL, 0}-ended, built as -DNAME=VALUE and changed by
     * --define; NULL: the kernel is built with -DBLOCK=<--block>, as in 05. */
    const struct clu_define *tuning;
    /* Names among the tuning values that M, N and K must be multiples of (NULL-ended, or NULL). */
    const char *const *multiple_of;
    int rectangular; /* non-zero: A is M x K, B K x N (--m, --k); else M = K = N */
    cl_int (*set_args)(struct clu_mm *mm);
    cl_int (*launch)(struct clu_mm *mm, cl_event *done);
};

/* The whole host program of a matmul exercise: options, device, kernel build, random A and B,
 * warm-up and timed launches, read back, verification against the double reference, result
 * line. Returns the process exit status: 0 verified, 1 wrong result, 2 usage, 3 OpenCL error. */
int clu_mm_main(int argc, char **argv, const struct clu_mm_exercise *ex);

/* The tuning value NAME the kernel was built with (its default, or --define's). A name the
 * exercise does not have is a bug of the host program: it says so and exits with status 2. */
int clu_mm_define(const struct clu_mm *mm, const char *name);

/* Round x up to a multiple of step (step >= 1): a global size that covers x in whole groups. */
size_t clu_round_up(size_t x, size_t step);

/* ---------------------------------------------------------------- result lines (clu_report.c) */

/* The figures every host program prints, in the same words everywhere:
 *   device: <name>  N: <n>
 *   kernel: median 12.345 ms (min 12.1, max 13.0 over 5 runs)  5.43 GFLOP/s
 *   verification: PASS (max error 2.1e-05, all 1048576 elements within tolerance)
 * flops is the work of one launch. */
void clu_print_timing(const struct clu_env *env, int n, const struct clu_stats *stats,
                      double flops);
/* The same for C = A*B with A M x K and B K x N: "M x N x K: 17 x 33 x 65" in the first line. */
void clu_print_timing_gemm(const struct clu_env *env, int m, int n, int k,
                           const struct clu_stats *stats, double flops);
/* Prints the verification line and returns 0 on PASS, 1 on FAIL. width is the row length used
 * to print the first wrong element as C(i,j) (0 for vectors). */
int clu_print_verification(const struct clu_mismatch *m, size_t count, int width);

#ifdef __cplusplus
}
#endif

#endif
