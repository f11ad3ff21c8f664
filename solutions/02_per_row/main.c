/* main.c - 02_per_row host program: C = A * B with one row of C per work-item.
 *
 * The shared driver in common/clu_mm.c does the rest (flags, device, build of kernel.cl, random
 * A and B, warm-up, timing, verification); this file holds the two parts this step teaches.
 * Build and run: make && ./02_per_row --n 1024    Grade: make grade
 */
#include "clu.h"

/* Contract: the kernel is mmul(const int N, __global float *A, __global float *B,
 * __global float *C). Set its four arguments, in that order, from mm->opt.n (an int) and the
 * buffers mm->a, mm->b and mm->c, with clSetKernelArg. Check every call (CLU_CHECK). */
static cl_int set_args(struct clu_mm *mm) {
    /* TODO(student) begin */
    cl_int n = mm->opt.n;
    CLU_CHECK(clSetKernelArg(mm->kernel, 0, sizeof n, &n));
    CLU_CHECK(clSetKernelArg(mm->kernel, 1, sizeof(cl_mem), &mm->a));
    CLU_CHECK(clSetKernelArg(mm->kernel, 2, sizeof(cl_mem), &mm->b));
    CLU_CHECK(clSetKernelArg(mm->kernel, 3, sizeof(cl_mem), &mm->c));
    /* TODO(student) end */
    return CL_SUCCESS;
}

/* Contract: enqueue mm->kernel on mm->env.queue over a 1-D NDRange of {N} work-items (one per
 * row of C), with no local size (NULL: the runtime chooses), and hand back the launch's event in
 * *done so the driver can time it. Return the enqueue's status. */
static cl_int launch(struct clu_mm *mm, cl_event *done) {
    *done = NULL; /* stays NULL until the kernel is enqueued: the driver says "not launched" */
    /* TODO(student) begin */
    size_t global = (size_t)mm->opt.n;
    return clEnqueueNDRangeKernel(mm->env.queue, mm->kernel, 1, NULL, &global, NULL, 0, NULL, done);
    /* TODO(student) end */
    return CL_SUCCESS;
}

int main(int argc, char **argv) {
    static const struct clu_mm_exercise exercise = {
        .title = "C row per work-item, all global",
        .kernel_name = "mmul",
        .default_n = 1024,
        .set_args = set_args,
        .launch = launch,
    };
    return clu_mm_main(argc, argv, &exercise);
}
