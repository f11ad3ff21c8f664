/* cuda_harness.c - `grader --cuda-harness`: the child that runs the CUDA twin of an exercise, the
 * student's kernel.cu as nvcc built it, for the grader (grade/cuda.c), through the CUDA driver
 * (cuda_driver.c: the grader is built with a C compiler on machines without CUDA).
 *
 *   grader --cuda-harness --probe --out DIR
 *       the driver and the first device: DIR/device.txt holds "capability 90", "name ...",
 *       "driver 13000"; exits CUDA_HARNESS_NO_DEVICE (with the reason) where there is none.
 *   grader --cuda-harness --cubin FILE --n N --seed S --out DIR [--block B] [--time]
 *       loads FILE (a cubin, fatbin or PTX from nvcc) and launches its mmul_blocked(N, A, B, C)
 *       on a grid of {N/B, N/B} blocks of {B, B} threads (B = 16);
 *   grader --cuda-harness --ex ID --cubin FILE --m M --n N --k K --groups-x GX --groups-y GY
 *                         --threads-x TX --threads-y TY --seed S --out DIR [--time]
 *       the twin of a row with tuning values (the capstone): the row's kernel function with the
 *       row's arguments (sgemm(M, N, K, A, B, C)) on a grid of {GX, GY} blocks of {TX, TY}
 *       threads, which the grader works out from the row's geometry and the values nvcc built
 *       with. Either way A and B come from the seed (clu_random_fill streams 0 and 1) and C is
 *       full of the unwritten NaN (clu.h's CLU_UNWRITTEN_BITS), followed by a guard zone of
 *       HARNESS_GUARD floats of HARNESS_GUARD_VALUE. It saves C with the guard, A and B as
 *       c.bin, a.bin and b.bin for the parent to check; it decides nothing. With --time: one
 *       warm-up launch, then CUDA_TIME_ROUNDS launches timed by CUDA events, launch R on fresh A
 *       and B from cuda_round_seed(S, R) and C back to that NaN (both outside the events); each
 *       launch's C with the guard is saved as c-R.bin (R from 0), and DIR/timing.txt gets
 *       "cuda MIN MEDIAN MAX RUNS" (seconds) and "device NAME". The parent derives the round
 *       seeds itself and checks every c-R.bin: a kernel cannot skip work in some launches.
 * The names are exercise/protocol.h's, and so are the writers of the two text files. A number
 * is decimal digits; a fault in the command line stops it with CUDA_HARNESS_USAGE and one line.
 *
 * Every harness child, the probe too, runs jailed like the OpenCL harness: in a folder of its
 * own under the student's uid, with the jail's limits and the sandbox, holding copies of the
 * grader and of the module (the student's code runs in this process: never as root).
 */
#define _GNU_SOURCE
#include "child/child.h"
#include "child/cuda_driver.h"
#include "exercise/protocol.h"
#include "exercise/exercise.h"

#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WHO "cuda harness" /* how its messages begin */

static int probe(const char *out) {
    cu_device device = cuda_open_device();
    struct grader_cuda_device d = {0};
    int major = 0, minor = 0;
    cuda_check(cu.device_name(d.name, (int)sizeof d.name, device), "cuDeviceGetName",
               CUDA_HARNESS_NO_DEVICE);
    cuda_check(cu.device_attribute(&major, CU_ATTR_CAPABILITY_MAJOR, device),
               "cuDeviceGetAttribute", CUDA_HARNESS_NO_DEVICE);
    cuda_check(cu.device_attribute(&minor, CU_ATTR_CAPABILITY_MINOR, device),
               "cuDeviceGetAttribute", CUDA_HARNESS_NO_DEVICE);
    cuda_check(cu.driver_version(&d.driver), "cuDriverGetVersion", CUDA_HARNESS_NO_DEVICE);
    d.capability = 10 * major + minor; /* sm_90: the minor has one digit */
    return grader_cuda_device_write(out, &d) == 0 ? CUDA_HARNESS_OK : CUDA_HARNESS_USAGE;
}

/* What kernel.cu must declare, for the message of a module without it. */
static void say_signature(const struct grader_exercise *ex) {
    if (!ex) {
        fprintf(stderr, "kernel.cu has no function " CUDA_KERNEL ": it must be declared extern "
                        "\"C\" __global__ void " CUDA_KERNEL "(const int N, const float *A, "
                        "const float *B, float *C)");
    } else {
        fprintf(stderr,
                "kernel.cu has no function %s: it must be declared extern \"C\" "
                "__global__ void %s(",
                ex->kernel, ex->kernel);
        for (int i = 0; i < GRADER_MAX_ARGS && ex->args[i] != ARG_END; i++)
            fprintf(stderr, "%s%s", i ? ", " : "",
                    ex->args[i] == ARG_M   ? "const int M"
                    : ex->args[i] == ARG_N ? "const int N"
                    : ex->args[i] == ARG_K ? "const int K"
                    : ex->args[i] == ARG_A ? "const float *A"
                    : ex->args[i] == ARG_B ? "const float *B"
                    : ex->args[i] == ARG_C ? "float *C"
                                           : "?");
        fprintf(stderr, ")");
    }
    fprintf(stderr, " (without extern \"C\", C++ changes its name)\n");
}

/* Load the module nvcc made and find the kernel in it (the row's function, or mmul_blocked);
 * exits with the reason if not. */
static cu_handle load_kernel(const char *path, const struct grader_exercise *ex) {
    size_t length = 0;
    char *image = clu_read_file(path, &length); /* NUL-terminated, as PTX must be */
    if (!image) {
        fprintf(stderr, "cannot read the module %s\n", path);
        exit(CUDA_HARNESS_USAGE);
    }
    cu_handle module, function;
    cu_result err = cu.module_load_data(&module, image);
    if (err == CU_ERROR_NO_BINARY_FOR_GPU || err == CU_ERROR_UNSUPPORTED_PTX ||
        err == CU_ERROR_JIT_COMPILER_NOT_FOUND || err == CU_ERROR_JIT_DISABLED ||
        err == CU_ERROR_INVALID_IMAGE) {
        fprintf(stderr, "the CUDA driver cannot load what nvcc made for this GPU (a driver "
                        "older than the toolkit?)\n");
        cuda_check(err, "cuModuleLoadData", CUDA_HARNESS_NO_DEVICE);
    }
    cuda_check(err, "cuModuleLoadData (loading kernel.cu's compiled code)", CUDA_HARNESS_MODULE);
    err = cu.module_function(&function, module, ex ? ex->kernel : CUDA_KERNEL);
    if (err == CU_ERROR_NOT_FOUND) {
        say_signature(ex);
        exit(CUDA_HARNESS_MODULE);
    }
    cuda_check(err, "cuModuleGetFunction", CUDA_HARNESS_MODULE);
    free(image);
    return function;
}

static cu_ptr device_copy(const float *host, size_t count) {
    cu_ptr p;
    cuda_check(cu.mem_alloc(&p, count * sizeof *host), "cuMemAlloc", CUDA_HARNESS_FAILED);
    cuda_check(cu.copy_to_device(p, host, count * sizeof *host), "cuMemcpyHtoD",
               CUDA_HARNESS_FAILED);
    return p;
}

static int save_device(cu_ptr from, float *host, size_t count, const char *dir, const char *name) {
    cuda_check(cu.copy_to_host(host, from, count * sizeof *host), "cuMemcpyDtoH",
               CUDA_HARNESS_FAILED);
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return clu_save_result(path, host, count);
}

struct cuda_launch {
    cu_handle function;
    unsigned int groups[2], threads[2]; /* a grid of groups[] blocks of threads[] threads */
    void *params[GRADER_MAX_ARGS];      /* &N, &A, &B, &C; or the row's arguments */
};

static void launch_once(struct cuda_launch *l) {
    cuda_check(cu.launch(l->function, l->groups[0], l->groups[1], 1, l->threads[0], l->threads[1],
                         1, 0, NULL, l->params, NULL),
               "cuLaunchKernel", CUDA_HARNESS_FAILED);
}

/* The matrices of one harness run, on the host and on the device (C with its guard zone). */
struct cuda_buffers {
    float *a, *b, *c;
    cu_ptr d_a, d_b, d_c;
    size_t a_count, b_count, count; /* elements of A, of B and of C (without the guard) */
};

/* --time: warm-up, then CUDA_TIME_ROUNDS timed launches, each on fresh A and B of its round's seed
 * and from a C full of the unwritten NaN (written outside the events), and each launch's C saved as
 * c-R.bin: every timed launch must compute the product, so skipping work in some of them gains
 * nothing. Writes CUDA_TIMING_FILE. */
static int time_launches(struct cuda_launch *l, struct cuda_buffers *m, uint64_t seed,
                         cu_device device, const char *dir) {
    launch_once(l);
    cuda_check(cu.synchronize(), "cuCtxSynchronize (after the warm-up launch)",
               CUDA_HARNESS_FAILED);
    cu_handle start, stop;
    cuda_check(cu.event_create(&start, 0), "cuEventCreate", CUDA_HARNESS_FAILED);
    cuda_check(cu.event_create(&stop, 0), "cuEventCreate", CUDA_HARNESS_FAILED);
    double samples[CUDA_TIME_ROUNDS];
    for (int r = 0; r < CUDA_TIME_ROUNDS; r++) {
        float ms = 0.0f;
        clu_random_fill(m->a, m->a_count, cuda_round_seed(seed, r), 0);
        clu_random_fill(m->b, m->b_count, cuda_round_seed(seed, r), 1);
        cuda_check(cu.copy_to_device(m->d_a, m->a, m->a_count * sizeof *m->a), "cuMemcpyHtoD",
                   CUDA_HARNESS_FAILED);
        cuda_check(cu.copy_to_device(m->d_b, m->b, m->b_count * sizeof *m->b), "cuMemcpyHtoD",
                   CUDA_HARNESS_FAILED);
        cuda_check(cu.memset_32(m->d_c, CLU_UNWRITTEN_BITS, m->count), "cuMemsetD32",
                   CUDA_HARNESS_FAILED);
        cuda_check(cu.event_record(start, NULL), "cuEventRecord", CUDA_HARNESS_FAILED);
        launch_once(l);
        cuda_check(cu.event_record(stop, NULL), "cuEventRecord", CUDA_HARNESS_FAILED);
        cuda_check(cu.event_synchronize(stop), "cuEventSynchronize (a timed launch)",
                   CUDA_HARNESS_FAILED);
        cuda_check(cu.event_elapsed(&ms, start, stop), "cuEventElapsedTime", CUDA_HARNESS_FAILED);
        samples[r] = 1e-3 * (double)ms;
        char name[32];
        snprintf(name, sizeof name, RESULT_ROUND, r);
        if (save_device(m->d_c, m->c, m->count + HARNESS_GUARD, dir, name) != 0)
            return CUDA_HARNESS_USAGE;
    }
    struct clu_stats s = clu_stats_of(samples, CUDA_TIME_ROUNDS);
    struct grader_cuda_timing t = {.seconds = {s.min, s.median, s.max}, .runs = s.count};
    cu.device_name(t.device, (int)sizeof t.device, device);
    return grader_cuda_timing_write(dir, &t) == 0 ? CUDA_HARNESS_OK : CUDA_HARNESS_USAGE;
}

/* What the command line says (see the top of the file). */
struct cuda_flags {
    const char *module, *out, *id; /* --cubin, --out, --ex */
    int m, n, k, block;            /* --m, --n, --k, --block */
    int groups[2], threads[2];     /* --groups-x, --groups-y, --threads-x, --threads-y */
    uint64_t seed;                 /* --seed */
    int timed, probe_only;         /* --time, --probe */
};

/* The command line: 0, or CUDA_HARNESS_USAGE after one line on stderr. */
static int read_flags(int argc, char **argv, struct cuda_flags *f) {
    enum { CUBIN = 1, OUT, EX, M, N, K, BLOCK, SEED, TIME, PROBE, GX, GY, TX, TY };
    const struct option options[] = {{FLAG_NAME(FLAG_CUBIN), required_argument, NULL, CUBIN},
                                     {FLAG_NAME(FLAG_OUT), required_argument, NULL, OUT},
                                     {FLAG_NAME(FLAG_EX), required_argument, NULL, EX},
                                     {FLAG_NAME(FLAG_M), required_argument, NULL, M},
                                     {FLAG_NAME(FLAG_N), required_argument, NULL, N},
                                     {FLAG_NAME(FLAG_K), required_argument, NULL, K},
                                     {FLAG_NAME(FLAG_GROUPS_X), required_argument, NULL, GX},
                                     {FLAG_NAME(FLAG_GROUPS_Y), required_argument, NULL, GY},
                                     {FLAG_NAME(FLAG_THREADS_X), required_argument, NULL, TX},
                                     {FLAG_NAME(FLAG_THREADS_Y), required_argument, NULL, TY},
                                     {FLAG_NAME(FLAG_BLOCK), required_argument, NULL, BLOCK},
                                     {FLAG_NAME(FLAG_SEED), required_argument, NULL, SEED},
                                     {FLAG_NAME(FLAG_TIME), no_argument, NULL, TIME},
                                     {FLAG_NAME(FLAG_PROBE), no_argument, NULL, PROBE},
                                     {NULL, 0, NULL, 0}};
    opterr = 0; /* child_bad_flag says it, on one line */
    int got;
    unsigned long long v;
    while ((got = getopt_long(argc, argv, CHILD_OPTSTRING, options, NULL)) != -1) {
        switch (got) {
        case CUBIN:
            f->module = optarg;
            break;
        case OUT:
            f->out = optarg;
            break;
        case EX:
            f->id = optarg;
            break;
        case M:
        case N:
        case K: {
            const char *flag = got == M ? FLAG_M : got == N ? FLAG_N : FLAG_K;
            if (child_number(WHO, flag, optarg, 1, INT_MAX, &v) != 0)
                return CUDA_HARNESS_USAGE;
            *(got == M ? &f->m : got == N ? &f->n : &f->k) = (int)v;
            break;
        }
        case GX:
        case GY:
        case TX:
        case TY: {
            const char *flag = got == GX   ? FLAG_GROUPS_X
                               : got == GY ? FLAG_GROUPS_Y
                               : got == TX ? FLAG_THREADS_X
                                           : FLAG_THREADS_Y;
            if (child_number(WHO, flag, optarg, 1, INT_MAX, &v) != 0)
                return CUDA_HARNESS_USAGE;
            int *field = got == GX   ? &f->groups[0]
                         : got == GY ? &f->groups[1]
                         : got == TX ? &f->threads[0]
                                     : &f->threads[1];
            *field = (int)v;
            break;
        }
        case BLOCK:
            if (child_number(WHO, FLAG_BLOCK, optarg, 1, 32, &v) != 0)
                return CUDA_HARNESS_USAGE;
            f->block = (int)v;
            break;
        case SEED:
            if (child_number(WHO, FLAG_SEED, optarg, 0, UINT64_MAX, &v) != 0)
                return CUDA_HARNESS_USAGE;
            f->seed = v;
            break;
        case TIME:
            f->timed = 1;
            break;
        case PROBE:
            f->probe_only = 1;
            break;
        default:
            child_bad_flag(WHO, got, argv);
            return CUDA_HARNESS_USAGE;
        }
    }
    if (optind < argc) {
        child_bad_flag(WHO, -1, argv);
        return CUDA_HARNESS_USAGE;
    }
    if (f->probe_only && f->out)
        return CUDA_HARNESS_OK;
    if (f->id) { /* a row's own kernel: its ids and the geometry the grader worked out */
        const struct grader_exercise *ex = grader_find_exercise(f->id);
        if (ex && ex->kernel && f->module && f->out && f->n > 0 && f->groups[0] > 0 &&
            f->groups[1] > 0 && f->threads[0] > 0 && f->threads[1] > 0)
            return CUDA_HARNESS_OK;
        fprintf(stderr, WHO ": " FLAG_EX " needs a row with a kernel, " FLAG_CUBIN ", " FLAG_N
                            ", " FLAG_GROUPS_X ", " FLAG_GROUPS_Y ", " FLAG_THREADS_X
                            ", " FLAG_THREADS_Y ", " FLAG_SEED " and " FLAG_OUT "\n");
        return CUDA_HARNESS_USAGE;
    }
    if (!f->module || !f->out || f->n < 1 || f->n % f->block != 0 || f->m || f->k) {
        fprintf(stderr, WHO ": needs " FLAG_CUBIN ", " FLAG_N " (a multiple of " FLAG_BLOCK
                            "), " FLAG_SEED " and " FLAG_OUT ", or " FLAG_PROBE " " FLAG_OUT "\n");
        return CUDA_HARNESS_USAGE;
    }
    return CUDA_HARNESS_OK;
}

/* The kernel's arguments, in the order the row declares them (mmul_blocked's N, A, B, C when the
 * harness runs a row without a kernel). */
static void set_params(const struct grader_exercise *ex, struct cuda_launch *l, int dims[3],
                       struct cuda_buffers *m) {
    static const enum grader_arg blocked[] = {ARG_N, ARG_A, ARG_B, ARG_C, ARG_END};
    const enum grader_arg *args = ex ? ex->args : blocked;
    for (int i = 0; i < GRADER_MAX_ARGS && args[i] != ARG_END; i++)
        l->params[i] = args[i] == ARG_M   ? (void *)&dims[0]
                       : args[i] == ARG_N ? (void *)&dims[1]
                       : args[i] == ARG_K ? (void *)&dims[2]
                       : args[i] == ARG_A ? (void *)&m->d_a
                       : args[i] == ARG_B ? (void *)&m->d_b
                                          : (void *)&m->d_c;
}

int grader_cuda_harness_main(int argc, char **argv) {
    struct cuda_flags f = {.block = CUDA_BLOCK};
    int usage = read_flags(argc, argv, &f);
    if (usage != CUDA_HARNESS_OK)
        return usage;
    if (f.probe_only)
        return probe(f.out);
    const struct grader_exercise *ex = f.id ? grader_find_exercise(f.id) : NULL;
    int dims[3] = {f.m ? f.m : f.n, f.n, f.k ? f.k : f.n}; /* M, N, K */
    cu_device device = cuda_open_device();
    struct cuda_launch l = {.function = load_kernel(f.module, ex)};
    for (int d = 0; d < 2; d++) {
        l.groups[d] = ex ? (unsigned int)f.groups[d] : (unsigned int)(f.n / f.block);
        l.threads[d] = ex ? (unsigned int)f.threads[d] : (unsigned int)f.block;
    }

    struct cuda_buffers m = {.a_count = (size_t)dims[0] * (size_t)dims[2],
                             .b_count = (size_t)dims[2] * (size_t)dims[1],
                             .count = (size_t)dims[0] * (size_t)dims[1]};
    m.a = malloc(m.a_count * sizeof *m.a);
    m.b = malloc(m.b_count * sizeof *m.b);
    m.c = malloc((m.count + HARNESS_GUARD) * sizeof *m.c);
    if (!m.a || !m.b || !m.c) {
        fprintf(stderr, WHO ": out of host memory at M x N x K = %d x %d x %d\n", dims[0], dims[1],
                dims[2]);
        return CUDA_HARNESS_USAGE;
    }
    clu_random_fill(m.a, m.a_count, f.seed, 0);
    clu_random_fill(m.b, m.b_count, f.seed, 1);
    clu_fill_unwritten(m.c, m.count); /* the grader tells unwritten from computed NaN */
    for (size_t i = m.count; i < m.count + HARNESS_GUARD; i++)
        m.c[i] = HARNESS_GUARD_VALUE;
    m.d_a = device_copy(m.a, m.a_count);
    m.d_b = device_copy(m.b, m.b_count);
    m.d_c = device_copy(m.c, m.count + HARNESS_GUARD);
    set_params(ex, &l, dims, &m);

    int status = CUDA_HARNESS_OK;
    if (f.timed) {
        status = time_launches(&l, &m, f.seed, device, f.out);
    } else {
        launch_once(&l);
        cuda_check(cu.synchronize(), "cuCtxSynchronize (waiting for the kernel)",
                   CUDA_HARNESS_FAILED);
        if (save_device(m.d_c, m.c, m.count + HARNESS_GUARD, f.out, RESULT_C) != 0 ||
            save_device(m.d_a, m.a, m.a_count, f.out, RESULT_A) != 0 ||
            save_device(m.d_b, m.b, m.b_count, f.out, RESULT_B) != 0)
            status = CUDA_HARNESS_USAGE;
    }
    free(m.a);
    free(m.b);
    free(m.c);
    return status; /* the context and its memory go with the process */
}
