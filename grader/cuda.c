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
 *       warm-up launch, then TIME_ROUNDS launches timed by CUDA events, launch R on fresh A and B
 *       from cuda_round_seed(S, R) and C back to NaN (both outside the events); each launch's C
 *       with the guard is saved as c-R.bin (R from 0), and DIR/timing.txt gets
 *       "cuda MIN MEDIAN MAX RUNS" (seconds) and "device NAME". The parent derives the round
 *       seeds itself and checks every c-R.bin: a kernel cannot skip work in some launches.
 *
 * Every harness child, the probe too, runs jailed like the OpenCL harness: in a folder of its
 * own under the student's uid, with the jail's limits and the sandbox, holding copies of the
 * grader and of the module (the student's code runs in this process: never as root).
 */
#define _GNU_SOURCE
#include "grader.h"

#include <dlfcn.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

/* Exit statuses of `grader --cuda-harness` */
#define CUDA_HARNESS_OK        0
#define CUDA_HARNESS_USAGE     2  /* bad flags, or files that could not be written */
#define CUDA_HARNESS_NO_DEVICE 10 /* no driver or GPU, or one that cannot load nvcc's code */
#define CUDA_HARNESS_MODULE    11 /* the module has no mmul_blocked or does not load */
#define CUDA_HARNESS_FAILED    12 /* a CUDA call failed running the kernel (message on stderr) */

#define CUDA_KERNEL   "mmul_blocked" /* the extern "C" __global__ function of kernel.cu */
#define CUDA_BLOCK    16             /* BLOCK when the table row gives none */
#define TIME_ROUNDS   8              /* --time: timed launches, each one's C saved and checked */
#define LOG_CAP       6000           /* bytes of a child's output shown in a report */
#define BUILD_TIMEOUT 120            /* seconds for nvcc */
#define PROBE_TIMEOUT 60             /* seconds for the probe (the first cuInit can be slow) */

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
static uint64_t cuda_round_seed(uint64_t seed, int r) {
    return (seed ^ (0xc2b2ae3d27d4eb4full * (uint64_t)(r + 1))) & 0x7fffffffffffffffull;
}

/* The matrices of one harness run, on the host and on the device (C with its guard zone). */
struct cuda_buffers {
    float *a, *b, *c;
    cu_ptr d_a, d_b, d_c;
    size_t count; /* elements of A, B and C (without the guard) */
};

/* --time: warm-up, then TIME_ROUNDS timed launches, each on fresh A and B of its round's seed and
 * from a C full of NaN (written outside the events), and each launch's C saved as c-R.bin: every
 * timed launch must compute the product, so skipping work in some of them gains nothing. Writes
 * timing.txt. */
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
    double samples[TIME_ROUNDS];
    for (int r = 0; r < TIME_ROUNDS; r++) {
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
    struct clu_stats s = clu_stats_of(samples, TIME_ROUNDS);
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

/* ---------------------------------------------------------------- the grader's side */

/* Where nvcc is: on $PATH, else where the CUDA toolkit installs it. 0, or -1 if nowhere. */
static int find_nvcc(char *path, size_t size) {
    if (grader_find_program("nvcc", path, size) == 0)
        return 0;
    snprintf(path, size, "/usr/local/cuda/bin/nvcc");
    return access(path, X_OK) == 0 ? 0 : -1;
}

/* One "key value" line of a small file the harness wrote, into value ("" if absent). */
static void read_key(const char *path, const char *key, char *value, size_t size) {
    value[0] = '\0';
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    char line[512];
    size_t k = strlen(key);
    while (fgets(line, sizeof line, f))
        if (strncmp(line, key, k) == 0 && line[k] == ' ') {
            line[strcspn(line, "\n")] = '\0';
            snprintf(value, size, "%s", line + k + 1);
            break;
        }
    fclose(f);
}

struct cuda_run {
    struct grader_run_result run;
    char dir[PATH_MAX]; /* its jail, where it saved its files (removed by cuda_run_done) */
    char *log;          /* its output, capped */
};

/* `grader --cuda-harness ...` jailed like the OpenCL harness (the student's module runs in its
 * process): the student's uid, the jail's limits and the sandbox, in a folder of its own holding
 * copies of the grader and of the module (the uid may not reach the originals). Its log goes to
 * a folder `tag` under the CUDA work folder; h->dir is the jail, removed by cuda_run_done. */
static void run_cuda_harness(const struct grader_config *cfg, const char *work, const char *tag,
                             const char *module, int n, uint64_t seed, int block, int timed,
                             struct cuda_run *h) {
    memset(h, 0, sizeof *h);
    char logs[PATH_MAX], log[PATH_MAX + 16], self[PATH_MAX + 16], cubin[PATH_MAX + 16], why[100];
    snprintf(logs, sizeof logs, "%s/%s", work, tag);
    grader_make_dirs(logs);
    snprintf(log, sizeof log, "%s/log.txt", logs);
    if (grader_jail_dir_make(h->dir, sizeof h->dir) != 0) {
        grader_jail_dir_remove(h->dir); /* its top folder, if made */
        h->dir[0] = '\0';
        h->run.how = RUN_NO_START;
        h->log = strdup("the grader cannot prepare its folder in /tmp");
        return;
    }
    snprintf(self, sizeof self, "%s/grader", h->dir);
    snprintf(cubin, sizeof cubin, "%s/kernel.fatbin", h->dir);
    if (grader_copy_trusted(cfg->self, self) != 0 || chmod(self, 0755) != 0 ||
        (module && grader_copy_source(module, cubin, why, sizeof why) != 0)) {
        h->run.how = RUN_NO_START;
        h->log = strdup("the grader cannot copy itself and the module into its folder in /tmp");
        return;
    }
    struct grader_argv argv = GRADER_ARGV_INIT;
    grader_sandbox_push(cfg, h->dir, &argv);
    grader_argv_push_all(&argv,
                         (const char *const[]){self, "--cuda-harness", "--out", h->dir, NULL});
    if (!module) {
        grader_argv_push(&argv, "--probe");
    } else {
        grader_argv_push_all(&argv, (const char *const[]){"--cubin", cubin, "--n", NULL});
        grader_argv_pushf(&argv, "%d", n);
        grader_argv_push(&argv, "--seed");
        grader_argv_pushf(&argv, "%llu", (unsigned long long)seed);
        grader_argv_push(&argv, "--block");
        grader_argv_pushf(&argv, "%d", block);
        if (timed)
            grader_argv_push(&argv, "--time");
    }
    double limit = !module ? PROBE_TIMEOUT : timed ? 3 * cfg->timeout : cfg->timeout;
    grader_run_jailed(argv.argv, h->dir, log, limit, &h->run);
    grader_argv_clear(&argv);
    h->log = grader_read_capped(log, LOG_CAP);
}

static void cuda_run_done(struct cuda_run *h) {
    free(h->log);
    h->log = NULL;
    if (h->dir[0])
        grader_jail_dir_remove(h->dir);
    h->dir[0] = '\0';
}

static int exited_with(const struct grader_run_result *run, int code) {
    return run->how == RUN_EXITED && run->code == code;
}

/* nvcc kernel.cu -> kernel.fatbin in dir, sandboxed like a student's build: for the GPU's own
 * architecture (machine code and PTX), or nvcc's default where nvcc does not know that GPU.
 * Returns 0, or -1 with the compiler's output in *log (malloc'd). */
static int build_module(const struct grader_config *cfg, const char *nvcc, const char *dir,
                        int capability, int block, char **log) {
    char source[PATH_MAX + 32], module[PATH_MAX + 32], out[PATH_MAX + 32], define[32],
        arch[32] = "", jail[PATH_MAX], why[100];
    /* built in a folder the student's uid can reach (the work folder may be under /root) */
    snprintf(out, sizeof out, "%s/build.txt", dir);
    snprintf(source, sizeof source, "%s/kernel.cu", dir);
    if (grader_jail_dir_make(jail, sizeof jail) != 0) {
        *log = strdup("the grader cannot prepare its build folder in /tmp");
        return -1;
    }
    snprintf(module, sizeof module, "%s/kernel.cu", jail);
    if (grader_copy_source(source, module, why, sizeof why) != 0) {
        *log = strdup(why);
        grader_jail_dir_remove(jail);
        return -1;
    }
    snprintf(source, sizeof source, "%s/kernel.cu", jail);
    snprintf(module, sizeof module, "%s/kernel.fatbin", jail);
    snprintf(define, sizeof define, "-DBLOCK=%d", block);
    if (capability > 0)
        snprintf(arch, sizeof arch, "-arch=sm_%d", capability);
    struct grader_run_result run;
    for (int attempt = 0; attempt < 2; attempt++) {
        struct grader_argv argv = GRADER_ARGV_INIT;
        grader_sandbox_push(cfg, jail, &argv);
        grader_argv_push_all(
            &argv, (const char *const[]){nvcc, "-fatbin", define, "-o", module, source, NULL});
        if (arch[0])
            grader_argv_push(&argv, arch);
        remove(module);
        grader_run_jailed(argv.argv, jail, out, BUILD_TIMEOUT, &run);
        grader_argv_clear(&argv);
        *log = grader_read_capped(out, LOG_CAP);
        char kept[PATH_MAX + 32];
        snprintf(kept, sizeof kept, "%s/kernel.fatbin", dir);
        if (exited_with(&run, 0) && grader_copy_source(module, kept, why, sizeof why) == 0) {
            grader_jail_dir_remove(jail);
            return 0;
        }
        if (!arch[0] || !strstr(*log, "nsupported gpu architecture"))
            break;
        free(*log); /* a GPU newer than this nvcc: its default code, compiled by the driver */
        arch[0] = '\0';
    }
    if (run.how != RUN_EXITED) {
        char what[300], *more = malloc(strlen(*log) + 400);
        grader_describe_run(&run, what, sizeof what);
        if (more) {
            sprintf(more, "nvcc %s\n%s", what, *log);
            free(*log);
            *log = more;
        }
    }
    grader_jail_dir_remove(jail);
    return -1;
}

/* Check what a harness run at size n saved. Returns 1 if right; *untouched when nothing was
 * written. why gets the report's text. */
static int check_output(const struct grader_exercise *ex, const char *dir, int n, uint64_t seed,
                        int *untouched, char *why, size_t why_size) {
    size_t count = (size_t)n * (size_t)n;
    char reason[200] = "";
    float *c = grader_load_result(dir, "c.bin", count + HARNESS_GUARD, reason, sizeof reason);
    float *a = c ? grader_load_result(dir, "a.bin", count, reason, sizeof reason) : NULL;
    float *b = a ? grader_load_result(dir, "b.bin", count, reason, sizeof reason) : NULL;
    double *expected = NULL, *tol = NULL;
    int ok = 0;
    *untouched = 0;
    if (!b) {
        snprintf(why, why_size, "the harness saved no usable output (%s)", reason);
    } else if (grader_reference(ex, n, seed, &expected, &tol) != 0) {
        snprintf(why, why_size, "grader out of memory at N = %d", n);
    } else {
        struct grader_diagnosis d;
        grader_diagnose(ex, n, seed, c, expected, tol, &d);
        size_t damaged = grader_guard_damage(c + count, HARNESS_GUARD);
        int changed =
            grader_input_changed(a, count, seed, 0) || grader_input_changed(b, count, seed, 1);
        *untouched = d.unwritten == count;
        ok = d.m.wrong == 0 && damaged == 0 && !changed;
        size_t used = 0;
        why[0] = '\0';
        if (ok)
            snprintf(why, why_size, "all %zu elements within tolerance (max error %.2g)", count,
                     d.m.max_err);
        if (d.m.wrong)
            grader_describe_wrong(ex, n, &d, why, why_size);
        used = strlen(why);
        if (damaged && used < why_size)
            used += (size_t)snprintf(why + used, why_size - used,
                                     "%swrote past the end of C (the grader keeps a guard zone "
                                     "there): an index goes out of bounds",
                                     used ? "\n" : "");
        if (changed && used < why_size)
            snprintf(why + used, why_size - used,
                     "%schanged an input (A or B): the kernel may only read them",
                     used ? "\n" : "");
    }
    free(expected);
    free(tol);
    free(a);
    free(b);
    free(c);
    return ok;
}

/* Why a harness run failed, for the report (NULL if it succeeded); dead is set when no later
 * run of this module can work. */
static char *run_failure(const struct cuda_run *h, int n, char *dead, size_t dead_size) {
    if (exited_with(&h->run, CUDA_HARNESS_OK))
        return NULL;
    char what[300];
    grader_describe_run(&h->run, what, sizeof what);
    size_t size = strlen(h->log) + 600;
    char *text = malloc(size);
    if (!text)
        return NULL;
    if (exited_with(&h->run, CUDA_HARNESS_MODULE)) {
        snprintf(text, size, "%s", h->log);
        snprintf(dead, dead_size, "the kernel does not load (see the first test)");
    } else if (h->run.how == RUN_TIMEOUT) {
        snprintf(text, size, "at N = %d the kernel %s\n%s", n, what, h->log);
        snprintf(dead, dead_size, "the kernel timed out at N = %d", n);
    } else if (exited_with(&h->run, CUDA_HARNESS_FAILED)) {
        snprintf(text, size, "at N = %d a CUDA call failed running the kernel:\n%s", n, h->log);
    } else {
        snprintf(text, size, "at N = %d the CUDA harness %s\n%s", n, what, h->log);
    }
    return text;
}

/* Drop the tests added since `first` and say, in one test worth nothing, why the CUDA twin was
 * not graded here. */
static void skip_all(struct grader_exercise_result *r, int first, const char *why) {
    while (r->test_count > first)
        free(r->tests[--r->test_count].output);
    grader_add_test(r, "CUDA twin", 0, 0, "skipped: %s (no points lost)", why);
}

/* The OpenCL blocked kernel of 05 on the grader's OpenCL device, when that device is the GPU
 * the CUDA twin ran on, timed at n on the grader's clock (a launch command's round trip, so a
 * little above its GPU events): 0 with its min, median and max seconds in ref, or -1 with why. */
static int opencl_reference(const struct grader_config *cfg, const char *work, int n,
                            const char *cuda_device, double ref[3], char *why, size_t why_size) {
    const struct grader_exercise *blocked = grader_find_exercise("05_blocked_16x16");
    char kernel[PATH_MAX + 64], dir[PATH_MAX + 32];
    snprintf(kernel, sizeof kernel, "%s/solutions/05_blocked_16x16/kernel.cl", cfg->root);
    if (!blocked || access(kernel, R_OK) != 0 || !grader_size_valid(blocked, n)) {
        snprintf(why, why_size, "the OpenCL blocked kernel of 05 is not there to compare");
        return -1;
    }
    struct clu_env env;
    if (clu_env_open(&env, cfg->device) != 0) {
        snprintf(why, why_size, "no OpenCL device to compare on");
        return -1;
    }
    char device[256];
    snprintf(device, sizeof device, "%s", env.device_name);
    clu_env_close(&env);
    if (strcasecmp(device, cuda_device) != 0) {
        snprintf(why, why_size,
                 "the grader's OpenCL device is %s, not this GPU: DEVICE=nvidia compares the "
                 "two APIs on one device",
                 device);
        return -1;
    }
    snprintf(dir, sizeof dir, "%s/opencl", work);
    grader_make_dirs(dir);
    return grader_time_trusted(cfg, blocked, kernel, n, dir, ref, why, why_size);
}

static size_t count_nan(const float *x, size_t count) {
    size_t nan = 0;
    for (size_t i = 0; i < count; i++)
        nan += isnan(x[i]) != 0;
    return nan;
}

/* Why the C of timed round `round` at n is wrong ("" if right): every element against the
 * reference when full, else Freivalds' O(N^2) check against A(Bx), on the inputs the parent
 * derives itself from the round's seed. */
static void timed_round_wrong(const struct grader_config *cfg, const struct grader_exercise *ex,
                              const char *dir, int n, uint64_t seed, int round, int full, char *why,
                              size_t why_size) {
    size_t count = (size_t)n * (size_t)n;
    uint64_t inputs = cuda_round_seed(seed, round);
    char reason[200] = "", name[32];
    snprintf(name, sizeof name, "c-%d.bin", round);
    float *c = grader_load_result(dir, name, count + HARNESS_GUARD, reason, sizeof reason);
    float *a = NULL, *b = NULL;
    double *expected = NULL, *tol = NULL;
    size_t unwritten = 0;
    why[0] = '\0';
    if (!c) {
        snprintf(why, why_size, "no result saved (%s)", reason);
    } else if (grader_guard_damage(c + count, HARNESS_GUARD)) {
        snprintf(why, why_size, "it wrote past the end of C");
    } else if (full) {
        struct grader_diagnosis d;
        if (grader_reference(ex, n, inputs, &expected, &tol) != 0) {
            snprintf(why, why_size, "grader out of memory");
        } else {
            grader_diagnose(ex, n, inputs, c, expected, tol, &d);
            if (d.m.wrong)
                grader_describe_wrong(ex, n, &d, why, why_size);
        }
    } else if ((unwritten = count_nan(c, count)) > 0) {
        snprintf(why, why_size,
                 "%zu of %zu elements of C were never written (still NaN from before the launch)",
                 unwritten, count);
    } else if (!(a = malloc(count * sizeof *a)) || !(b = malloc(count * sizeof *b))) {
        snprintf(why, why_size, "grader out of memory");
    } else {
        clu_random_fill(a, count, inputs, 0);
        clu_random_fill(b, count, inputs, 1);
        /* x from the hidden seed, not from the round seed the child was given */
        uint64_t x_seed = cfg->seed ^ (0x9e3779b97f4a7c15ull * (uint64_t)(round + 1));
        size_t rows = grader_freivalds(n, a, b, c, x_seed);
        if (rows)
            snprintf(why, why_size,
                     "C is not A*B (%zu of %d rows fail a check against A(Bx) for a random x)",
                     rows, n);
    }
    free(a);
    free(b);
    free(c);
    free(expected);
    free(tol);
}

/* Every timed launch computed the product on its round's inputs: "" or why not, naming the
 * first wrong launch. The one checked element by element is chosen from the hidden seed. */
static void timed_rounds_wrong(const struct grader_config *cfg, const struct grader_exercise *ex,
                               const char *dir, int n, uint64_t seed, int rounds, char *why,
                               size_t why_size) {
    why[0] = '\0';
    if (rounds != TIME_ROUNDS) {
        snprintf(why, why_size, "the timing run reported %d launches, not %d", rounds, TIME_ROUNDS);
        return;
    }
    uint64_t mixed = cfg->seed ^ ((uint64_t)n << 32);
    int full = (int)(grader_fnv1a(&mixed, sizeof mixed) % (uint64_t)rounds);
    for (int round = 0; round < rounds; round++) {
        char wrong[800];
        timed_round_wrong(cfg, ex, dir, n, seed, round, round == full, wrong, sizeof wrong);
        if (wrong[0]) {
            snprintf(why, why_size, "timed launch %d of %d: %s", round + 1, rounds, wrong);
            return;
        }
    }
}

/* The timing at perf_n, a test worth nothing: the CUDA figure, and the OpenCL one beside it.
 * Every timed launch's C is checked; a wrong one leaves the exercise with no CUDA figure. */
static void test_speed(const struct grader_config *cfg, const struct grader_exercise *ex,
                       const char *work, const char *module, int block,
                       struct grader_exercise_result *r) {
    char name[96];
    int n = ex->perf_n > 0 ? ex->perf_n : 1024;
    snprintf(name, sizeof name, "CUDA twin: performance at N=%d (not scored)", n);
    uint64_t seed = grader_seed_for(cfg, ex, n);
    struct cuda_run h;
    run_cuda_harness(cfg, work, "perf", module, n, seed, block, 1, &h);
    char dead[200] = "", wrong[1000] = "", timing[PATH_MAX + 16], figures[400] = "";
    char *failure = run_failure(&h, n, dead, sizeof dead);
    double s[3] = {0};
    int runs = 0;
    snprintf(timing, sizeof timing, "%s/timing.txt", h.dir);
    FILE *f = failure ? NULL : fopen(timing, "r");
    int parsed = f && fscanf(f, "cuda %lf %lf %lf %d", &s[0], &s[1], &s[2], &runs) == 4;
    if (f)
        fclose(f);
    char device[256];
    read_key(timing, "device", device, sizeof device);
    if (parsed)
        timed_rounds_wrong(cfg, ex, h.dir, n, seed, runs, wrong, sizeof wrong);
    if (parsed && wrong[0]) {
        grader_add_test(r, name, 0, 0,
                        "not timed: the timed launches at N = %d did not all compute C: %s", n,
                        wrong);
    } else if (!parsed || s[1] <= 0) {
        grader_add_test(r, name, 0, 0, "%s", failure ? failure : "the timing run saved no figures");
    } else {
        double flops = grader_flops(ex, n);
        r->gflops = flops / s[1] * 1e-9;
        char beside[400] = "";
        double ref[3] = {0};
        if (opencl_reference(cfg, work, n, device, ref, beside, sizeof beside) == 0) {
            r->ref_gflops = flops / ref[1] * 1e-9;
            snprintf(figures, sizeof figures,
                     "\nOpenCL, 05's kernel  median %.3f ms (min %.3f, max %.3f)  %.2f GFLOP/s\n"
                     "ratio CUDA / OpenCL %.2f of medians",
                     ref[1] * 1e3, ref[0] * 1e3, ref[2] * 1e3, r->ref_gflops,
                     r->gflops / r->ref_gflops);
        } else {
            snprintf(figures, sizeof figures, "\nOpenCL beside it: not timed: %.200s", beside);
        }
        grader_add_test(r, name, 0, 0,
                        "N = %d on %s, %d timed launches after a warm-up (CUDA events), each on "
                        "fresh inputs and each one's C checked:\n"
                        "CUDA, your kernel.cu  median %.3f ms (min %.3f, max %.3f)  %.2f GFLOP/s%s",
                        n, device, runs, s[1] * 1e3, s[0] * 1e3, s[2] * 1e3, r->gflops, figures);
    }
    free(failure);
    cuda_run_done(&h);
}

void grader_cuda_tests(const struct grader_config *cfg, const struct grader_exercise *ex,
                       struct grader_exercise_result *r) {
    int first = r->test_count, pts = ex->cuda_per_size;
    int block = ex->block > 0 ? ex->block : CUDA_BLOCK;
    char nvcc[PATH_MAX], work[PATH_MAX], source[PATH_MAX + 64], copy[PATH_MAX + 32];
    char module[PATH_MAX + 32], why[300], bad[100], dead[300] = "";
    if (find_nvcc(nvcc, sizeof nvcc) != 0) {
        skip_all(r, first,
                 "nvcc not found on $PATH or in /usr/local/cuda/bin: kernel.cu is "
                 "graded where the CUDA toolkit and an NVIDIA GPU are");
        return;
    }
    /* a fresh folder: nothing of an earlier run can be picked up */
    snprintf(work, sizeof work, "%s/%s/cuda", cfg->work, ex->id);
    grader_remove_tree(work);
    grader_make_dirs(work);

    /* the GPU first: without one nothing is graded, whatever kernel.cu holds */
    struct cuda_run probe;
    run_cuda_harness(cfg, work, "probe", NULL, 0, 0, block, 0, &probe);
    if (!exited_with(&probe.run, CUDA_HARNESS_OK)) {
        char what[300] = "";
        if (!exited_with(&probe.run, CUDA_HARNESS_NO_DEVICE))
            grader_describe_run(&probe.run, what, sizeof what);
        snprintf(why, sizeof why, "no NVIDIA GPU to run it on (%.100s%s%.150s", what,
                 what[0] ? ": " : "", probe.log);
        why[strcspn(why, "\n")] = '\0';
        strcat(why, ")");
        skip_all(r, first, why);
        cuda_run_done(&probe);
        return;
    }
    char path[PATH_MAX + 16], capability[16];
    snprintf(path, sizeof path, "%s/device.txt", probe.dir);
    read_key(path, "capability", capability, sizeof capability);
    cuda_run_done(&probe);

    /* every run uses the grader's own checked copy of kernel.cu */
    snprintf(source, sizeof source, "%s/%s/kernel.cu", cfg->submission, ex->id);
    snprintf(copy, sizeof copy, "%s/kernel.cu", work);
    snprintf(module, sizeof module, "%s/kernel.fatbin", work);
    char *build_log = NULL;
    int build_failed = 0;
    if (access(source, F_OK) != 0)
        snprintf(dead, sizeof dead, "%s/kernel.cu is missing from the submission", ex->id);
    else if (grader_copy_source(source, copy, bad, sizeof bad) != 0)
        snprintf(dead, sizeof dead, "%s/kernel.cu: %s", ex->id, bad);
    else if ((build_failed =
                  build_module(cfg, nvcc, work, atoi(capability), block, &build_log) != 0))
        snprintf(dead, sizeof dead, "kernel.cu does not compile (see the first test)");

    int sizes = 0, passed = 0, untouched_all = 1;
    for (; sizes < GRADER_MAX_SIZES && ex->sizes[sizes]; sizes++) {
        int n = ex->sizes[sizes], untouched = 0;
        char name[64], tag[32], text[1200];
        snprintf(name, sizeof name, "CUDA twin: correct at N=%d", n);
        if (dead[0]) {
            untouched_all = 0;
            if (build_failed && sizes == 0)
                grader_add_test(r, name, 0, pts, "kernel.cu does not compile; nvcc says:\n%s",
                                build_log);
            else
                grader_add_test(r, name, 0, pts, "not run: %s", dead);
            continue;
        }
        snprintf(tag, sizeof tag, "n%d", n);
        uint64_t seed = grader_seed_for(cfg, ex, n);
        struct cuda_run h;
        run_cuda_harness(cfg, work, tag, module, n, seed, block, 0, &h);
        if (exited_with(&h.run, CUDA_HARNESS_NO_DEVICE)) {
            snprintf(why, sizeof why, "the GPU cannot run what nvcc made: %.200s", h.log);
            skip_all(r, first, why);
            cuda_run_done(&h);
            free(build_log);
            return;
        }
        char *failure = run_failure(&h, n, dead, sizeof dead);
        if (failure) {
            grader_add_test(r, name, 0, pts, "%s", failure);
            untouched_all = 0;
        } else {
            int ok = check_output(ex, h.dir, n, seed, &untouched, text, sizeof text);
            passed += ok;
            untouched_all &= untouched;
            grader_add_test(r, name, ok ? pts : 0, pts, "%s%s", ok ? "right: " : "", text);
        }
        free(failure);
        cuda_run_done(&h);
    }
    free(build_log);
    /* the skeleton as given: it ran and wrote nothing anywhere */
    r->not_implemented = sizes > 0 && untouched_all && passed == 0;

    if (!cfg->perf)
        grader_add_test(r, "CUDA twin: performance (not scored)", 0, 0,
                        "not run: timing was switched off");
    else if (passed < sizes || sizes == 0)
        grader_add_test(r, "CUDA twin: performance (not scored)", 0, 0,
                        "not timed: the kernel must first be right at every size");
    else
        test_speed(cfg, ex, work, module, block, r);
}
