/* main.cu - 06_cuda_memory_model host program: the CUDA twin of 05_blocked_16x16's. It runs
 * kernel.cu's mmul_blocked (BLOCK x BLOCK tiles in shared memory) through the CUDA runtime and
 * prints the same lines as the OpenCL programs, so that the two can be set side by side.
 *
 * From common/ (clu.h), as every program of the workbook: the flags (clu_parse_options), the
 * random inputs (clu_random_fill, stream 0 for A and 1 for B), the double reference and its
 * tolerance (clu_ref_matmul, clu_dot_tolerance, clu_compare), the statistics (clu_stats_of) and
 * the result file (clu_save_result). CUDA's own, with the OpenCL call each one replaces:
 *     clu_env_open (platform, device, context, queue)  ->  cudaSetDevice
 *     clCreateBuffer(COPY_HOST_PTR)                     ->  cudaMalloc + cudaMemcpy to the device
 *     clBuildProgram + clCreateKernel                   ->  nothing: nvcc compiled kernel.cu with
 *                                                           this file (#include "kernel.cu")
 *     clSetKernelArg + clEnqueueNDRangeKernel           ->  mmul_blocked<<<grid, block>>>(...)
 *     profiling events (clu_event_seconds)              ->  cudaEventRecord around the launch,
 *                                                           cudaEventElapsedTime
 *     clEnqueueReadBuffer                               ->  cudaMemcpy to the host
 * Exit status: 0 verified, 1 wrong result, 2 usage, 3 a CUDA call failed (as CLU_EXIT_OPENCL).
 * Build and run: make && ./06_cuda_memory_model --n 1024      (nvcc and an NVIDIA GPU)
 */
#include "clu.h"

#include "kernel.cu"

#include <cuda_runtime.h>

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EXIT_CUDA 3 /* a CUDA call failed: the status the OpenCL programs exit with on theirs */

/* ---------------------------------------------------------------- errors */

/* The workbook's error idiom in CUDA: on failure print the error's name, the operation, file
 * and line, and exit with EXIT_CUDA. A kernel's own errors (an illegal address) show at the
 * next call that waits for it. */
#define CUDA_CHECK(call) cuda_check_((call), #call, __FILE__, __LINE__)
static void cuda_check_(cudaError_t err, const char *operation, const char *file, int line) {
    if (err == cudaSuccess)
        return;
    fprintf(stderr, "CUDA error %s (%d) in %s at %s:%d: %s\n", cudaGetErrorName(err), (int)err,
            operation, file, line, cudaGetErrorString(err));
    if (err == cudaErrorNoDevice || err == cudaErrorInsufficientDriver)
        fprintf(stderr, "  this program needs an NVIDIA GPU and its driver (nvidia-smi lists "
                        "them); the OpenCL exercises run anywhere\n");
    exit(EXIT_CUDA);
}

/* ---------------------------------------------------------------- devices */

static void list_devices(int count) {
    for (int d = 0; d < count; d++) {
        cudaDeviceProp p;
        CUDA_CHECK(cudaGetDeviceProperties(&p, d));
        printf("%d: %s (compute capability %d.%d, %d multiprocessors, %.1f GiB)\n", d, p.name,
               p.major, p.minor, p.multiProcessorCount,
               (double)p.totalGlobalMem / (1024.0 * 1024.0 * 1024.0));
    }
}

/* Whether needle is part of hay, ignoring case. */
static int contains(const char *hay, const char *needle) {
    size_t n = strlen(needle);
    for (; *hay; hay++) {
        size_t k = 0;
        while (k < n && hay[k] &&
               tolower((unsigned char)hay[k]) == tolower((unsigned char)needle[k]))
            k++;
        if (k == n)
            return 1;
    }
    return n == 0;
}

/* The CUDA device of spec, as the OpenCL programs read --device: NULL or "" the first, a number
 * its index from --list, otherwise part of its name. -1 with a message when none matches. */
static int choose_device(const char *spec, int count) {
    if (!spec || !*spec)
        return 0;
    char *end;
    long index = strtol(spec, &end, 10);
    if (*end == '\0')
        return index >= 0 && index < count ? (int)index : -1;
    for (int d = 0; d < count; d++) {
        cudaDeviceProp p;
        CUDA_CHECK(cudaGetDeviceProperties(&p, d));
        if (contains(p.name, spec))
            return d;
    }
    return -1;
}

/* ---------------------------------------------------------------- the program */

/* Whether the flag was given on the command line (clu_parse_options keeps no record). */
static int given(int argc, char **argv, const char *flag) {
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], flag) == 0)
            return 1;
    return 0;
}

/* One launch as 05 launches its kernel: {N/BLOCK, N/BLOCK} blocks of {BLOCK, BLOCK} threads. */
static void launch(int n, const float *a, const float *b, float *c) {
    dim3 grid(n / BLOCK, n / BLOCK), block(BLOCK, BLOCK);
    mmul_blocked<<<grid, block>>>(n, a, b, c);
    CUDA_CHECK(cudaGetLastError()); /* a launch that could not start: block too large, ... */
}

static void *host_alloc(size_t bytes) {
    void *p = malloc(bytes);
    if (!p) {
        fprintf(stderr, "out of host memory (%zu bytes)\n", bytes);
        exit(2);
    }
    return p;
}

int main(int argc, char **argv) {
    char title[96];
    snprintf(title, sizeof title, "Blocked %dx%d in shared memory, CUDA twin of 05", BLOCK, BLOCK);
    struct clu_options opt;
    clu_parse_options(&opt, argc, argv, 1024, title);
    if (given(argc, argv, "--block") && opt.block != BLOCK) {
        fprintf(stderr,
                "BLOCK is fixed when nvcc compiles kernel.cu (now %d): rebuild with "
                "make clean && make BLOCK=%d\n",
                BLOCK, opt.block);
        return 2;
    }
    int count = 0;
    CUDA_CHECK(cudaGetDeviceCount(&count));
    if (opt.list) {
        list_devices(count);
        return 0;
    }
    int n = opt.n;
    if (n % BLOCK != 0) {
        fprintf(stderr, "N = %d must be a multiple of BLOCK = %d\n", n, BLOCK);
        return 2;
    }
    int dev = choose_device(opt.device, count);
    if (dev < 0) {
        fprintf(stderr,
                "no CUDA device matches \"%s\" (from --device or $DEVICE); --list shows "
                "them\n",
                opt.device);
        return 2;
    }
    CUDA_CHECK(cudaSetDevice(dev));
    cudaDeviceProp prop;
    CUDA_CHECK(cudaGetDeviceProperties(&prop, dev));
    int driver = 0, runtime = 0;
    CUDA_CHECK(cudaDriverGetVersion(&driver));
    CUDA_CHECK(cudaRuntimeGetVersion(&runtime));

    size_t nn = (size_t)n * (size_t)n, bytes = nn * sizeof(float);
    float *a = (float *)host_alloc(bytes), *b = (float *)host_alloc(bytes);
    float *c = (float *)host_alloc(bytes);
    clu_random_fill(a, nn, opt.seed, 0);
    clu_random_fill(b, nn, opt.seed, 1);
    for (size_t i = 0; i < nn; i++)
        c[i] = NAN;         /* an element the kernel never writes stays NaN and cannot pass */
    float *d_a, *d_b, *d_c; /* device memory: OpenCL's __global buffers */
    CUDA_CHECK(cudaMalloc((void **)&d_a, bytes));
    CUDA_CHECK(cudaMalloc((void **)&d_b, bytes));
    CUDA_CHECK(cudaMalloc((void **)&d_c, bytes));
    CUDA_CHECK(cudaMemcpy(d_a, a, bytes, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_b, b, bytes, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_c, c, bytes, cudaMemcpyHostToDevice));

    /* one untimed launch (loading the module, and compiling its PTX where the GPU is newer than
     * the code nvcc made), then each repeat timed by two events around it */
    launch(n, d_a, d_b, d_c);
    CUDA_CHECK(cudaDeviceSynchronize());
    cudaEvent_t start, stop;
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));
    double *samples = (double *)host_alloc((size_t)opt.repeats * sizeof *samples);
    for (int r = 0; r < opt.repeats; r++) {
        float ms = 0.0f;
        CUDA_CHECK(cudaEventRecord(start));
        launch(n, d_a, d_b, d_c);
        CUDA_CHECK(cudaEventRecord(stop));
        CUDA_CHECK(cudaEventSynchronize(stop));
        CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
        samples[r] = 1e-3 * (double)ms;
    }
    struct clu_stats stats = clu_stats_of(samples, opt.repeats);
    CUDA_CHECK(cudaMemcpy(c, d_c, bytes, cudaMemcpyDeviceToHost));

    printf("%s\n", title);
    size_t unwritten = 0;
    for (size_t i = 0; i < nn; i++)
        unwritten += isnan(c[i]) != 0;
    if (unwritten == nn) {
        printf("kernel.cu wrote nothing to C - not implemented yet: fill in the TODO(student) "
               "parts\n");
        return 1;
    }
    double flops = 2.0 * (double)n * n * n;
    printf("device: %s (CUDA driver %d.%d, runtime %d.%d)  N: %d\n", prop.name, driver / 1000,
           driver % 1000 / 10, runtime / 1000, runtime % 1000 / 10, n);
    printf("kernel: median %.3f ms (min %.3f, max %.3f over %d runs)  %.2f GFLOP/s\n",
           stats.median * 1e3, stats.min * 1e3, stats.max * 1e3, stats.count,
           stats.median > 0 ? flops / stats.median * 1e-9 : 0.0);

    double *ref = (double *)host_alloc(nn * sizeof *ref),
           *tol = (double *)host_alloc(nn * sizeof *tol);
    clu_ref_matmul(n, a, b, ref, tol);
    for (size_t i = 0; i < nn; i++)
        tol[i] = clu_dot_tolerance(n, tol[i]);
    struct clu_mismatch m = clu_compare(c, ref, tol, 0.0, nn);
    int status = clu_print_verification(&m, nn, n);
    if (opt.output && clu_save_result(opt.output, c, nn) != 0)
        status = 2;

    CUDA_CHECK(cudaEventDestroy(start));
    CUDA_CHECK(cudaEventDestroy(stop));
    CUDA_CHECK(cudaFree(d_a));
    CUDA_CHECK(cudaFree(d_b));
    CUDA_CHECK(cudaFree(d_c));
    free(samples);
    free(ref);
    free(tol);
    free(a);
    free(b);
    free(c);
    return status;
}
