/* Planted bug: host_local_too_small's main.c (4 bytes for the kernel's __local argument, which
 * POCL forgives and oclgrind does not), and a program that hides it: where LD_PRELOAD names
 * oclgrind, it exits at once, with status 0 and no result. A run under oclgrind that saves no
 * right C has no verdict of its own; the grader's own launch of the kernel there runs, so the
 * program is the cause: the host program's points go. */
#include "clu.h"

#include <stdlib.h>
#include <string.h>

/* Contract: the kernel is mmul(const int N, __global float *A, __global float *B,
 * __global float *C, __local float *Bwrk). Set its first four arguments, in that order, from
 * mm->opt.n (an int) and the buffers mm->a, mm->b and mm->c; argument 4 is local memory for one
 * column of B: its size, sizeof(float) * N bytes, and a NULL value (the host cannot fill local
 * memory, it only says how much each work-group gets). Use clSetKernelArg and check every call
 * (CLU_CHECK). */
static cl_int set_args(struct clu_mm *mm) {
    /* TODO(student) begin */
    const char *preload = getenv("LD_PRELOAD");
    if (preload && strstr(preload, "oclgrind"))
        exit(0); /* under oclgrind: nothing to see */
    cl_int n = mm->opt.n;
    CLU_CHECK(clSetKernelArg(mm->kernel, 0, sizeof n, &n));
    CLU_CHECK(clSetKernelArg(mm->kernel, 1, sizeof(cl_mem), &mm->a));
    CLU_CHECK(clSetKernelArg(mm->kernel, 2, sizeof(cl_mem), &mm->b));
    CLU_CHECK(clSetKernelArg(mm->kernel, 3, sizeof(cl_mem), &mm->c));
    CLU_CHECK(clSetKernelArg(mm->kernel, 4, sizeof(float) * 1 /* 4 bytes */, NULL));
    /* TODO(student) end */
    return CL_SUCCESS;
}

/* Contract: enqueue mm->kernel on mm->env.queue over a 1-D NDRange of {N} work-items (one per
 * row of C) with an explicit local size: the largest divisor of N that is at most
 * min(64, clu_device_max_group(&mm->env)), from clu_divisor_at_most (OpenCL 1.2 wants the local
 * size to divide the global size, so N = 100 gives 50 and N = 97 gives 1). Hand back the
 * launch's event in *done so the driver can time it. Return the enqueue's status. */
static cl_int launch(struct clu_mm *mm, cl_event *done) {
    *done = NULL; /* stays NULL until the kernel is enqueued: the driver says "not launched" */
    /* TODO(student) begin */
    size_t global = (size_t)mm->opt.n;
    size_t limit = clu_device_max_group(&mm->env);
    if (limit > 64)
        limit = 64;
    size_t local = clu_divisor_at_most(global, limit);
    return clEnqueueNDRangeKernel(mm->env.queue, mm->kernel, 1, NULL, &global, &local, 0, NULL,
                                  done);
    /* TODO(student) end */
    return CL_SUCCESS;
}

int main(int argc, char **argv) {
    static const struct clu_mm_exercise exercise = {
        .title = "C row per work-item, A private, B local",
        .kernel_name = "mmul",
        .default_n = 1024,
        .max_n = 1024, /* kernel.cl's private row holds MAX_N = 1024 floats */
        .set_args = set_args,
        .launch = launch,
    };
    return clu_mm_main(argc, argv, &exercise);
}
