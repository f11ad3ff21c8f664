/* main.cu - 13_fastest_sgemm's CUDA twin: runs kernel.cu's sgemm (the same algorithm as
 * kernel.cl) through the CUDA runtime on an A of M x K and a B of K x N for any M, N, K >= 1,
 * and prints the same lines as the OpenCL program, so that the two can be set side by side.
 * Organised as 06_cuda_memory_model's main.cu (its header lists the OpenCL call each CUDA call
 * replaces); from common/ (clu.h): the flags, the random inputs (streams 0 and 1), the double
 * reference and its tolerance (clu_ref_gemm, clu_dot_tolerance, clu_compare), the statistics and
 * the result file; from clu_cuda.h the CUDA_CHECK idiom, the device and the timed launches. The
 * tuning values are fixed when nvcc compiles kernel.cu: make cuda CUDA_DEFINES="-DTSK=8", not
 * --define.
 * Exit status: 0 verified, 1 wrong result, 2 usage, 3 a CUDA call failed (as CLU_EXIT_OPENCL).
 * Build and run: make cuda && ./13_fastest_sgemm_cuda --m 1000 --n 999 --k 1001
 */
#include "clu.h"
#include "clu_cuda.h" /* the error idiom, the device, the timed launches */

#include "kernel.cu"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- the program */

/* One launch, as main.c launches kernel.cl: a grid of {roundup(N, TSN) / TSN,
 * roundup(M, TSM) / TSM} blocks of {TSN / WPTN, TSM / WPTM} threads, x along a row of C. */
struct sgemm_launch {
    int m, n, k;
    const float *a, *b;
    float *c;
};
static void launch(void *context) {
    const struct sgemm_launch *l = (const struct sgemm_launch *)context;
    dim3 grid((l->n + TSN - 1) / TSN, (l->m + TSM - 1) / TSM), block(RTSN, RTSM);
    sgemm<<<grid, block>>>(l->m, l->n, l->k, l->a, l->b, l->c);
    CUDA_CHECK(cudaGetLastError()); /* a launch that could not start: block too large, ... */
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
    struct clu_cuda_device dev;
    int opened = clu_cuda_open(&opt, &dev);
    if (opened != 0)
        return opened == 1 ? 0 : 2;

    int m = opt.m, n = opt.n, k = opt.k;
    size_t a_count = (size_t)m * (size_t)k, b_count = (size_t)k * (size_t)n;
    size_t c_count = (size_t)m * (size_t)n;
    float *a = (float *)clu_cuda_host_alloc(a_count * sizeof *a),
          *b = (float *)clu_cuda_host_alloc(b_count * sizeof *b);
    float *c = (float *)clu_cuda_host_alloc(c_count * sizeof *c);
    clu_random_fill(a, a_count, opt.seed, 0);
    clu_random_fill(b, b_count, opt.seed, 1);
    clu_fill_unwritten(c, c_count); /* an element the kernel never writes keeps a NaN of its own */
    float *d_a, *d_b, *d_c;         /* device memory: OpenCL's __global buffers */
    CUDA_CHECK(cudaMalloc((void **)&d_a, a_count * sizeof *a));
    CUDA_CHECK(cudaMalloc((void **)&d_b, b_count * sizeof *b));
    CUDA_CHECK(cudaMalloc((void **)&d_c, c_count * sizeof *c));
    CUDA_CHECK(cudaMemcpy(d_a, a, a_count * sizeof *a, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_b, b, b_count * sizeof *b, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_c, c, c_count * sizeof *c, cudaMemcpyHostToDevice));

    struct sgemm_launch l = {m, n, k, d_a, d_b, d_c};
    struct clu_stats stats = clu_cuda_time(launch, &l, opt.repeats);
    CUDA_CHECK(cudaMemcpy(c, d_c, c_count * sizeof *c, cudaMemcpyDeviceToHost));

    printf("%s\n", title);
    size_t unwritten = 0;
    for (size_t i = 0; i < c_count; i++)
        unwritten += clu_nan_kind(c[i]) == CLU_UNWRITTEN; /* (a computed NaN was written) */
    if (unwritten == c_count) {
        printf("kernel.cu wrote nothing to C - not implemented yet: fill in the TODO(student) "
               "parts\n");
        return 1;
    }
    double flops = 2.0 * (double)m * n * k;
    char device[400];
    clu_cuda_device_text(&dev, device, sizeof device);
    printf("device: %s  M x N x K: %d x %d x %d\n", device, m, n, k);
    printf("kernel: median %.3f ms (min %.3f, max %.3f over %d runs)  %.2f GFLOP/s\n",
           stats.median * 1e3, stats.min * 1e3, stats.max * 1e3, stats.count,
           stats.median > 0 ? flops / stats.median * 1e-9 : 0.0);

    double *ref = (double *)clu_cuda_host_alloc(c_count * sizeof *ref),
           *tol = (double *)clu_cuda_host_alloc(c_count * sizeof *tol);
    clu_ref_gemm(m, n, k, a, b, ref, tol);
    for (size_t i = 0; i < c_count; i++)
        tol[i] = clu_dot_tolerance(k, tol[i]);
    struct clu_mismatch wrong = clu_compare(c, ref, tol, 0.0, c_count);
    int status = clu_print_verification(&wrong, c_count, n);
    if (opt.output && clu_save_result(opt.output, c, c_count) != 0)
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
