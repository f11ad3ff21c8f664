/* main.cu - 06_cuda_memory_model host program: the CUDA twin of 05_blocked_16x16's. It runs
 * kernel.cu's mmul_blocked (BLOCK x BLOCK tiles in shared memory) through the CUDA runtime and
 * prints the same lines as the OpenCL programs, so that the two can be set side by side.
 *
 * From common/ (clu.h), as every program of the workbook: the flags (clu_parse_options), the
 * random inputs (clu_random_fill, stream 0 for A and 1 for B), the double reference and its
 * tolerance (clu_ref_matmul, clu_dot_tolerance, clu_compare), the statistics (clu_stats_of) and
 * the result file (clu_save_result); from clu_cuda.h the twins' CUDA_CHECK, device choice
 * (clu_cuda_open) and timed launches (clu_cuda_time). CUDA's own, with the OpenCL call each one
 * replaces:
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
#include "clu_cuda.h" /* the error idiom, the device, the timed launches */

#include "kernel.cu"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- the program */

/* Whether the flag was given on the command line (clu_parse_options keeps no record). */
static int given(int argc, char **argv, const char *flag) {
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], flag) == 0)
            return 1;
    return 0;
}

/* One launch as 05 launches its kernel: {N/BLOCK, N/BLOCK} blocks of {BLOCK, BLOCK} threads. */
struct blocked_launch {
    int n;
    const float *a, *b;
    float *c;
};
static void launch(void *context) {
    const struct blocked_launch *l = (const struct blocked_launch *)context;
    dim3 grid(l->n / BLOCK, l->n / BLOCK), block(BLOCK, BLOCK);
    mmul_blocked<<<grid, block>>>(l->n, l->a, l->b, l->c);
    CUDA_CHECK(cudaGetLastError()); /* a launch that could not start: block too large, ... */
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
    int n = opt.n;
    if (!opt.list && n % BLOCK != 0) {
        fprintf(stderr, "N = %d must be a multiple of BLOCK = %d\n", n, BLOCK);
        return 2;
    }
    struct clu_cuda_device dev;
    int opened = clu_cuda_open(&opt, &dev);
    if (opened != 0)
        return opened == 1 ? 0 : 2;

    size_t nn = (size_t)n * (size_t)n, bytes = nn * sizeof(float);
    float *a = (float *)clu_cuda_host_alloc(bytes), *b = (float *)clu_cuda_host_alloc(bytes);
    float *c = (float *)clu_cuda_host_alloc(bytes);
    clu_random_fill(a, nn, opt.seed, 0);
    clu_random_fill(b, nn, opt.seed, 1);
    clu_fill_unwritten(c, nn); /* an element the kernel never writes keeps a NaN of its own */
    float *d_a, *d_b, *d_c;    /* device memory: OpenCL's __global buffers */
    CUDA_CHECK(cudaMalloc((void **)&d_a, bytes));
    CUDA_CHECK(cudaMalloc((void **)&d_b, bytes));
    CUDA_CHECK(cudaMalloc((void **)&d_c, bytes));
    CUDA_CHECK(cudaMemcpy(d_a, a, bytes, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_b, b, bytes, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_c, c, bytes, cudaMemcpyHostToDevice));

    struct blocked_launch l = {n, d_a, d_b, d_c};
    struct clu_stats stats = clu_cuda_time(launch, &l, opt.repeats);
    CUDA_CHECK(cudaMemcpy(c, d_c, bytes, cudaMemcpyDeviceToHost));

    printf("%s\n", title);
    size_t unwritten = 0;
    for (size_t i = 0; i < nn; i++)
        unwritten += clu_nan_kind(c[i]) == CLU_UNWRITTEN; /* (a computed NaN was written) */
    if (unwritten == nn) {
        printf("kernel.cu wrote nothing to C - not implemented yet: fill in the TODO(student) "
               "parts\n");
        return 1;
    }
    double flops = 2.0 * (double)n * n * n;
    char device[400];
    clu_cuda_device_text(&dev, device, sizeof device);
    printf("device: %s  N: %d\n", device, n);
    printf("kernel: median %.3f ms (min %.3f, max %.3f over %d runs)  %.2f GFLOP/s\n",
           stats.median * 1e3, stats.min * 1e3, stats.max * 1e3, stats.count,
           stats.median > 0 ? flops / stats.median * 1e-9 : 0.0);

    double *ref = (double *)clu_cuda_host_alloc(nn * sizeof *ref),
           *tol = (double *)clu_cuda_host_alloc(nn * sizeof *tol);
    clu_ref_matmul(n, a, b, ref, tol);
    for (size_t i = 0; i < nn; i++)
        tol[i] = clu_dot_tolerance(n, tol[i]);
    struct clu_mismatch m = clu_compare(c, ref, tol, 0.0, nn);
    int status = clu_print_verification(&m, nn, n);
    if (opt.output && clu_save_result(opt.output, c, nn) != 0)
        status = 2;

    CUDA_CHECK(cudaFree(d_a));
    CUDA_CHECK(cudaFree(d_b));
    CUDA_CHECK(cudaFree(d_c));
    free(ref);
    free(tol);
    free(a);
    free(b);
    free(c);
    return status;
}
