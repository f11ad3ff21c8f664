/* main.c - 05_blocked_16x16 host program: C = A * B by BLOCK x BLOCK tiles in local memory, one
 * element of C per work-item, work-groups of BLOCK x BLOCK (BLOCK = --block, default 16).
 *
 * The shared driver in common/clu_mm.c does the rest (flags, device, build of kernel.cl with
 * -DBLOCK=<--block>, random A and B, warm-up, timing, verification); this file holds the two
 * parts this step teaches.
 * Build and run: make && ./05_blocked_16x16 --n 1024 --block 16    Grade: make grade
 */
#include "clu.h"

/* Contract: the kernel is mmul(const int N, __global float *A, __global float *B,
 * __global float *C, __local float *Awrk, __local float *Bwrk). Set its first four arguments, in
 * that order, from mm->opt.n (an int) and the buffers mm->a, mm->b and mm->c; arguments 4 and 5
 * are local memory for one tile each: sizeof(float) * BLOCK * BLOCK bytes with BLOCK =
 * mm->opt.block, and a NULL value. Use clSetKernelArg and check every call (CLU_CHECK). */
static cl_int set_args(struct clu_mm *mm) {
    /* TODO(student) begin */
    cl_int n = mm->opt.n;
    size_t tile = sizeof(float) * (size_t)mm->opt.block * (size_t)mm->opt.block;
    CLU_CHECK(clSetKernelArg(mm->kernel, 0, sizeof n, &n));
    CLU_CHECK(clSetKernelArg(mm->kernel, 1, sizeof(cl_mem), &mm->a));
    CLU_CHECK(clSetKernelArg(mm->kernel, 2, sizeof(cl_mem), &mm->b));
    CLU_CHECK(clSetKernelArg(mm->kernel, 3, sizeof(cl_mem), &mm->c));
    CLU_CHECK(clSetKernelArg(mm->kernel, 4, tile, NULL));
    CLU_CHECK(clSetKernelArg(mm->kernel, 5, tile, NULL));
    /* TODO(student) end */
    return CL_SUCCESS;
}

/* Contract: enqueue mm->kernel on mm->env.queue over a 2-D NDRange of {N, N} work-items
 * (dimension 0 is the row i) in work-groups of {BLOCK, BLOCK}, BLOCK = mm->opt.block (the driver
 * has checked that BLOCK divides N). If BLOCK * BLOCK is more than clu_device_max_group
 * allows, enqueue nothing and return CL_INVALID_WORK_GROUP_SIZE (the driver reports it).
 * Otherwise hand back the launch's event in *done so the driver can time it, and return the
 * enqueue's status. */
static cl_int launch(struct clu_mm *mm, cl_event *done) {
    *done = NULL; /* stays NULL until the kernel is enqueued: the driver says "not launched" */
    /* TODO(student) begin */
    size_t n = (size_t)mm->opt.n, block = (size_t)mm->opt.block;
    if (block * block > clu_device_max_group(&mm->env))
        return CL_INVALID_WORK_GROUP_SIZE;
    size_t global[2] = {n, n}, local[2] = {block, block};
    return clEnqueueNDRangeKernel(mm->env.queue, mm->kernel, 2, NULL, global, local, 0, NULL, done);
    /* TODO(student) end */
    return CL_SUCCESS;
}

int main(int argc, char **argv) {
    static const struct clu_mm_exercise exercise = {
        .title = "Block oriented approach using local",
        .kernel_name = "mmul",
        .default_n = 1024,
        .n_multiple_of_block = 1,
        .set_args = set_args,
        .launch = launch,
    };
    return clu_mm_main(argc, argv, &exercise);
}
