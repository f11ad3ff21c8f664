/* cuda.c - the CUDA twin of an exercise: the student's kernel.cu built with nvcc and run through
 * the CUDA driver at the hidden sizes, checked like every OpenCL kernel, and timed beside the
 * OpenCL blocked kernel.
 *
 * The grader is built with a C compiler on machines without CUDA, so nothing here needs CUDA's
 * headers or libraries at build time: the harness child opens the driver (libcuda.so.1) with
 * dlopen and declares the few calls it makes. Where nvcc, the driver or an NVIDIA GPU is
 * missing, the CUDA part is one test worth 0 of 0 saying why (skipped, no points lost).
 *
 *   grader --cuda-harness --probe --out DIR
 *       the driver and the first device: DIR/device.txt holds "capability 90", "name ...",
 *       "driver 13000"; exits CUDA_HARNESS_NO_DEVICE (with the reason) where there is none.
 *   grader --cuda-harness --cubin FILE --n N --seed S --out DIR [--block B] [--time]
 *       loads FILE (a cubin, fatbin or PTX from nvcc) and launches its mmul_blocked(N, A, B, C)
 *       on a grid of {N/B, N/B} blocks of {B, B} threads (B = 16), with A and B from the seed
 *       (clu_random_fill streams 0 and 1) and C full of NaN and followed by a guard zone of
 *       HARNESS_GUARD floats of HARNESS_GUARD_VALUE. It saves C with the guard, A and B as
 *       c.bin, a.bin and b.bin for the parent to check; it decides nothing. With --time: one
 *       warm-up launch, then CUDA_TIME_ROUNDS launches timed by CUDA events, launch R on fresh A
 * and B from cuda_round_seed(S, R) and C back to NaN (both outside the events); each launch's C
 *       with the guard is saved as c-R.bin (R from 0), and DIR/timing.txt gets
 *       "cuda MIN MEDIAN MAX RUNS" (seconds) and "device NAME". The parent derives the round
 *       seeds itself and checks every c-R.bin: a kernel cannot skip work in some launches.
 *
 * Every harness child, the probe too, runs jailed like the OpenCL harness: in a folder of its
 * own under the student's uid, with the jail's limits and the sandbox, holding copies of the
 * grader and of the module (the student's code runs in this process: never as root).
 */
#define _GNU_SOURCE
#include "child/child.h"
#include "exercise/protocol.h"
#include "exercise/exercise.h"

#include <dlfcn.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---------------------------------------------------------------- the CUDA driver, by dlopen */

typedef int cu_result;             /* CUresult: 0 is CUDA_SUCCESS */
typedef int cu_device;             /* CUdevice: an ordinal */
typedef unsigned long long cu_ptr; /* CUdeviceptr on a 64-bit host */
typedef void *cu_handle;           /* CUcontext, CUmodule, CUfunction, CUevent, CUstream */

/* CUresult values the harness tells apart (cuda.h of CUDA 13, stable since CUDA 8) */
#define CU_ERROR_INVALID_IMAGE          200
#define CU_ERROR_NO_BINARY_FOR_GPU      209
#define CU_ERROR_JIT_COMPILER_NOT_FOUND 221
#define CU_ERROR_UNSUPPORTED_PTX        222
#define CU_ERROR_JIT_DISABLED           223
#define CU_ERROR_NOT_FOUND              500
#define CU_ERROR_ILLEGAL_ADDRESS        700
#define CU_ERROR_LAUNCH_OUT_OF_RES      701
#define CU_ERROR_INVALID_ADDRESS_SPACE  717
#define CU_ERROR_LAUNCH_FAILED          719
#define CU_ATTR_CAPABILITY_MAJOR        75
#define CU_ATTR_CAPABILITY_MINOR        76

static struct {
    cu_result (*init)(unsigned int flags);
    cu_result (*driver_version)(int *version);
    cu_result (*device_count)(int *count);
    cu_result (*device_get)(cu_device *device, int ordinal);
    cu_result (*device_name)(char *name, int length, cu_device device);
    cu_result (*device_attribute)(int *value, int attribute, cu_device device);
    cu_result (*primary_retain)(cu_handle *context, cu_device device); /* optional */
    cu_result (*set_current)(cu_handle context);                       /* optional */
    cu_result (*ctx_create)(cu_handle *context, unsigned int flags, cu_device device);
    cu_result (*module_load_data)(cu_handle *module, const void *image);
    cu_result (*module_function)(cu_handle *function, cu_handle module, const char *name);
    cu_result (*mem_alloc)(cu_ptr *pointer, size_t bytes);
    cu_result (*copy_to_device)(cu_ptr to, const void *from, size_t bytes);
    cu_result (*copy_to_host)(void *to, cu_ptr from, size_t bytes);
    cu_result (*memset_32)(cu_ptr to, unsigned int value, size_t count);
    cu_result (*launch)(cu_handle function, unsigned int grid_x, unsigned int grid_y,
                        unsigned int grid_z, unsigned int block_x, unsigned int block_y,
                        unsigned int block_z, unsigned int shared_bytes, cu_handle stream,
                        void **params, void **extra);
    cu_result (*synchronize)(void);
    cu_result (*event_create)(cu_handle *event, unsigned int flags);
    cu_result (*event_record)(cu_handle event, cu_handle stream);
    cu_result (*event_synchronize)(cu_handle event);
    cu_result (*event_elapsed)(float *ms, cu_handle start, cu_handle end);
    cu_result (*error_name)(cu_result error, const char **name);
} cu;

/* The driver's symbol `name`, else `older` (NULL: none); NULL if neither is there. */
static void *symbol(void *lib, const char *name, const char *older) {
    void *p = dlsym(lib, name);
    return p || !older ? p : dlsym(lib, older);
}

/* Open libcuda and find every call; -1 with the reason on stderr when the driver is missing. */
static int load_driver(void) {
    void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        fprintf(stderr, "no CUDA driver: %s\n", dlerror());
        return -1;
    }
#define FIND(field, name, older) (cu.field = (__typeof__(cu.field))symbol(lib, name, older))
    FIND(init, "cuInit", NULL);
    FIND(driver_version, "cuDriverGetVersion", NULL);
    FIND(device_count, "cuDeviceGetCount", NULL);
    FIND(device_get, "cuDeviceGet", NULL);
    FIND(device_name, "cuDeviceGetName", NULL);
    FIND(device_attribute, "cuDeviceGetAttribute", NULL);
    FIND(primary_retain, "cuDevicePrimaryCtxRetain", NULL);
    FIND(set_current, "cuCtxSetCurrent", NULL);
    FIND(ctx_create, "cuCtxCreate_v2", "cuCtxCreate");
    FIND(module_load_data, "cuModuleLoadData", NULL);
    FIND(module_function, "cuModuleGetFunction", NULL);
    FIND(mem_alloc, "cuMemAlloc_v2", NULL);
    FIND(copy_to_device, "cuMemcpyHtoD_v2", NULL);
    FIND(copy_to_host, "cuMemcpyDtoH_v2", NULL);
    FIND(memset_32, "cuMemsetD32_v2", NULL);
    FIND(launch, "cuLaunchKernel", NULL);
    FIND(synchronize, "cuCtxSynchronize", NULL);
    FIND(event_create, "cuEventCreate", NULL);
    FIND(event_record, "cuEventRecord", NULL);
    FIND(event_synchronize, "cuEventSynchronize", NULL);
    FIND(event_elapsed, "cuEventElapsedTime_v2", "cuEventElapsedTime");
    FIND(error_name, "cuGetErrorName", NULL);
#undef FIND
    int have_context = (cu.primary_retain && cu.set_current) || cu.ctx_create;
    if (!cu.init || !cu.driver_version || !cu.device_count || !cu.device_get || !cu.device_name ||
        !cu.device_attribute || !have_context || !cu.module_load_data || !cu.module_function ||
        !cu.mem_alloc || !cu.copy_to_device || !cu.copy_to_host || !cu.memset_32 || !cu.launch ||
        !cu.synchronize || !cu.event_create || !cu.event_record || !cu.event_synchronize ||
        !cu.event_elapsed || !cu.error_name) {
        fprintf(stderr, "no usable CUDA driver: libcuda lacks calls the grader needs (a driver "
                        "older than CUDA 8?)\n");
        return -1;
    }
    return 0;
}

static const char *error_name(cu_result err) {
    const char *name = NULL;
    if (cu.error_name(err, &name) != 0 || !name)
        name = "an unknown CUDA error";
    return name;
}

/* The idiom of the workbook: on failure one line with the error's name and the operation, a
 * hint for the errors a kernel causes, and exit with status. */
static void check(cu_result err, const char *operation, int status) {
    if (err == 0)
        return;
    fprintf(stderr, "CUDA error %s (%d) in %s\n", error_name(err), err, operation);
    if (err == CU_ERROR_ILLEGAL_ADDRESS || err == CU_ERROR_INVALID_ADDRESS_SPACE ||
        err == CU_ERROR_LAUNCH_FAILED)
        fprintf(stderr, "hint: a thread read or wrote outside A, B or C (or outside its "
                        "__shared__ tiles): check the indices\n");
    else if (err == CU_ERROR_LAUNCH_OUT_OF_RES)
        fprintf(stderr, "hint: the kernel needs more registers or shared memory than one block "
                        "of threads can have\n");
    exit(status);
}

/* cuInit and the first device, current in this thread; exits CUDA_HARNESS_NO_DEVICE if none. */
static cu_device open_device(void) {
    if (load_driver() != 0)
        exit(CUDA_HARNESS_NO_DEVICE);
    check(cu.init(0), "cuInit (no NVIDIA GPU, or its driver is not working)",
          CUDA_HARNESS_NO_DEVICE);
    int count = 0;
    check(cu.device_count(&count), "cuDeviceGetCount", CUDA_HARNESS_NO_DEVICE);
    if (count < 1) {
        fprintf(stderr, "the CUDA driver sees no device\n");
        exit(CUDA_HARNESS_NO_DEVICE);
    }
    cu_device device;
    cu_handle context;
    check(cu.device_get(&device, 0), "cuDeviceGet", CUDA_HARNESS_NO_DEVICE);
    if (cu.primary_retain && cu.set_current) { /* the context the runtime API would use */
        check(cu.primary_retain(&context, device), "cuDevicePrimaryCtxRetain",
              CUDA_HARNESS_NO_DEVICE);
        check(cu.set_current(context), "cuCtxSetCurrent", CUDA_HARNESS_NO_DEVICE);
    } else {
        check(cu.ctx_create(&context, 0, device), "cuCtxCreate", CUDA_HARNESS_NO_DEVICE);
    }
    return device;
}

/* ---------------------------------------------------------------- the harness child */

static int probe(const char *out) {
    cu_device device = open_device();
    char name[256] = "";
    int major = 0, minor = 0, version = 0;
    check(cu.device_name(name, (int)sizeof name, device), "cuDeviceGetName",
          CUDA_HARNESS_NO_DEVICE);
    check(cu.device_attribute(&major, CU_ATTR_CAPABILITY_MAJOR, device), "cuDeviceGetAttribute",
          CUDA_HARNESS_NO_DEVICE);
    check(cu.device_attribute(&minor, CU_ATTR_CAPABILITY_MINOR, device), "cuDeviceGetAttribute",
          CUDA_HARNESS_NO_DEVICE);
    check(cu.driver_version(&version), "cuDriverGetVersion", CUDA_HARNESS_NO_DEVICE);
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/device.txt", out);
    FILE *f = fopen(path, "w");
    if (!f)
        return CUDA_HARNESS_USAGE;
    fprintf(f, "capability %d%d\nname %s\ndriver %d\n", major, minor, name, version);
    return fclose(f) == 0 ? CUDA_HARNESS_OK : CUDA_HARNESS_USAGE;
}

/* Load the module nvcc made and find the kernel in it; exits with the reason if not. */
static cu_handle load_kernel(const char *path) {
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
        check(err, "cuModuleLoadData", CUDA_HARNESS_NO_DEVICE);
    }
    check(err, "cuModuleLoadData (loading kernel.cu's compiled code)", CUDA_HARNESS_MODULE);
    err = cu.module_function(&function, module, CUDA_KERNEL);
    if (err == CU_ERROR_NOT_FOUND) {
        fprintf(stderr, "kernel.cu has no function " CUDA_KERNEL ": it must be declared extern "
                        "\"C\" __global__ void " CUDA_KERNEL "(const int N, const float *A, "
                        "const float *B, float *C) (without extern \"C\", C++ changes its "
                        "name)\n");
        exit(CUDA_HARNESS_MODULE);
    }
    check(err, "cuModuleGetFunction", CUDA_HARNESS_MODULE);
    free(image);
    return function;
}

static cu_ptr device_copy(const float *host, size_t count) {
    cu_ptr p;
    check(cu.mem_alloc(&p, count * sizeof *host), "cuMemAlloc", CUDA_HARNESS_FAILED);
    check(cu.copy_to_device(p, host, count * sizeof *host), "cuMemcpyHtoD", CUDA_HARNESS_FAILED);
    return p;
}

static int save_device(cu_ptr from, float *host, size_t count, const char *dir, const char *name) {
    check(cu.copy_to_host(host, from, count * sizeof *host), "cuMemcpyDtoH", CUDA_HARNESS_FAILED);
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return clu_save_result(path, host, count);
}

struct cuda_launch {
    cu_handle function;
    unsigned int groups, block; /* grid {groups, groups} of blocks {block, block} */
    void *params[4];            /* &N, &A, &B, &C */
};

static void launch_once(struct cuda_launch *l) {
    check(cu.launch(l->function, l->groups, l->groups, 1, l->block, l->block, 1, 0, NULL, l->params,
                    NULL),
          "cuLaunchKernel", CUDA_HARNESS_FAILED);
}

/* The seed of timed round r's A and B: the child and the parent derive it alike from the seed
 * the parent passed, so the parent never takes a seed from the child. */
/* The matrices of one harness run, on the host and on the device (C with its guard zone). */
struct cuda_buffers {
    float *a, *b, *c;
    cu_ptr d_a, d_b, d_c;
    size_t count; /* elements of A, B and C (without the guard) */
};

/* --time: warm-up, then CUDA_TIME_ROUNDS timed launches, each on fresh A and B of its round's seed
 * and from a C full of NaN (written outside the events), and each launch's C saved as c-R.bin:
 * every timed launch must compute the product, so skipping work in some of them gains nothing.
 * Writes timing.txt. */
static int time_launches(struct cuda_launch *l, struct cuda_buffers *m, uint64_t seed,
                         cu_device device, const char *dir) {
    float nan_value = NAN;
    unsigned int nan_bits;
    memcpy(&nan_bits, &nan_value, sizeof nan_bits);
    launch_once(l);
    check(cu.synchronize(), "cuCtxSynchronize (after the warm-up launch)", CUDA_HARNESS_FAILED);
    cu_handle start, stop;
    check(cu.event_create(&start, 0), "cuEventCreate", CUDA_HARNESS_FAILED);
    check(cu.event_create(&stop, 0), "cuEventCreate", CUDA_HARNESS_FAILED);
    double samples[CUDA_TIME_ROUNDS];
    for (int r = 0; r < CUDA_TIME_ROUNDS; r++) {
        float ms = 0.0f;
        clu_random_fill(m->a, m->count, cuda_round_seed(seed, r), 0);
        clu_random_fill(m->b, m->count, cuda_round_seed(seed, r), 1);
        check(cu.copy_to_device(m->d_a, m->a, m->count * sizeof *m->a), "cuMemcpyHtoD",
              CUDA_HARNESS_FAILED);
        check(cu.copy_to_device(m->d_b, m->b, m->count * sizeof *m->b), "cuMemcpyHtoD",
              CUDA_HARNESS_FAILED);
        check(cu.memset_32(m->d_c, nan_bits, m->count), "cuMemsetD32", CUDA_HARNESS_FAILED);
        check(cu.event_record(start, NULL), "cuEventRecord", CUDA_HARNESS_FAILED);
        launch_once(l);
        check(cu.event_record(stop, NULL), "cuEventRecord", CUDA_HARNESS_FAILED);
        check(cu.event_synchronize(stop), "cuEventSynchronize (a timed launch)",
              CUDA_HARNESS_FAILED);
        check(cu.event_elapsed(&ms, start, stop), "cuEventElapsedTime", CUDA_HARNESS_FAILED);
        samples[r] = 1e-3 * (double)ms;
        char name[32];
        snprintf(name, sizeof name, "c-%d.bin", r);
        if (save_device(m->d_c, m->c, m->count + HARNESS_GUARD, dir, name) != 0)
            return CUDA_HARNESS_USAGE;
    }
    struct clu_stats s = clu_stats_of(samples, CUDA_TIME_ROUNDS);
    char name[256] = "", path[PATH_MAX];
    cu.device_name(name, (int)sizeof name, device);
    snprintf(path, sizeof path, "%s/timing.txt", dir);
    FILE *f = fopen(path, "w");
    if (!f)
        return CUDA_HARNESS_USAGE;
    fprintf(f, "cuda %.9g %.9g %.9g %d\ndevice %s\n", s.min, s.median, s.max, s.count, name);
    return fclose(f) == 0 ? CUDA_HARNESS_OK : CUDA_HARNESS_USAGE;
}

int grader_cuda_harness_main(int argc, char **argv) {
    const char *module_path = NULL, *out = NULL;
    int n = 0, block = CUDA_BLOCK, timed = 0, probe_only = 0;
    uint64_t seed = 0;
    for (int i = 1; i < argc; i++) {
        const char *flag = argv[i], *value = i + 1 < argc ? argv[i + 1] : "";
        int takes_value = 1;
        if (!strcmp(flag, "--time"))
            timed = 1, takes_value = 0;
        else if (!strcmp(flag, "--probe"))
            probe_only = 1, takes_value = 0;
        else if (!strcmp(flag, "--cubin"))
            module_path = value;
        else if (!strcmp(flag, "--out"))
            out = value;
        else if (!strcmp(flag, "--n"))
            n = atoi(value);
        else if (!strcmp(flag, "--block"))
            block = atoi(value);
        else if (!strcmp(flag, "--seed"))
            seed = strtoull(value, NULL, 10);
        else {
            fprintf(stderr, "cuda harness: unknown flag %s\n", flag);
            return CUDA_HARNESS_USAGE;
        }
        i += takes_value;
    }
    if (probe_only && out)
        return probe(out);
    if (!module_path || !out || n < 1 || block < 1 || block > 32 || n % block != 0) {
        fprintf(stderr, "cuda harness: needs --cubin, --n (a multiple of --block), --seed and "
                        "--out, or --probe --out\n");
        return CUDA_HARNESS_USAGE;
    }
    cu_device device = open_device();
    struct cuda_launch l = {.function = load_kernel(module_path),
                            .groups = (unsigned int)(n / block),
                            .block = (unsigned int)block};

    size_t count = (size_t)n * (size_t)n;
    struct cuda_buffers m = {.a = malloc(count * sizeof *m.a),
                             .b = malloc(count * sizeof *m.b),
                             .c = malloc((count + HARNESS_GUARD) * sizeof *m.c),
                             .count = count};
    if (!m.a || !m.b || !m.c) {
        fprintf(stderr, "cuda harness: out of host memory at N = %d\n", n);
        return CUDA_HARNESS_USAGE;
    }
    clu_random_fill(m.a, count, seed, 0);
    clu_random_fill(m.b, count, seed, 1);
    for (size_t i = 0; i < count; i++)
        m.c[i] = NAN;
    for (size_t i = count; i < count + HARNESS_GUARD; i++)
        m.c[i] = HARNESS_GUARD_VALUE;
    m.d_a = device_copy(m.a, count);
    m.d_b = device_copy(m.b, count);
    m.d_c = device_copy(m.c, count + HARNESS_GUARD);
    int n_arg = n;
    l.params[0] = &n_arg;
    l.params[1] = &m.d_a;
    l.params[2] = &m.d_b;
    l.params[3] = &m.d_c;

    int status = CUDA_HARNESS_OK;
    if (timed) {
        status = time_launches(&l, &m, seed, device, out);
    } else {
        launch_once(&l);
        check(cu.synchronize(), "cuCtxSynchronize (waiting for the kernel)", CUDA_HARNESS_FAILED);
        if (save_device(m.d_c, m.c, count + HARNESS_GUARD, out, "c.bin") != 0 ||
            save_device(m.d_a, m.a, count, out, "a.bin") != 0 ||
            save_device(m.d_b, m.b, count, out, "b.bin") != 0)
            status = CUDA_HARNESS_USAGE;
    }
    free(m.a);
    free(m.b);
    free(m.c);
    return status; /* the context and its memory go with the process */
}
