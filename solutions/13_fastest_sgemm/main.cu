/* main.cu - 13_fastest_sgemm's CUDA twin: runs kernel.cu's sgemm (the same algorithm as
 * kernel.cl) through the CUDA runtime on an A of M x K and a B of K x N for any M, N, K >= 1,
 * and prints the same lines as the OpenCL program, so that the two can be set side by side.
 * Organised as 06_cuda_memory_model's main.cu (its header lists the OpenCL call each CUDA call
 * replaces); from common/ (clu.h): the flags, the random inputs (streams 0 and 1), the double
 * reference and its tolerance (clu_ref_gemm, clu_dot_tolerance, clu_compare), the statistics and
 * the result file. The tuning values are fixed when nvcc compiles kernel.cu:
 * make cuda CUDA_DEFINES="-DTSK=8", not --define.
 * Exit status: 0 verified, 1 wrong result, 2 usage, 3 a CUDA call failed (as CLU_EXIT_OPENCL).
 * Build and run: make cuda && ./13_fastest_sgemm_cuda --m 1000 --n 999 --k 1001
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

/* One launch, as main.c launches kernel.cl: a grid of {roundup(N, TSN) / TSN,
 * roundup(M, TSM) / TSM} blocks of {TSN / WPTN, TSM / WPTM} threads, x along a row of C. */
static void launch(int m, int n, int k, const float *a, const float *b, float *c) {
    dim3 grid((n + TSN - 1) / TSN, (m + TSM - 1) / TSM), block(RTSN, RTSM);
    sgemm<<<grid, block>>>(m, n, k, a, b, c);
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
    char title[128];
    snprintf(title, sizeof title,
             "Fastest SGEMM, CUDA twin (TSM=%d TSN=%d TSK=%d WPTM=%d WPTN=%d VWM=%d VWN=%d)", TSM,
             TSN, TSK, WPTM, WPTN, VWM, VWN);
    struct clu_options opt;
    clu_parse_options(&opt, argc, argv, 1024, title);
    if (opt.define_count > 0) {
        fprintf(stderr,
                "the tuning values are fixed when nvcc compiles kernel.cu: rebuild with "
                "make clean && make cuda CUDA_DEFINES=\"-D%s=%d\"\n",
                opt.define_names[0], opt.define_values[0]);
        return 2;
    }
    int count = 0;
    CUDA_CHECK(cudaGetDeviceCount(&count));
    if (opt.list) {
        list_devices(count);
        return 0;
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

    int m = opt.m, n = opt.n, k = opt.k;
    size_t a_count = (size_t)m * (size_t)k, b_count = (size_t)k * (size_t)n;
    size_t c_count = (size_t)m * (size_t)n;
    float *a = (float *)host_alloc(a_count * sizeof *a),
          *b = (float *)host_alloc(b_count * sizeof *b);
    float *c = (float *)host_alloc(c_count * sizeof *c);
    clu_random_fill(a, a_count, opt.seed, 0);
    clu_random_fill(b, b_count, opt.seed, 1);
    for (size_t i = 0; i < c_count; i++)
        c[i] = NAN;         /* an element the kernel never writes stays NaN and cannot pass */
    float *d_a, *d_b, *d_c; /* device memory: OpenCL's __global buffers */
    CUDA_CHECK(cudaMalloc((void **)&d_a, a_count * sizeof *a));
    CUDA_CHECK(cudaMalloc((void **)&d_b, b_count * sizeof *b));
    CUDA_CHECK(cudaMalloc((void **)&d_c, c_count * sizeof *c));
    CUDA_CHECK(cudaMemcpy(d_a, a, a_count * sizeof *a, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_b, b, b_count * sizeof *b, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_c, c, c_count * sizeof *c, cudaMemcpyHostToDevice));

    /* one untimed launch, then each repeat timed by two events around it */
    launch(m, n, k, d_a, d_b, d_c);
    CUDA_CHECK(cudaDeviceSynchronize());
    cudaEvent_t start, stop;
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));
    double *samples = (double *)host_alloc((size_t)opt.repeats * sizeof *samples);
    for (int r = 0; r < opt.repeats; r++) {
        float ms = 0.0f;
        CUDA_CHECK(cudaEventRecord(start));
        launch(m, n, k, d_a, d_b, d_c);
        CUDA_CHECK(cudaEventRecord(stop));
        CUDA_CHECK(cudaEventSynchronize(stop));
        CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
        samples[r] = 1e-3 * (double)ms;
    }
    struct clu_stats stats = clu_stats_of(samples, opt.repeats);
    CUDA_CHECK(cudaMemcpy(c, d_c, c_count * sizeof *c, cudaMemcpyDeviceToHost));

    printf("%s\n", title);
    size_t unwritten = 0;
    for (size_t i = 0; i < c_count; i++)
        unwritten += isnan(c[i]) != 0;
    if (unwritten == c_count) {
        printf("kernel.cu wrote nothing to C - not implemented yet: fill in the TODO(student) "
               "parts\n");
        return 1;
    }
    double flops = 2.0 * (double)m * n * k;
    printf("device: %s (CUDA driver %d.%d, runtime %d.%d)  M x N x K: %d x %d x %d\n", prop.name,
           driver / 1000, driver % 1000 / 10, runtime / 1000, runtime % 1000 / 10, m, n, k);
    printf("kernel: median %.3f ms (min %.3f, max %.3f over %d runs)  %.2f GFLOP/s\n",
           stats.median * 1e3, stats.min * 1e3, stats.max * 1e3, stats.count,
           stats.median > 0 ? flops / stats.median * 1e-9 : 0.0);

    double *ref = (double *)host_alloc(c_count * sizeof *ref),
           *tol = (double *)host_alloc(c_count * sizeof *tol);
    clu_ref_gemm(m, n, k, a, b, ref, tol);
    for (size_t i = 0; i < c_count; i++)
        tol[i] = clu_dot_tolerance(k, tol[i]);
    struct clu_mismatch wrong = clu_compare(c, ref, tol, 0.0, c_count);
    int status = clu_print_verification(&wrong, c_count, n);
    if (opt.output && clu_save_result(opt.output, c, c_count) != 0)
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
