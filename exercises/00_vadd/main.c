/* main.c - 00_vadd host program: c = a + b on an OpenCL device, the host side by hand.
 *
 * The matmul steps hand their host work to the driver in common/clu_mm.c; this first step does
 * that work itself so that every call is in view: choose a device, build kernel.cl, create
 * buffers, set the kernel's arguments, launch, read the result back. clu.h still does the
 * chores (flags, device choice, build log, timing, random data, result lines).
 * Build and run: make && ./00_vadd --n 1048576    Grade: make grade
 */
#include "clu.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define TITLE "vadd: c = a + b, one element per work-item"

/* What the launch callback needs; clu_time_launches hands it back as ctx. */
struct vadd_launch {
    cl_kernel kernel; /* vadd from kernel.cl, its arguments already set */
    size_t count;     /* vector length: the global size */
};

/* Contract: enqueue v->kernel on queue over a 1-D NDRange of exactly v->count work-items, with
 * no local size (NULL: the runtime chooses), and hand back the launch's event in *done so that
 * clu_time_launches can time it. Return the enqueue's status. */
static cl_int launch(void *ctx, cl_command_queue queue, cl_event *done) {
    struct vadd_launch *v = ctx;
    *done = NULL; /* stays NULL until the kernel is enqueued: main says "not launched" */
    /* TODO(student) begin */
    (void)queue; /* stub: nothing enqueued yet, so *done stays NULL */
    (void)v;
    /* TODO(student) end */
    return CL_SUCCESS;
}

static void not_implemented(const char *what) {
    printf("%s: %s - not implemented yet: fill in the TODO(student) parts\n", TITLE, what);
}

int main(int argc, char **argv) {
    struct clu_options opt;
    clu_parse_options(&opt, argc, argv, 1 << 20, TITLE);
    if (opt.list)
        return clu_list_devices() < 0 ? CLU_EXIT_OPENCL : 0;
    struct clu_env env;
    if (clu_env_open(&env, opt.device) != 0)
        return CLU_EXIT_OPENCL;
    cl_program program;
    cl_kernel kernel = clu_kernel_next_to_exe(&env, "vadd", "", &program);

    size_t n = (size_t)opt.n, bytes = n * sizeof(float);
    float *a = malloc(bytes), *b = malloc(bytes), *c = malloc(bytes);
    if (!a || !b || !c) {
        fprintf(stderr, "out of host memory for n = %zu\n", n);
        return 2;
    }
    clu_random_fill(a, n, opt.seed, 0); /* the same streams the grader uses */
    clu_random_fill(b, n, opt.seed, 1);
    clu_fill_unwritten(c, n); /* an element the kernel never writes keeps a NaN of its own */

    /* Contract: create the device buffers of `bytes` bytes each in env.context with
     * clCreateBuffer: d_a and d_b read-only (CL_MEM_READ_ONLY), d_c written by the kernel
     * (CL_MEM_WRITE_ONLY), all three initialised from the host arrays a, b and c with
     * CL_MEM_COPY_HOST_PTR (c holds NaNs). Check each call's err with CLU_CHECK_ERR. */
    cl_mem d_a = NULL, d_b = NULL, d_c = NULL;
    /* TODO(student) begin */
    /* TODO(student) end */
    if (!d_a || !d_b || !d_c) {
        not_implemented("buffers not created");
        return 1;
    }

    /* Contract: the kernel is vadd(__global const float *a, __global const float *b,
     * __global float *c, const unsigned int count). Set its four arguments, in that order, from
     * d_a, d_b, d_c (each a cl_mem) and n (as a cl_uint), with clSetKernelArg. Check every call
     * (CLU_CHECK). */
    /* TODO(student) begin */
    /* TODO(student) end */

    struct vadd_launch v = {kernel, n};
    struct clu_stats stats;
    cl_int status = clu_time_launches(env.queue, launch, &v, opt.warmup, opt.repeats, &stats);
    if (status == CLU_NOT_LAUNCHED) {
        not_implemented("kernel not launched");
        return 1;
    }
    CLU_CHECK_ERR(status, "launching the kernel");

    /* Contract: copy d_c (bytes bytes) back into the host array c with a blocking
     * clEnqueueReadBuffer on env.queue. Check the call (CLU_CHECK). */
    /* TODO(student) begin */
    /* TODO(student) end */

    printf("%s\n", TITLE);
    clu_print_timing(&env, opt.n, &stats, (double)n); /* one addition per element */

    /* Reference in double; one float addition rounds by at most FLT_EPSILON/2 * |a + b|, so
     * FLT_EPSILON * (|a| + |b|) bounds the error of a correct kernel with room to spare. */
    double *expected = malloc(n * sizeof *expected), *tol = malloc(n * sizeof *tol);
    if (!expected || !tol) {
        fprintf(stderr, "out of host memory for the reference\n");
        return 2;
    }
    for (size_t i = 0; i < n; i++) {
        expected[i] = (double)a[i] + (double)b[i];
        tol[i] = FLT_EPSILON * (fabs((double)a[i]) + fabs((double)b[i]));
    }
    struct clu_mismatch m = clu_compare(c, expected, tol, 0.0, n);
    int result = clu_print_verification(&m, n, 0);
    if (opt.output && clu_save_result(opt.output, c, n) != 0)
        result = 2;

    free(expected);
    free(tol);
    free(a);
    free(b);
    free(c);
    clReleaseMemObject(d_a);
    clReleaseMemObject(d_b);
    clReleaseMemObject(d_c);
    clReleaseKernel(kernel);
    clReleaseProgram(program);
    clu_env_close(&env);
    return result;
}
